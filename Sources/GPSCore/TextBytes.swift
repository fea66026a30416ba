#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Numbers and text as the package writes them: UTF-8 bytes appended to a buffer, without
// Foundation's formatters (slow, and locale-dependent).

/// Writing numbers, XML and JSON text as UTF-8 bytes: the one escaper of each kind, used by the
/// GPX writer, the exports, the SVG plot, the fake gpsd and the command line.
package enum TextBytes {
    /// Appends `value` in the shortest decimal form that reads back as the same `Double`, in plain
    /// notation (never `1e-05`: GPX's `xsd:decimal` has no exponent), without a trailing `.0`.
    /// `-0` is written `0`. The value must be finite.
    package static func appendShortest(_ value: Double, to bytes: inout [UInt8]) {
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

    /// Appends `value` rounded to `decimals` places (0 to 9), as `%.Nf` would, but without a
    /// locale; with `trimmingZeros`, trailing zeros after the point (and a bare point) are left
    /// out: for drawing coordinates and labels, where a tenth of a pixel is plenty. A value that is
    /// not finite, or of 1e12 or more, is written as `0`.
    package static func appendFixed(_ value: Double, decimals: Int, trimmingZeros: Bool = true, to bytes: inout [UInt8]) {
        let decimals = max(0, min(9, decimals))
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        guard value.isFinite, abs(value) < 1e12 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        // Rounded as printf rounds: the exact binary value to the nearest, ties to even. A plain
        // `(value * scale).rounded()` rounds the product, which can cross a tie (293.325 -> 293.33).
        let magnitude = abs(value)
        var whole = (magnitude * Double(scale)).rounded(.down)
        var remainder = fma(magnitude, Double(scale), -whole)
        if remainder < 0 {
            whole -= 1
            remainder += 1
        } else if remainder >= 1 {
            whole += 1
            remainder -= 1
        }
        if remainder > 0.5 || (remainder == 0.5 && whole.truncatingRemainder(dividingBy: 2) != 0) { whole += 1 }
        let units = Int(whole)
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.append(contentsOf: String(units / scale).utf8)
        var fraction = units % scale
        var width = decimals
        if trimmingZeros {
            guard fraction > 0 else { return }
            while fraction % 10 == 0 { fraction /= 10; width -= 1 }
        }
        guard width > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        let text = String(fraction)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    /// `value` in decimal, padded with leading zeros to `width` digits, as `%0Nd` writes it.
    package static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value.magnitude)
        let zeros = String(repeating: "0", count: max(0, width - digits.count - (value < 0 ? 1 : 0)))
        return (value < 0 ? "-" : "") + zeros + digits
    }

    /// `value` in upper-case hexadecimal, padded with leading zeros to `width` digits, as `%0NX` writes it.
    package static func hex(_ value: some BinaryInteger, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `value` rounded to `decimals` places with its trailing zeros, as `%.Nf` writes it.
    package static func fixed(_ value: Double, decimals: Int) -> String {
        var bytes: [UInt8] = []
        appendFixed(value, decimals: decimals, trimmingZeros: false, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` escaped for XML element content, or for an attribute value in double quotes
    /// when `attribute` is true: the one XML escaper of the package.
    ///
    /// `&`, `<` and `>` become entities, and `"` in an attribute. Tab, line feed and carriage return
    /// are written as character references where a parser would otherwise change them (all three
    /// in an attribute, where they are normalised to spaces; a carriage return anywhere, which
    /// would become a line feed). Characters XML 1.0 cannot carry at all (the other control
    /// characters, U+FFFE and U+FFFF) are left out.
    package static func appendXML(_ text: String, attribute: Bool = false, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendXML(utf8: $0, attribute: attribute, to: &bytes) }
    }

    /// Appends UTF-8 `text` escaped for XML; see ``appendXML(_:attribute:to:)``.
    package static func appendXML(utf8 text: UnsafeBufferPointer<UInt8>, attribute: Bool = false, to bytes: inout [UInt8]) {
        var index = 0
        let count = text.count
        bytes.reserveCapacity(bytes.count + count)
        while index < count {
            let byte = text[index]
            switch byte {
            case UInt8(ascii: "&"): append("&amp;", to: &bytes)
            case UInt8(ascii: "<"): append("&lt;", to: &bytes)
            case UInt8(ascii: ">"): append("&gt;", to: &bytes)
            case UInt8(ascii: "\""): if attribute { append("&quot;", to: &bytes) } else { bytes.append(byte) }
            case 0x09: if attribute { append("&#9;", to: &bytes) } else { bytes.append(byte) }
            case 0x0A: if attribute { append("&#10;", to: &bytes) } else { bytes.append(byte) }
            case 0x0D: append("&#13;", to: &bytes)
            case 0..<0x20: break  // not a character XML 1.0 can hold
            case 0xEF where index + 2 < count && text[index + 1] == 0xBF && (text[index + 2] == 0xBE || text[index + 2] == 0xBF):
                index += 2  // U+FFFE, U+FFFF: not characters either
            default: bytes.append(byte)
            }
            index += 1
        }
    }

    /// Appends `text` as a JSON string, quotes included (RFC 8259: `"`, `\` and control characters escaped).
    package static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Most strings (device paths, modes) need no escape: one append instead of one per byte.
            guard utf8.contains(where: needsJSONEscape) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
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
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether `byte` must be escaped in a JSON string: `"`, `\` and the control characters.
    package static func needsJSONEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Appends a JSON number, or `null` when `value` is `nil` or not finite.
    package static func appendJSONNumber(_ value: Double?, to bytes: inout [UInt8]) {
        if let value, value.isFinite {
            appendShortest(value, to: &bytes)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    /// Appends a string literal's UTF-8.
    @inline(__always)
    package static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
