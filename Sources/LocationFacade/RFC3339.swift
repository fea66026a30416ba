import Foundation

/// Reading and writing RFC 3339 timestamps (`2024-05-01T10:00:00.250Z`, `2019-08-12T23:45:00+01:15`)
/// without Foundation's date formatters, which are slow and locale-dependent.
///
/// Reading accepts any number of fractional digits and any UTC offset, and keeps the offset for
/// display; a timestamp without a zone is taken as UTC and says so (`utcOffset == nil`).
/// Writing always produces UTC with a `Z`.
public enum RFC3339 {
    /// A parsed timestamp: the instant, and the offset it was written with.
    public struct Timestamp: Sendable, Hashable {
        /// The instant, in UTC.
        public var date: Date
        /// The offset from UTC the text carried, in seconds east (`+01:15` is 4500); `nil` when the
        /// text had no zone designator, in which case `date` read it as UTC.
        public var utcOffset: Int?

        public init(date: Date, utcOffset: Int?) {
            self.date = date
            self.utcOffset = utcOffset
        }
    }

    /// Parses `text`, or returns `nil` when it is not an RFC 3339 date-time (or one of its common
    /// relaxations: a space for `T`, lowercase `t`/`z`, `+hhmm`, no zone at all).
    ///
    /// ```swift
    /// RFC3339.parse("2019-08-12T23:45:00+01:15")?.date   // 2019-08-12 22:30:00 UTC
    /// ```
    public static func parse(_ text: some StringProtocol) -> Timestamp? {
        var text = String(text)
        return text.withUTF8 { parse(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Parses UTF-8 bytes; see ``parse(_:)``. Leading and trailing ASCII white space is ignored.
    public static func parse(utf8 bytes: UnsafeRawBufferPointer) -> Timestamp? {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        var cursor = Cursor(bytes: bytes, index: start, end: end)

        guard let year = cursor.digits(4), cursor.take(UInt8(ascii: "-")),
              let month = cursor.digits(2), cursor.take(UInt8(ascii: "-")),
              let day = cursor.digits(2)
        else { return nil }
        guard let separator = cursor.next(),
              separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ")
        else { return nil }
        guard let hour = cursor.digits(2), cursor.take(UInt8(ascii: ":")),
              let minute = cursor.digits(2), cursor.take(UInt8(ascii: ":")),
              let second = cursor.digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var fraction = 0.0
        if cursor.take(UInt8(ascii: ".")) || cursor.take(UInt8(ascii: ",")) {
            var scale = 0.1
            var count = 0
            while let digit = cursor.peekDigit() {
                cursor.index += 1
                fraction += Double(digit) * scale
                scale *= 0.1
                count += 1
            }
            guard count > 0 else { return nil }
        }

        var offset: Int? = nil
        if let designator = cursor.next() {
            switch designator {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                offset = 0
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard let hours = cursor.digits(2), hours <= 23 else { return nil }
                _ = cursor.take(UInt8(ascii: ":"))
                let minutes = cursor.digits(2) ?? 0
                guard minutes <= 59 else { return nil }
                let magnitude = hours * 3600 + minutes * 60
                offset = designator == UInt8(ascii: "+") ? magnitude : -magnitude
            default:
                return nil
            }
        }
        guard cursor.index == cursor.end else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - (offset ?? 0)
        return Timestamp(date: Date(timeIntervalSince1970: Double(seconds) + fraction), utcOffset: offset)
    }

    /// Writes `date` as UTC with `fractionDigits` digits after the seconds (0 to 9), rounded.
    ///
    /// ```swift
    /// RFC3339.string(from: Date(timeIntervalSince1970: 0.25))   // "1970-01-01T00:00:00.250Z"
    /// ```
    public static func string(from date: Date, fractionDigits: Int = 3) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        append(date, fractionDigits: fractionDigits, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `date` as UTF-8 to `buffer`; see ``string(from:fractionDigits:)``.
    public static func append(_ date: Date, fractionDigits: Int = 3, to buffer: inout [UInt8]) {
        let digits = max(0, min(9, fractionDigits))
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let units = (date.timeIntervalSince1970 * Double(scale)).rounded()
        let total = Int(units)
        var seconds = total / scale
        var fraction = total % scale
        if fraction < 0 {
            fraction += scale
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        appendDigits(year, count: 4, to: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &buffer)
        buffer.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, count: 2, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 3600 / 60, count: 2, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, count: 2, to: &buffer)
        if digits > 0 {
            buffer.append(UInt8(ascii: "."))
            appendDigits(fraction, count: digits, to: &buffer)
        }
        buffer.append(UInt8(ascii: "Z"))
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after H. Hinnant's days_from_civil)

    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func appendDigits(_ value: Int, count: Int, to buffer: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(1, count) { divisor *= 10 }
        var value = value
        if value >= divisor * 10 {  // a year past 9999: write it whole
            for character in String(value).utf8 { buffer.append(character) }
            return
        }
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(value / divisor))
            value %= divisor
            divisor /= 10
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var index: Int
        let end: Int

        mutating func next() -> UInt8? {
            guard index < end else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < end, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        func peekDigit() -> Int? {
            guard index < end else { return nil }
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            return Int(byte - UInt8(ascii: "0"))
        }

        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = peekDigit() else { return nil }
                value = value * 10 + digit
                index += 1
            }
            return value
        }
    }
}
