/// Byte-level scanning of JSON text without decoding it: the one JSON scanner of the package.
///
/// - `syntaxError(in:)` checks a whole text against RFC 8259,
///   strictly, and says what is wrong and where: for files a user gives (GeoJSON), before they
///   are decoded.
/// - The rest are quick passes over text whose parsing is someone else's: the shape of every
///   gpsd report before libgps parses it (one complete object, as ``scanObject(_:)`` finds in the
///   one walk a line gets), finding members, and cutting commands and objects out of a stream.
///   Strings, with their `\"` and `\\` escapes, are skipped whole, so brackets and quotes
///   inside them never count.
package enum JSONScan {
    /// Why `text` is not one complete JSON object, or `nil` if it is one: it must start with `{`,
    /// end with `}`, close every string, and balance its braces and brackets. Surrounding ASCII
    /// white space is allowed.
    package static func shapeProblem(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        switch scanObject(text) {
        case .object: nil
        case let .malformed(problem): problem
        }
    }

    /// What one pass over a line found: one complete JSON object, or why it is not one.
    package enum ObjectScan: Equatable {
        /// One complete JSON object. `firstSpace` is the index of the first white space byte
        /// outside its strings (around the object or between its tokens), where ``compact(_:from:)``
        /// has work to do; `nil` when the text is already compact, as gpsd writes it.
        case object(firstSpace: Int?)
        /// Not one complete JSON object; the reason reads as ``shapeProblem(_:)``'s.
        case malformed(String)
    }

    /// Checks that `text` is one complete JSON object, as ``shapeProblem(_:)`` does, and in the
    /// same pass finds where its first white space outside strings is: the one walk over a line
    /// that a reader needs before handing it to a parser which wants it compact.
    package static func scanObject(_ text: UnsafeBufferPointer<UInt8>) -> ObjectScan {
        var start = 0
        var end = text.count
        while start < end, isSpace(text[start]) { start += 1 }
        while end > start, isSpace(text[end - 1]) { end -= 1 }
        guard start < end else { return .malformed("an empty line") }
        guard text[start] == UInt8(ascii: "{") else { return .malformed("not a JSON object") }
        switch scanValue(text, from: start, to: end) {
        case let .complete(valueEnd, firstSpaceInside):
            guard valueEnd == end else { return .malformed("text after the end of the object") }
            if start > 0 { return .object(firstSpace: 0) }
            return .object(firstSpace: firstSpaceInside ?? (end < text.count ? end : nil))
        case .unbalanced:
            return .malformed("unbalanced brackets")
        case .unterminatedString:
            return .malformed("an unterminated string")
        case .incomplete:
            return .malformed("a truncated object")
        }
    }

    /// Where the object or array starting at `start` (a `{` or `[`) ends: the index just after its
    /// closing bracket, or `nil` when `text` ends first or the brackets do not match.
    package static func endOfValue(in text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        if case let .complete(end, _) = scanValue(text, from: start, to: text.count) { return end }
        return nil
    }

    /// The byte ranges of the objects in the array member `name` (such as `tpv` in gpsd's POLL report).
    package static func objectsInArray(named name: String, of text: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        guard var index = valueStart(ofMember: name, in: text), index < text.count, text[index] == UInt8(ascii: "[")
        else { return [] }
        index += 1
        var ranges: [Range<Int>] = []
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "]") { break }
            if byte == UInt8(ascii: "{") {
                guard let end = endOfValue(in: text, from: index) else { break }
                ranges.append(index..<end)
                index = end
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "\"") {
                guard let end = byte == UInt8(ascii: "\"") ? endOfString(in: text, from: index) : endOfValue(in: text, from: index)
                else { break }
                index = end
            } else {
                index += 1
            }
        }
        return ranges
    }

    /// Where the value of the first member called `name` begins (after `"name"`, the colon and any
    /// white space), or `nil` when there is none. Only keys count: a `"name"` inside a string value
    /// does not.
    package static func valueStart(ofMember name: String, in text: UnsafeBufferPointer<UInt8>) -> Int? {
        var name = name
        return name.withUTF8 { name in
            var from = 0
            while let found = firstIndex(of: name, in: text, from: from) {
                from = found + 1
                // The name must be a whole string, `"name"`, in a key's place and followed by a colon.
                guard found > 0, text[found - 1] == UInt8(ascii: "\""),
                      found + name.count < text.count, text[found + name.count] == UInt8(ascii: "\""),
                      isKeyPosition(found - 1, in: text)
                else { continue }
                var index = found + name.count + 1
                while index < text.count, isSpace(text[index]) { index += 1 }
                guard index < text.count, text[index] == UInt8(ascii: ":") else { continue }
                index += 1
                while index < text.count, isSpace(text[index]) { index += 1 }
                return index
            }
            return nil
        }
    }

    /// The raw contents (escapes left as written) of the first string member called `name`, or
    /// `nil` when there is none or its value is not a string.
    package static func stringMember(named name: String, in text: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let start = valueStart(ofMember: name, in: text), start < text.count, text[start] == UInt8(ascii: "\""),
              let end = endOfString(in: text, from: start)
        else { return nil }
        return (start + 1)..<(end - 1)
    }

    /// Whether `text` has a member called `name`.
    package static func hasMember(_ name: String, in text: UnsafeBufferPointer<UInt8>) -> Bool {
        valueStart(ofMember: name, in: text) != nil
    }

    /// The index just after the string that starts (with its opening quote) at `start`, or `nil`
    /// when it is not terminated.
    package static func endOfString(in text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start + 1
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The first position of `pattern` in `text` at or after `from`.
    package static func firstIndex(of pattern: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard !pattern.isEmpty, pattern.count <= text.count else { return nil }
        let first = pattern[0]
        var index = from
        let last = text.count - pattern.count
        while index <= last {
            if text[index] == first {
                var matched = 1
                while matched < pattern.count, text[index + matched] == pattern[matched] { matched += 1 }
                if matched == pattern.count { return index }
            }
            index += 1
        }
        return nil
    }

    /// The first `maximum` characters of `text`, control characters shown as `?`, for error messages.
    package static func excerpt(_ text: UnsafeBufferPointer<UInt8>, maximum: Int = 80) -> String {
        let shown = String(decoding: UnsafeBufferPointer(rebasing: text[0..<min(text.count, maximum)]), as: UTF8.self)
        let printable = shown.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) }
        return String(printable) + (text.count > maximum ? "..." : "")
    }

    // MARK: - The scanner

    private enum ScanResult {
        /// The value ends just before `end`; `firstSpace` is its first white space outside strings.
        case complete(end: Int, firstSpace: Int?)
        case unbalanced
        case unterminatedString
        case incomplete
    }

    /// Scans the value starting at `start` (a bracket) up to `end`. Most bytes are neither quotes,
    /// backslashes, brackets nor white space, so a table lookup settles each of them with one load
    /// and one branch. The table is read through a buffer pointer: it has an entry for every byte,
    /// and an array's bounds check would add two instructions to each of them.
    private static func scanValue(_ text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> ScanResult {
        byteKinds.withUnsafeBufferPointer { kinds in
            var depth = 0
            var inString = false
            var firstSpace: Int?
            var index = start
            let base = text.baseAddress!
            while index < end {
                let kind = kinds[Int(base[index])]
                if kind != 0 {
                    if inString {
                        if kind == backslash {
                            index += 1
                        } else if kind == quote {
                            inString = false
                        }
                    } else if kind == quote {
                        inString = true
                    } else if kind == opening {
                        depth += 1
                    } else if kind == closing {
                        depth -= 1
                        if depth == 0 { return .complete(end: index + 1, firstSpace: firstSpace) }
                        if depth < 0 { return .unbalanced }
                    } else if kind == space, firstSpace == nil {
                        firstSpace = index
                    }
                }
                index &+= 1  // below `end`, so it cannot overflow
            }
            return inString ? .unterminatedString : .incomplete
        }
    }

    /// Whether the string starting at `index` is in a key's place: after `{` or `,` (and white space).
    private static func isKeyPosition(_ index: Int, in text: UnsafeBufferPointer<UInt8>) -> Bool {
        var before = index - 1
        while before >= 0, isSpace(text[before]) { before -= 1 }
        return before >= 0 && (text[before] == UInt8(ascii: "{") || text[before] == UInt8(ascii: ","))
    }

    private static let quote: UInt8 = 1
    private static let backslash: UInt8 = 2
    private static let opening: UInt8 = 3
    private static let closing: UInt8 = 4
    private static let space: UInt8 = 5
    private static let byteKinds: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "\""): quote
        case UInt8(ascii: "\\"): backslash
        case UInt8(ascii: "{"), UInt8(ascii: "["): opening
        case UInt8(ascii: "}"), UInt8(ascii: "]"): closing
        case UInt8(ascii: " "), 0x09, 0x0A, 0x0D: space  // isSpace(_:)'s bytes
        default: 0
        }
    }

    /// Removes the white space between JSON tokens of `text` in place (strings are kept as they
    /// are, escapes included) and returns the new length: what a parser that expects gpsd's own
    /// compact output (libgps's) can read.
    ///
    /// `start` is where to begin, which must be outside any string: the bytes before it are left
    /// alone. ``scanObject(_:)`` gives the first white space, so text without any is not rewritten.
    package static func compact(_ text: UnsafeMutableBufferPointer<UInt8>, from start: Int = 0) -> Int {
        var write = start
        var read = start
        var inString = false
        while read < text.count {
            let byte = text[read]
            if inString {
                if byte == UInt8(ascii: "\\"), read + 1 < text.count {
                    text[write] = byte
                    text[write + 1] = text[read + 1]
                    write += 2
                    read += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if isSpace(byte) {
                read += 1
                continue
            }
            text[write] = byte
            write += 1
            read += 1
        }
        return write
    }

    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
