import FIT

/// Dates for messages a device dated in its system time: FIT `date_time` values below
/// 0x10000000 are seconds since the device powered up, not dates (``FITTime``). A Garmin VIRB, for
/// one, dates its records so, and gives the file a `timestamp_correlation` message (162) that pairs
/// a UTC time with the system time it was at; a `gps_metadata` message (160) with a
/// `utc_timestamp` pairs them too. Either anchors the system time: a system time `t` is then the
/// date `t + offset`.
///
/// Messages dated in system time before any anchor are held (``FITActivityCollector``) until one
/// comes, and dated by it; a file that gives none leaves them undated, and they are skipped as
/// records without a date.
struct FITSystemTime {
    /// `timestamp_correlation`: timestamp (253, UTC), fractional_timestamp (0, 1/32768 s),
    /// system_timestamp (1), fractional_system_timestamp (2, 1/32768 s).
    static let timestampCorrelation: UInt16 = 162
    /// `gps_metadata`: timestamp (253, system time), timestamp_ms (0), utc_timestamp (6, UTC).
    static let gpsMetadata: UInt16 = 160

    /// Seconds since 1970 minus system seconds, once an anchor was read.
    private(set) var offset: Double?

    /// Whether `message` is dated in system time (a timestamp below ``FITTime/minimumDate``).
    static func isSystemTime(_ message: FITMessage) -> Bool {
        guard let raw = message.timestamp else { return false }
        return raw < FITTime.minimumDate
    }

    /// Takes an anchor from `message` if it is one (the first anchor of a file is kept: a device
    /// writes its correlation once, and GPS metadata after it says the same to the second).
    /// Returns whether it is one.
    mutating func anchor(from message: FITMessage) -> Bool {
        guard offset == nil else { return false }
        switch message.globalNumber {
        case Self.timestampCorrelation:
            guard let utc = message.integer(FITField.timestamp).flatMap({ FITTime.seconds(since1970: UInt32(truncatingIfNeeded: $0)) }),
                  let system = message.integer(1), system < Int64(FITTime.minimumDate) else { return false }
            let utcFraction = message.number(0, scale: 32_768) ?? 0
            let systemFraction = message.number(2, scale: 32_768) ?? 0
            offset = utc + utcFraction - (Double(system) + systemFraction)
            return true
        case Self.gpsMetadata:
            guard let utc = message.integer(6).flatMap({ FITTime.seconds(since1970: UInt32(truncatingIfNeeded: $0)) }),
                  let system = message.timestamp, system < FITTime.minimumDate else { return false }
            offset = utc - (Double(system) + (message.number(0, scale: 1_000) ?? 0))
            return true
        default:
            return false
        }
    }

    /// The date of a message's raw `date_time` value, seconds since 1970: a date as it is, a
    /// system time through the anchor; `nil` for a system time without one.
    func date(_ raw: UInt32?) -> Double? {
        guard let raw else { return nil }
        if let date = FITTime.seconds(since1970: raw) { return date }
        return offset.map { Double(raw) + $0 }
    }
}
