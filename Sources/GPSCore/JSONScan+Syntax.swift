extension JSONScan {
    /// Where text stops being JSON (RFC 8259), and why: what a reader of a file needs to mend it.
    package struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong there, as a phrase: "a comma after the last element of an array".
        package var reason: String
        /// Where, in bytes from the start of the text (from 0).
        package var offset: Int
        /// The line of `offset`, from 1 (lines end at `\n`).
        package var line: Int
        /// The column of `offset` in its line, from 1, counting characters (Unicode scalars), not bytes.
        package var column: Int

        /// "a comma after the last element of an array at line 3, column 17"
        package var description: String {
            "\(reason) at line \(line), column \(column)"
        }
    }

    /// How deep arrays and objects may nest before the text is refused (a guard against a stack
    /// overflow on hostile input; no real document comes near it).
    package static let maximumDepth = 512

    /// The first place where `text` is not one JSON text as RFC 8259 defines it, or `nil` if it is
    /// one. Strict where lenient parsers are not: no comma after the last element or member, no
    /// leading zeros (`07`), no `NaN` or `Infinity`, no control character unescaped in a string,
    /// no escape but the nine RFC 8259 has, no lone UTF-16 surrogate in a `\u` escape, and UTF-8
    /// only (§8.1). A UTF-8 byte order mark at the start is ignored, as §8.1 allows.
    ///
    /// `JSONDecoder` takes trailing commas, control characters and lone surrogates, where Python's
    /// `json` and RFC 8259 refuse them: text is checked here before it is decoded.
    ///
    /// ```swift
    /// JSONScan.syntaxError(in: Array("[[10.0,53.5],]".utf8))?.description
    /// // "a comma after the last element of an array (JSON allows none before ']') at line 1, column 13"
    /// ```
    package static func syntaxError(in text: UnsafeBufferPointer<UInt8>) -> SyntaxError? {
        var validator = StrictValidator(text: text)
        do {
            try validator.document()
            return nil
        } catch {
            let (line, column) = position(of: error.offset, in: text)
            return SyntaxError(reason: error.reason, offset: error.offset, line: line, column: column)
        }
    }

    /// `syntaxError(in:)` of `bytes`.
    package static func syntaxError(in bytes: [UInt8]) -> SyntaxError? {
        bytes.withUnsafeBufferPointer { syntaxError(in: $0) }
    }

    /// The line and column (from 1; the column in Unicode scalars) of byte `offset`.
    private static func position(of offset: Int, in text: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in UnsafeBufferPointer(rebasing: text[..<min(offset, text.count)]) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1  // not a UTF-8 continuation byte: a new scalar
            }
        }
        return (line, column)
    }
}

/// RFC 8259's grammar, one byte at a time, over a whole text.
private struct StrictValidator {
    struct Failure: Error {
        var reason: String
        var offset: Int
    }

    let text: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(text: UnsafeBufferPointer<UInt8>) {
        self.text = text
    }

    mutating func document() throws(Failure) {
        if text.count >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF { index = 3 }
        skipSpace()
        guard index < text.count else {
            throw Failure(reason: index == 0 ? "no JSON value: the text is empty" : "no JSON value: the text is only white space", offset: index)
        }
        try value()
        skipSpace()
        if index < text.count { throw fail("text after the end of the JSON value: \(found())") }
    }

    private func fail(_ reason: String) -> Failure {
        Failure(reason: reason, offset: index)
    }

    private mutating func skipSpace() {
        while index < text.count, JSONScan.isSpace(text[index]) { index += 1 }
    }

    private func isDigit(at position: Int) -> Bool {
        position < text.count && text[position] >= UInt8(ascii: "0") && text[position] <= UInt8(ascii: "9")
    }

