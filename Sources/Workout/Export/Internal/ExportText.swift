// Numbers and text as exports write them: UTF-8 bytes appended to a buffer, without Foundation's
// formatters (slow, and locale-dependent).

enum ExportText {
    /// Appends `value` in the shortest decimal form that reads back as the same `Double`, in plain
    /// notation (never `1e-05`: GPX's `xsd:decimal` has no exponent), without a trailing `.0`.
    /// `-0` is written `0`. The value must be finite.
    static func appendShortest(_ value: Double, to bytes: inout [UInt8]) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        // Swift's description is the shortest digit string that round-trips (SwiftDtoa).
        let text = value.description
        let utf8 = Array(text.utf8)
        guard let e = utf8.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
            let end = utf8.count >= 2 && utf8[utf8.count - 2] == UInt8(ascii: ".") && utf8[utf8.count - 1] == UInt8(ascii: "0")
                ? utf8.count - 2 : utf8.count
            bytes.append(contentsOf: utf8[..<end])
            return
        }
        let exponent = Int(String(decoding: utf8[(e + 1)...], as: UTF8.self)) ?? 0
        var mantissa = utf8[..<e]
        if mantissa.first == UInt8(ascii: "-") {
            bytes.append(UInt8(ascii: "-"))
            mantissa = mantissa.dropFirst()
        }
        let point = mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.endIndex
        let integerDigits = mantissa[..<point]
        var digits = Array(integerDigits)
        if point < mantissa.endIndex { digits += mantissa[(point + 1)...] }
        while digits.count > 1, digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let position = integerDigits.count + exponent  // digits before the decimal point
        if position <= 0 {
            bytes.append(contentsOf: [UInt8(ascii: "0"), UInt8(ascii: ".")])
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -position))
            bytes.append(contentsOf: digits)
        } else if position >= digits.count {
            bytes.append(contentsOf: digits)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: position - digits.count))
        } else {
            bytes.append(contentsOf: digits[..<position])
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: digits[position...])
        }
    }

    /// Appends `value` rounded to `decimals` places (0 to 6), without trailing zeros after the
    /// point: for drawing coordinates and labels, where a tenth of a pixel is plenty.
    static func appendFixed(_ value: Double, decimals: Int, to bytes: inout [UInt8]) {
        var scale = 1
        for _ in 0..<max(0, min(6, decimals)) { scale *= 10 }
        guard value.isFinite, abs(value) < 1e12 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var units = Int((value * Double(scale)).rounded())
        if units < 0 {
            bytes.append(UInt8(ascii: "-"))
            units = -units
        }
        bytes.append(contentsOf: String(units / scale).utf8)
        var fraction = units % scale
        guard fraction > 0 else { return }
        var width = 0
        var divisor = scale
        while divisor > 1 { divisor /= 10; width += 1 }
        while fraction % 10 == 0 { fraction /= 10; width -= 1 }
        bytes.append(UInt8(ascii: "."))
        let text = String(fraction)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends `text` escaped for XML element content, or for an attribute value in double quotes
    /// when `attribute` is true. Characters XML 1.0 cannot carry at all (most control characters)
    /// are left out.
    static func appendXML(_ text: String, attribute: Bool = false, to bytes: inout [UInt8]) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": bytes.append(contentsOf: "&amp;".utf8)
            case "<": bytes.append(contentsOf: "&lt;".utf8)
            case ">": bytes.append(contentsOf: "&gt;".utf8)
            case "\"" where attribute: bytes.append(contentsOf: "&quot;".utf8)
            case "\t", "\n", "\r":
                if attribute {
                    bytes.append(contentsOf: "&#\(scalar.value);".utf8)  // kept through attribute normalisation
                } else {
                    bytes.append(UInt8(scalar.value))
                }
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
    }

    /// Appends `text` as a JSON string, quotes included (RFC 8259: `"`, `\` and control characters escaped).
    static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a JSON number, or `null` when `value` is `nil` or not finite.
    static func appendJSONNumber(_ value: Double?, to bytes: inout [UInt8]) {
        if let value, value.isFinite {
            appendShortest(value, to: &bytes)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    /// Appends a string literal's UTF-8.
    @inline(__always)
    static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
