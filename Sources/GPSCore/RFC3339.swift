#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and writing RFC 3339 timestamps (`2024-05-01T10:00:00.250Z`, `2019-08-12T23:45:00+01:15`)
/// without Foundation's date formatters, which are slow and locale-dependent. The one parser of the
/// package: gpsd reports, GPX files and the command line all go through it.
///
/// Reading accepts any number of fractional digits (kept to the nanosecond) and any UTC offset, and
/// keeps the offset for display; a timestamp without a zone is taken as UTC and says so
/// (`utcOffset == nil`). Writing always produces UTC with a `Z`.
public enum RFC3339 {
    /// The times the package keeps, decided once: every time RFC 3339 can write in UTC but those
    /// of the year 0000 (1 BC): from 0001-01-01T00:00:00Z to the end of 9999. The GPX reader
    /// refuses a time outside it (the year 0000, or an offset that carries it past 9999) as an
    /// invalid value, with its line, and the workout store refuses to save one, so the two never
    /// disagree. (The store used to stop at Foundation's `Date.distantFuture`, the year 4001.)
    public static let supportedRange: ClosedRange<Date> =
        Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_402_300_799.999_999)

    /// ``supportedRange`` in words, for messages.
    public static let supportedRangeDescription = "the years 1 to 9999"

    /// A parsed timestamp: the instant, and the offset it was written with
    /// (`2024-05-01T09:15:00+01:15` is `08:00:00Z` with an offset of 4,500 s).
    public struct Timestamp: Sendable, Hashable, Comparable {
        /// The instant, in UTC.
        public var date: Date
        /// The offset from UTC the text carried, in seconds east (`+01:15` is 4500, `Z` is 0); `nil`
        /// when the text had no zone designator, in which case `date` read it as UTC.
        public var utcOffset: Int?

        public init(date: Date, utcOffset: Int? = 0) {
            self.date = date
            self.utcOffset = utcOffset
        }

        /// Ordered by instant, whatever the offsets.
        public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
            lhs.date < rhs.date
        }
    }

    /// Parses `text`, or returns `nil` when it is not an RFC 3339 date-time (or one of its common
    /// relaxations: a space for `T`, lowercase `t`/`z`, `+hhmm`, `+hh`, no zone at all).
    ///
    /// ```swift
    /// RFC3339.parse("2019-08-12T23:45:00+01:15")?.date   // 2019-08-12 22:30:00 UTC
    /// ```
    public static func parse(_ text: some StringProtocol) -> Timestamp? {
        var text = String(text)
        return text.withUTF8 { parse(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Parses UTF-8 bytes; see ``parse(_:)``. Leading and trailing ASCII white space is ignored.
    ///
    /// The instant is computed from whole seconds since 1970 (exact integer arithmetic over the
    /// proleptic Gregorian calendar) plus the fraction kept to the nanosecond, in one rounding:
    /// times round-trip to well under a millisecond.
    public static func parse(utf8 raw: UnsafeRawBufferPointer) -> Timestamp? {
        var start = 0
        var end = raw.count
        while start < end, isSpace(raw[start]) { start += 1 }
        while end > start, isSpace(raw[end - 1]) { end -= 1 }
        var index = start

        @inline(__always) func digits(_ length: Int) -> Int? {
            guard index + length <= end else { return nil }
            var value = 0
            for offset in 0..<length {
                let digit = raw[index + offset] &- 0x30
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            index += length
            return value
        }
        @inline(__always) func expect(_ byte: UInt8) -> Bool {
            guard index < end, raw[index] == byte else { return false }
            index += 1
            return true
        }

        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
              let day = digits(2)
        else { return nil }
        guard index < end, raw[index] == UInt8(ascii: "T") || raw[index] == UInt8(ascii: "t") || raw[index] == UInt8(ascii: " ")
        else { return nil }
        index += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
              let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour <= 23,
              minute <= 59, second <= 60
        else { return nil }

        var nanoseconds = 0
        if index < end, raw[index] == UInt8(ascii: ".") || raw[index] == UInt8(ascii: ",") {
            index += 1
            var fractionDigits = 0
            while index < end, raw[index] &- 0x30 < 10 {
                if fractionDigits < 9 { nanoseconds = nanoseconds * 10 + Int(raw[index] &- 0x30) }
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { return nil }
            for _ in min(fractionDigits, 9)..<9 { nanoseconds *= 10 }
        }

        var offset: Int?
        if index < end {
            switch raw[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
                offset = 0
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = raw[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = digits(2), hours <= 23 else { return nil }
                var minutes = 0
                if index < end {
                    _ = expect(UInt8(ascii: ":"))
                    guard let written = digits(2), written <= 59 else { return nil }
                    minutes = written
                }
                offset = sign * (hours * 3600 + minutes * 60)
            default:
                return nil
            }
        }
        guard index == end else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - (offset ?? 0)
        // Date counts from 2001-01-01; subtracting in integers keeps the whole seconds exact.
        let sinceReference = Double(seconds - 978_307_200) + Double(nanoseconds) / 1e9
        return Timestamp(date: Date(timeIntervalSinceReferenceDate: sinceReference), utcOffset: offset)
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
        withText(of: date, fractionDigits: fractionDigits) { buffer.append(contentsOf: $0) }
    }

    /// Calls `body` with `date` written as ``string(from:fractionDigits:)`` writes it, in a buffer
    /// on the stack: for a writer that puts the text somewhere other than an array. (Not generic:
    /// called from another module, a generic one paid for looking up its result type's metadata.)
    package static func withText(
        of date: Date, fractionDigits: Int = 3, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
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
        // Written on the stack and handed over at once: appended to an array byte by byte, each
        // of the 24 bytes paid for a check of the array's uniqueness and capacity. 48 bytes hold
        // `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` with any year an Int can hold.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { text in
            var end = 0
            func put(_ value: Int, _ count: Int) {
                end = writeDigits(value, count: count, into: text, at: end)
            }
            func put(_ byte: Unicode.Scalar) {
                text[end] = UInt8(ascii: byte)
                end += 1
            }
            put(year, 4)
            put("-")
            put(month, 2)
            put("-")
            put(day, 2)
            put("T")
            put(secondOfDay / 3600, 2)
            put(":")
            put(secondOfDay % 3600 / 60, 2)
            put(":")
            put(secondOfDay % 60, 2)
            if digits > 0 {
                put(".")
                put(fraction, digits)
            }
            put("Z")
            body(UnsafeBufferPointer(rebasing: text[..<end]))
        }
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after H. Hinnant's days_from_civil)

    /// Days from 1970-01-01 to the given proleptic Gregorian date, exact for any year.
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
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

    package static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Writes `value` (not negative) with at least `count` digits, zero-padded, into `text` at
    /// `start`; returns the index after the last digit. A year past 9999 is written whole.
    private static func writeDigits(_ value: Int, count: Int, into text: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var digitCount = 1
        var rest = value / 10
        while rest > 0 {
            digitCount += 1
            rest /= 10
        }
        let end = start + max(count, digitCount)
        var value = value
        var index = end
        while index > start {
            index -= 1
            text[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
        }
        return end
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
