/// An RSC Measurement (`0x2A53`), as the Running Speed and Cadence Service specification lays it
/// out: flags, the instantaneous speed (1/256 m/s) and cadence (1/min), then the stride length
/// (1/100 m, flags bit 0) and the total distance (1/10 m, flags bit 1). A foot pod sends it.
///
/// ```swift
/// let stride = try RSCMeasurement(bytes: [0x07, 0x00, 0x03, 0xAA, 0x8C, 0x00, 0x10, 0x27, 0x00, 0x00])
/// // stride.speed == 3.0 m/s, stride.cadence == 170, stride.strideLength == 1.4, stride.isRunning
/// ```
public struct RSCMeasurement: Sendable, Hashable {
    /// The speed, in metres per second (sent in 1/256 m/s).
    public var speed: Double
    /// Footfalls per minute (each foot's step counts).
    public var cadence: Int
    /// The length of a stride, in metres (sent in 1/100 m; flags bit 0).
    public var strideLength: Double?
    /// The distance since the sensor was last reset, in metres (sent in 1/10 m; flags bit 1).
    public var totalDistance: Double?
    /// Whether the runner is running (flags bit 2); walking when not. Meaningful only when the
    /// sensor's ``RSCFeature`` has ``RSCFeature/walkingOrRunningStatus``.
    public var isRunning: Bool

    static let characteristic = "RSC Measurement"
    static let speedField = GATTField.uint16("instantaneous speed", scale: 256, unit: "m/s")
    static let cadenceField = GATTField.uint8("instantaneous cadence", unit: "/min")
    static let strideField = GATTField.uint16("instantaneous stride length", scale: 100, unit: "m")
    static let distanceField = GATTField.uint32("total distance", scale: 10, unit: "m")

    /// A measurement of `speed` m/s at `cadence` footfalls a minute, with the stride length and
    /// total distance in metres when given.
    public init(speed: Double, cadence: Int, strideLength: Double? = nil, totalDistance: Double? = nil, isRunning: Bool = false) {
        self.speed = speed
        self.cadence = cadence
        self.strideLength = strideLength
        self.totalDistance = totalDistance
        self.isRunning = isRunning
    }

    /// Decodes `bytes`. Throws ``MalformedNotification`` when they are shorter than their flags
    /// announce, or longer than their fields.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: Self.characteristic)
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        let flags = try reader.uint8("flags")
        speed = try reader.value(Self.speedField)
        cadence = try reader.int(Self.cadenceField)
        strideLength = flags & 0x01 != 0 ? try reader.value(Self.strideField) : nil
        totalDistance = flags & 0x02 != 0 ? try reader.value(Self.distanceField) : nil
        isRunning = flags & 0x04 != 0
        try reader.end()
    }

    /// The measurement's bytes, each value clamped to what its field carries (as a sensor's
    /// counter saturates).
    public var bytes: [UInt8] {
        let flags = (strideLength != nil ? 0x01 : 0) | (totalDistance != nil ? 0x02 : 0) | (isRunning ? 0x04 : 0)
        var writer = GATTWriter([UInt8(flags)])
        writer.clamped(speed, Self.speedField)
        writer.clamped(Double(cadence), Self.cadenceField)
        if let strideLength { writer.clamped(strideLength, Self.strideField) }
        if let totalDistance { writer.clamped(totalDistance, Self.distanceField) }
        return writer.bytes
    }
}

/// What a running speed and cadence sensor can measure (RSC Feature, `0x2A54`).
public struct RSCFeature: OptionSet, Sendable, Hashable {
    /// The field's bits, as sent.
    public var rawValue: UInt16

    /// The features of the bits `rawValue`.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// It measures the stride length (bit 0).
    public static let strideLength = RSCFeature(rawValue: 1 << 0)
    /// It measures the total distance (bit 1).
    public static let totalDistance = RSCFeature(rawValue: 1 << 1)
    /// It tells walking from running (bit 2).
    public static let walkingOrRunningStatus = RSCFeature(rawValue: 1 << 2)
    /// It can be calibrated through the SC Control Point (bit 3).
    public static let calibration = RSCFeature(rawValue: 1 << 3)
    /// It can be worn in more than one place (bit 4).
    public static let multipleSensorLocations = RSCFeature(rawValue: 1 << 4)

    /// The features in words, in the order of their bits: "stride length", "total distance".
    public var names: [String] {
        let words = ["stride length", "total distance", "walking or running", "calibration", "multiple sensor locations"]
        return (0..<16).filter { rawValue & (1 << $0) != 0 }.map { $0 < words.count ? words[$0] : "bit \($0)" }
    }

    /// Decodes the characteristic's two bytes (bits the specification reserves are kept). Throws
    /// ``MalformedNotification`` for any other size.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: "RSC Feature")
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        rawValue = try reader.uint16("RSC features")
        try reader.end()
    }

    /// The characteristic's bytes.
    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)]
    }
}