    /// What is at `position` (by default `index`), for a message: `']'`, `'NaN'` (a word whole),
    /// `'é' (U+00E9)`, `the control character U+0009`, `byte 0xFF (not UTF-8)`, the end.
    private func found(at position: Int? = nil) -> String {
        let position = position ?? index
        guard position < text.count else { return "the end of the text" }
        if Self.isLetter(text[position]) {
            var end = position
            while end < text.count, end - position < 12, Self.isLetter(text[end]) { end += 1 }
            return "'\(String(decoding: UnsafeBufferPointer(rebasing: text[position..<end]), as: UTF8.self))'"
        }
        guard let (scalar, _) = scalar(at: position) else {
            return "byte 0x\(String(text[position], radix: 16, uppercase: true)) (not UTF-8)"
        }
        if scalar.properties.generalCategory == .control { return "the control character U+\(Self.hex(scalar.value))" }
        if scalar.isASCII { return "'\(Character(scalar))'" }
        return "'\(Character(scalar))' (U+\(Self.hex(scalar.value)))"
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private mutating func value() throws(Failure) {
        guard index < text.count else { throw fail("expected a value, found the end of the text") }
        switch text[index] {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default:
            let what = found()
            if ["'NaN'", "'Infinity'"].contains(what) { throw fail("expected a value, found \(what): JSON has no NaN or Infinity") }
            if text[index] == UInt8(ascii: "'") { throw fail("expected a value, found \(what): JSON strings are in double quotes") }
            throw fail("expected a value, found \(what)")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= JSONScan.maximumDepth else { throw fail("arrays and objects nested more than \(JSONScan.maximumDepth) deep") }
    }

    private mutating func array() throws(Failure) {
        try enter()
        index += 1
        skipSpace()
        if index < text.count, text[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        while true {
            try value()
            skipSpace()
            guard index < text.count else { throw fail("an array not closed: expected ',' or ']', found the end of the text") }
            switch text[index] {
            case UInt8(ascii: ","):
                let comma = index
                index += 1
                skipSpace()
                if index < text.count, text[index] == UInt8(ascii: "]") {
                    throw Failure(reason: "a comma after the last element of an array (JSON allows none before ']')", offset: comma)
                }
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return
            default:
                throw fail("expected ',' or ']' after an element of an array, found \(found())")
            }
        }
    }

    private mutating func object() throws(Failure) {
        try enter()
        index += 1
        skipSpace()
        if index < text.count, text[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        while true {
            guard index < text.count, text[index] == UInt8(ascii: "\"") else {
                throw fail("expected a member name in double quotes, found \(found())")
            }
            try string()
            skipSpace()
            guard index < text.count, text[index] == UInt8(ascii: ":") else { throw fail("expected ':' after a member name, found \(found())") }
            index += 1
            skipSpace()
            try value()
            skipSpace()
            guard index < text.count else { throw fail("an object not closed: expected ',' or '}', found the end of the text") }
            switch text[index] {
            case UInt8(ascii: ","):
                let comma = index
                index += 1
                skipSpace()
                if index < text.count, text[index] == UInt8(ascii: "}") {
                    throw Failure(reason: "a comma after the last member of an object (JSON allows none before '}')", offset: comma)
                }
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return
            default:
                throw fail("expected ',' or '}' after a member of an object, found \(found())")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        let matches = text.count - index >= count && (0..<count).allSatisfy { text[index + $0] == word.utf8Start[$0] }
        guard matches, !(index + count < text.count && Self.isLetter(text[index + count])) else {
            throw fail("expected a value, found \(found())")
        }
        index += count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(Failure) {
        let start = index
        if text[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(at: index) else {
            let what = found()
            throw fail("expected a digit after '-', found \(what)" + (what == "'Infinity'" ? ": JSON has no NaN or Infinity" : ""))
        }
        if text[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(at: index) {
                throw Failure(reason: "a number with a leading zero: JSON writes 7 or 0.7, not 07", offset: start)
            }
        } else {
            while isDigit(at: index) { index += 1 }
        }
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(at: index) else { throw fail("expected a digit after a number's decimal point, found \(found())") }
            while isDigit(at: index) { index += 1 }
        }
        if index < text.count, text[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(at: index) else { throw fail("expected a digit in a number's exponent, found \(found())") }
            while isDigit(at: index) { index += 1 }
        }
    }

    private mutating func string() throws(Failure) {
        let opening = index
        index += 1
        while index < text.count {
            let byte = text[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                try escape()
            case 0..<0x20:
                throw fail("the control character U+\(Self.hex(UInt32(byte))) inside a string: JSON needs it escaped (\\n, \\t, \\u\(Self.hex(UInt32(byte))))")
            case 0x20..<0x80:
                index += 1
            default:
                guard let (_, length) = scalar(at: index) else {
                    throw fail("bytes that are not UTF-8 inside a string, from byte 0x\(String(byte, radix: 16, uppercase: true))")
                }
                index += length
            }
        }
        throw Failure(reason: "a string not closed: it opens here and the text ends inside it", offset: opening)
    }

    /// The escape at `index` (a backslash): one of `\" \\ \/ \b \f \n \r \t \uXXXX`, a high
    /// surrogate's `\uXXXX` followed by its low surrogate's.
    private mutating func escape() throws(Failure) {
        guard index + 1 < text.count else { throw fail("a backslash at the end of the text") }
        switch text[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let start = index
            let unit = try hexEscape()
            switch unit {
            case 0xD800...0xDBFF:
                var low: UInt32?
                if index + 1 < text.count, text[index] == UInt8(ascii: "\\"), text[index + 1] == UInt8(ascii: "u") { low = try hexEscape() }
                guard let low, (0xDC00...0xDFFF).contains(low) else {
                    throw Failure(
                        reason: "a lone surrogate \\u\(Self.hex(unit)): a high surrogate must be followed by a low one (\\uDC00 to \\uDFFF)", offset: start)
                }
            case 0xDC00...0xDFFF:
                throw Failure(reason: "a lone surrogate \\u\(Self.hex(unit)): a low surrogate must follow a high one (\\uD800 to \\uDBFF)", offset: start)
            default:
                break
            }
        default:
            let what = found(at: index + 1)
            throw fail("an escape JSON does not have, '\\' then \(what): it has \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
    }

    /// The code unit of the `\uXXXX` at `index`; moves past it.
    private mutating func hexEscape() throws(Failure) -> UInt32 {
        var unit: UInt32 = 0
        for position in (index + 2)..<(index + 6) {
            guard position < text.count, let digit = Self.hexDigit(text[position]) else {
                throw fail("\\u needs four hexadecimal digits")
            }
            unit = unit << 4 | digit
        }
        index += 6
        return unit
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The scalar whose UTF-8 starts at `position`, and its length; `nil` for bytes that are not
    /// well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
    private func scalar(at position: Int) -> (Unicode.Scalar, Int)? {
        let first = text[position]
        let length: Int
        var value: UInt32
        let lowest: UInt32
        switch first {
        case 0..<0x80: return (Unicode.Scalar(first), 1)
        case 0xC2...0xDF: (length, value, lowest) = (2, UInt32(first & 0x1F), 0x80)
        case 0xE0...0xEF: (length, value, lowest) = (3, UInt32(first & 0x0F), 0x800)
        case 0xF0...0xF4: (length, value, lowest) = (4, UInt32(first & 0x07), 0x10000)
        default: return nil
        }
        guard position + length <= text.count else { return nil }
        for offset in 1..<length {
            let byte = text[position + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= lowest, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
