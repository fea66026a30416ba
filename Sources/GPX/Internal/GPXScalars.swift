#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

// Numbers and times parsed straight from the UTF-8 bytes libxml2 hands over, without making a
// String first: this is the reader's hot path (every coordinate, elevation, time and extension
// value of every point goes through here).

enum GPXScalars {
    /// Exact powers of ten as Doubles (10^0 ... 10^22 are all exactly representable).
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `bytes` without leading and trailing XML white space.
    @inline(__always)
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// A decimal number (`-12.5`, `.5`, `3.`, `1e-3`, surrounding white space allowed), or `nil`.
    /// Never NaN or infinite. Up to 15 significant digits with a small exponent take Clinger's
    /// exact fast path (one correctly rounded multiplication or division); anything longer goes to
    /// the standard library's correctly rounded parser.
    static func double(_ raw: UnsafeBufferPointer<UInt8>) -> Double? {
        let bytes = trimmed(raw)
        let count = bytes.count
        guard count > 0, count < 400 else { return nil }
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var exponent = 0
        var digits = 0
        while index < count, bytes[index] &- 0x30 < 10 {
            if mantissa != 0 || bytes[index] != 0x30 { significant += 1 }
            if significant <= 19 { mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- 0x30) } else { exponent += 1 }
            digits += 1
            index += 1
        }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < count, bytes[index] &- 0x30 < 10 {
                if mantissa != 0 || bytes[index] != 0x30 { significant += 1 }
                if significant <= 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- 0x30)
                    exponent -= 1
                }
                digits += 1
                index += 1
            }
        }
        guard digits > 0 else { return nil }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var written = 0
            var exponentDigits = 0
            while index < count, bytes[index] &- 0x30 < 10 {
                if written < 100_000 { written = written * 10 + Int(bytes[index] &- 0x30) }
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard index == count else { return nil }
        if significant <= 15, exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
            return negative ? -value : value
        }
        // Rare: many digits or a large exponent. The syntax is already checked.
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// A non-negative or negative decimal integer, surrounding white space allowed, or `nil`.
    static func integer(_ raw: UnsafeBufferPointer<UInt8>) -> Int? {
        let bytes = trimmed(raw)
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        var value = 0
        while index < bytes.count {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
            index += 1
        }
        return negative ? -value : value
    }

    /// An RFC 3339 date-time as GPX writes it (``RFC3339/parse(utf8:)``), surrounding white space allowed.
    @inline(__always)
    static func time(_ raw: UnsafeBufferPointer<UInt8>) -> GPXTime? {
        RFC3339.parse(utf8: UnsafeRawBufferPointer(raw))
    }
}
