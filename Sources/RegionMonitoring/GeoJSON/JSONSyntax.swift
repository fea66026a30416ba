/// Where JSON text stops being JSON, for a message that names the line and column: `JSONDecoder`
/// (FoundationEssentials) says only that the data is not valid JSON. Used only once the decoder
/// has refused the text.
struct JSONSyntax {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// The first error in `bytes`: its line and column (from 1) and what was expected there; `nil`
    /// if the text is one JSON value.
    static func firstError(in bytes: [UInt8]) -> (line: Int, column: Int, reason: String)? {
        var scanner = JSONSyntax(bytes: bytes)
        let problem: String?
        do {
            try scanner.value()
            scanner.skipSpace()
            problem = scanner.index < bytes.count ? "unexpected text after the end of the JSON value" : nil
        } catch {
            problem = error.reason
        }
        guard let problem else { return nil }
        let upTo = bytes[..<min(scanner.index, bytes.count)]
        let line = upTo.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let lineStart = upTo.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        return (line, scanner.index - lineStart + 1, problem)
    }

    private struct Problem: Error {
        var reason: String
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func found() -> String {
        guard index < bytes.count else { return "the end of the text" }
        let byte = bytes[index]
        return byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(byte)"
    }

    private mutating func value() throws(Problem) {
        skipSpace()
        guard index < bytes.count else { throw Problem(reason: "expected a value, found the end of the text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try container(close: UInt8(ascii: "}"), members: true)
        case UInt8(ascii: "["): try container(close: UInt8(ascii: "]"), members: false)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): number()
        default: throw Problem(reason: "expected a value, found \(found())")
        }
    }

    private mutating func container(close: UInt8, members: Bool) throws(Problem) {
        depth += 1
        guard depth < 512 else { throw Problem(reason: "nested too deep") }
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == close {
            index += 1
            depth -= 1
            return
        }
        while true {
            if members {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Problem(reason: "expected a member name in quotes, found \(found())") }
                try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Problem(reason: "expected ':' after a member name, found \(found())") }
                index += 1
            }
            try value()
            skipSpace()
            guard index < bytes.count else { throw Problem(reason: "expected ',' or '\(Character(Unicode.Scalar(close)))', found the end of the text") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == close else { throw Problem(reason: "expected ',' or '\(Character(Unicode.Scalar(close)))', found \(found())") }
            index += 1
            depth -= 1
            return
        }
    }

    private mutating func string() throws(Problem) {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"): index += 2
            case 0..<0x20: throw Problem(reason: "a control character inside a string")
            default: index += 1
            }
        }
        throw Problem(reason: "a string is not closed")
    }

    private mutating func literal(_ word: String) throws(Problem) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw Problem(reason: "expected a value, found \(found())")
        }
        index += expected.count
    }

    private mutating func number() {
        while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
    }
}
