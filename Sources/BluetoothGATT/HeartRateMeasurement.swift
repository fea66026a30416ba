/// A Heart Rate Measurement (`0x2A37`), as the Heart Rate Service specification lays it out:
/// flags, the heart rate (8 or 16 bits), the energy expended, and the RR intervals.
///
/// ```swift
/// let measurement = try HeartRateMeasurement(bytes: [0x16, 0x48, 0x00, 0x03])  // 72 bpm, one RR of 0.75 s
/// ```
public struct HeartRateMeasurement: Sendable, Hashable {
    /// Beats per minute; `nil` when the strap says it has no skin contact (a rate then is not a
    /// measurement), or sends 0.
    public var heartRate: Int?
    /// Whether the strap can tell skin contact (flags bit 2).
    public var contactSupported: Bool
    /// Whether it has skin contact now; `nil` when it cannot tell.
    public var contactDetected: Bool?
    /// Energy expended since it was last reset, in kilojoules (flags bit 3).
    public var energyExpended: Int?
    /// The times between beats this notification reports, in seconds (each sent in 1/1024 s;
    /// flags bit 4), oldest first.
    public var rrIntervals: [Double]

    /// Decodes `bytes`. Throws ``MalformedNotification`` when they are shorter than their flags
    /// announce, or longer than their fields.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: "Heart Rate Measurement")
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        let flags = try reader.uint8("flags")
        let rate = flags & 0x01 != 0 ? Int(try reader.uint16("heart rate (16 bits)")) : Int(try reader.uint8("heart rate"))
        contactSupported = flags & 0x04 != 0
        contactDetected = contactSupported ? flags & 0x02 != 0 : nil
        heartRate = (contactDetected == false || rate == 0) ? nil : rate
        energyExpended = flags & 0x08 != 0 ? Int(try reader.uint16("energy expended")) : nil
        rrIntervals = []
        if flags & 0x10 != 0 {
            guard reader.remaining >= 2 else { throw reader.malformed(.truncated(field: "RR interval", needed: 2)) }
            while reader.remaining >= 2 {
                rrIntervals.append(Double(try reader.uint16("RR interval")) / 1024)
            }
        }
        try reader.end()
    }
}

/// Where a heart-rate sensor is worn (Body Sensor Location, `0x2A38`).
public enum BodySensorLocation: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case other = 0, chest, wrist, finger, hand, earLobe, foot

    /// Decodes the characteristic's one byte. Throws ``MalformedNotification`` for any other size,
    /// or a value the specification reserves.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: "Body Sensor Location")
        let value = try reader.uint8("location")
        try reader.end()
        guard let location = Self(rawValue: value) else { throw reader.malformed(.outOfRange(field: "location", value: Int(value)), at: 0) }
        self = location
    }

    public var description: String {
        switch self {
        case .other: "other"
        case .chest: "chest"
        case .wrist: "wrist"
        case .finger: "finger"
        case .hand: "hand"
        case .earLobe: "ear lobe"
        case .foot: "foot"
        }
    }
}

/// A battery's charge, in percent (Battery Level, `0x2A19`).
public struct BatteryLevel: Sendable, Hashable {
    /// 0 to 100.
    public var percent: Int

    /// Decodes the characteristic's one byte. Throws ``MalformedNotification`` for any other size,
    /// or a value above 100.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: "Battery Level")
        let value = try reader.uint8("level")
        try reader.end()
        guard value <= 100 else { throw reader.malformed(.outOfRange(field: "level", value: Int(value)), at: 0) }
        percent = Int(value)
    }
}
