/// A `record` message (20) read with the profile's scales: a moment of the activity, with or
/// without a position.
///
/// ```swift
/// if let record = FITRecord(message), let latitude = record.latitude, let longitude = record.longitude {
///     print(latitude, longitude, record.heartRate ?? .nan)
/// }
/// ```
///
/// Where the profile has two fields for a value, the enhanced one wins when valid: altitude (78,
/// else 2), speed (73, else 6, else the speed packed in `compressed_speed_distance`). Cadence adds
/// `fractional_cadence` (1/128 rpm).
public struct FITRecord: Sendable, Hashable {
    /// The message's offset in the input.
    public var offset: Int
    /// The time, seconds since 1970 (from `timestamp` or a compressed-timestamp header); `nil`
    /// without one, or for a time since power-up rather than a date.
    public var time: Double?
    /// The position in degrees: both or neither. A position outside the valid ranges is left out
    /// and ``positionOutOfRange`` set.
    public var latitude: Double?
    /// The longitude in degrees (see ``latitude``).
    public var longitude: Double?
    /// Whether the record had a position outside ±90° latitude or ±180° longitude.
    public var positionOutOfRange = false
    /// Metres above mean sea level.
    public var altitude: Double?
    /// Metres per second.
    public var speed: Double?
    /// Beats per minute.
    public var heartRate: Double?
    /// Revolutions or steps per minute (`cadence` plus `fractional_cadence`).
    public var cadence: Double?
    /// Watts.
    public var power: Double?
    /// Degrees Celsius.
    public var temperature: Double?
    /// The distance covered since the start, metres, as the device counted it.
    public var distance: Double?
    /// The GPS accuracy the device gave, metres.
    public var gpsAccuracy: Double?
    /// The developer fields of the record.
    public var developerValues: [FITDeveloperValue] = []

    /// Field numbers of `record`.
    public enum Field {
        /// `position_lat` (sint32, semicircles).
        public static let positionLatitude: UInt8 = 0
        /// `position_long` (sint32, semicircles).
        public static let positionLongitude: UInt8 = 1
        /// `altitude` (uint16, 1/5 m above -500 m).
        public static let altitude: UInt8 = 2
        /// `heart_rate` (uint8, bpm).
        public static let heartRate: UInt8 = 3
        /// `cadence` (uint8, rpm).
        public static let cadence: UInt8 = 4
        /// `distance` (uint32, 1/100 m).
        public static let distance: UInt8 = 5
        /// `speed` (uint16, mm/s).
        public static let speed: UInt8 = 6
        /// `power` (uint16, W).
        public static let power: UInt8 = 7
        /// `compressed_speed_distance` (3 bytes: speed in 1/100 m/s, distance in 1/16 m).
        public static let compressedSpeedDistance: UInt8 = 8
        /// `temperature` (sint8, °C).
        public static let temperature: UInt8 = 13
        /// `gps_accuracy` (uint8, m).
        public static let gpsAccuracy: UInt8 = 31
        /// `fractional_cadence` (uint8, 1/128 rpm).
        public static let fractionalCadence: UInt8 = 53
        /// `enhanced_speed` (uint32, mm/s).
        public static let enhancedSpeed: UInt8 = 73
        /// `enhanced_altitude` (uint32, 1/5 m above -500 m).
        public static let enhancedAltitude: UInt8 = 78
    }

    /// An empty record at `time` (for writers and tests).
    public init(offset: Int = 0, time: Double?) {
        self.offset = offset
        self.time = time
    }

    /// The record a `record` message holds; `nil` for any other message.
    public init?(_ message: FITMessage) {
        guard message.globalNumber == FITMessageNumber.record else { return nil }
        offset = message.offset
        time = message.timestamp.flatMap(FITTime.seconds(since1970:))
        if let latitude = message.integer(Field.positionLatitude), let longitude = message.integer(Field.positionLongitude) {
            let (degreesLatitude, degreesLongitude) = (FITSemicircles.degrees(latitude), FITSemicircles.degrees(longitude))
            if abs(degreesLatitude) <= 90, abs(degreesLongitude) <= 180 {
                self.latitude = degreesLatitude
                self.longitude = degreesLongitude
            } else {
                positionOutOfRange = true
            }
        }
        altitude = message.number(Field.enhancedAltitude, scale: 5, offset: 500) ?? message.number(Field.altitude, scale: 5, offset: 500)
        speed = message.number(Field.enhancedSpeed, scale: 1000) ?? message.number(Field.speed, scale: 1000)
            ?? Self.packedSpeed(message.rawBytes(Field.compressedSpeedDistance))
        heartRate = message.number(Field.heartRate)
        if let whole = message.number(Field.cadence) {
            cadence = whole + (message.number(Field.fractionalCadence, scale: 128) ?? 0)
        }
        power = message.number(Field.power)
        temperature = message.number(Field.temperature)
        distance = message.number(Field.distance, scale: 100)
        gpsAccuracy = message.number(Field.gpsAccuracy)
        if !message.definition.developerFields.isEmpty { developerValues = message.developerValues }
    }

    /// The speed in a `compressed_speed_distance` field: its first 12 bits, in 1/100 m/s.
    static func packedSpeed(_ bytes: ArraySlice<UInt8>?) -> Double? {
        guard let bytes, bytes.count == 3, !bytes.allSatisfy({ $0 == 0xFF }) else { return nil }
        let raw = UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1] & 0x0F) << 8
        return raw == 0xFFF ? nil : Double(raw) / 100
    }

    /// Whether it has a position.
    public var hasPosition: Bool { latitude != nil && longitude != nil }
}
