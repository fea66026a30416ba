import Foundation

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

    /// An RFC 3339 / ISO 8601 date-time as GPX writes it: `YYYY-MM-DDThh:mm:ss`, then any number
    /// of fractional digits, then `Z`, an offset (`+01:15`, `-0330`, `+01`) or nothing (read as
    /// UTC, with `utcOffset` nil). `T` may also be `t` or a space. Surrounding white space allowed.
    ///
    /// The instant is computed from whole seconds since 1970 (exact integer arithmetic over the
    /// proleptic Gregorian calendar, so years such as 1234 and 4096 work) plus the fraction, kept
    /// to the nanosecond, in one rounding: times round-trip to well under a millisecond.
    static func time(_ raw: UnsafeBufferPointer<UInt8>) -> GPXTime? {
        let bytes = trimmed(raw)
        let count = bytes.count
        var index = 0

        @inline(__always) func digits(_ length: Int) -> Int? {
            guard index + length <= count else { return nil }
            var value = 0
            for offset in 0..<length {
                let digit = bytes[index + offset] &- 0x30
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            index += length
            return value
        }
        @inline(__always) func expect(_ byte: UInt8) -> Bool {
            guard index < count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
            let day = digits(2)
        else { return nil }
        guard index < count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t")
            || bytes[index] == UInt8(ascii: " ")
        else { return nil }
        index += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour <= 23,
            minute <= 59, second <= 60
        else { return nil }

        var nanoseconds = 0
        if index < count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
            index += 1
            var fractionDigits = 0
            while index < count, bytes[index] &- 0x30 < 10 {
                if fractionDigits < 9 { nanoseconds = nanoseconds * 10 + Int(bytes[index] &- 0x30) }
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { return nil }
            for _ in min(fractionDigits, 9)..<9 { nanoseconds *= 10 }
        }

        var offset: Int?
        if index < count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
                offset = 0
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = digits(2), hours <= 23 else { return nil }
                var minutes = 0
                if index < count {
                    _ = expect(UInt8(ascii: ":"))
                    guard let written = digits(2), written <= 59 else { return nil }
                    minutes = written
                }
                offset = sign * (hours * 3600 + minutes * 60)
            default:
                return nil
            }
        }
        guard index == count else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - (offset ?? 0)
        // Date counts from 2001-01-01; subtracting in integers keeps the whole seconds exact.
        let sinceReference = Double(seconds - 978_307_200) + Double(nanoseconds) / 1e9
        return GPXTime(date: Date(timeIntervalSinceReferenceDate: sinceReference), utcOffset: offset)
    }

    static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`), exact for any year.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
