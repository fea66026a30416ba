/// Indoor Bike Data (`0x2AD2`), as the Fitness Machine Service specification (v1.0) lays it out:
/// 16 bits of flags, then each field they announce, in this order. A smart trainer or an
/// exercise bike sends it about once a second.
///
/// Bit 0 is "More Data": the instantaneous speed is present when it is **0**, and a machine that
/// splits its fields over several notifications sets it on all but the last, without a speed.
///
/// ```swift
/// let ride = try IndoorBikeData(bytes: [0x44, 0x00, 0xE8, 0x03, 0xB4, 0x00, 0xFA, 0x00])
/// // ride.speed == 10 km/h in m/s, ride.cadence == 90, ride.power == 250
/// ```
public struct IndoorBikeData: Sendable, Hashable {
    /// The speed, in metres per second (sent in 0.01 km/h); `nil` when the More Data bit is set.
    public var speed: Double?
    /// The session's average speed, in metres per second (flags bit 1).
    public var averageSpeed: Double?
    /// Crank revolutions per minute (sent in 1/2 rpm; flags bit 2).
    public var cadence: Double?
    /// The session's average cadence, in revolutions per minute (flags bit 3).
    public var averageCadence: Double?
    /// The session's distance, in metres (a 24-bit count of metres; flags bit 4).
    public var totalDistance: Double?
    /// The resistance level, in the machine's own steps (flags bit 5): a sint16 of whole steps, as
    /// v1.0 has it (the later GATT Specification Supplement gives a uint8 in tens).
    public var resistanceLevel: Double?
    /// The power, in watts (flags bit 6).
    public var power: Int?
    /// The session's average power, in watts (flags bit 7).
    public var averagePower: Int?
    /// The energy spent (flags bit 8).
    public var expendedEnergy: ExpendedEnergy?
    /// The user's heart rate, in beats per minute (flags bit 9).
    public var heartRate: Int?
    /// The metabolic equivalent (sent in 0.1 MET; flags bit 10).
    public var metabolicEquivalent: Double?
    /// The session's elapsed time, in whole seconds (flags bit 11).
    public var elapsedTime: Duration?
    /// The time left of the session the user chose, in whole seconds (flags bit 12).
    public var remainingTime: Duration?

    static let characteristic = "Indoor Bike Data"
    static let cadenceField = GATTField.uint16("instantaneous cadence", scale: 2, unit: "rpm")
    static let averageCadenceField = GATTField.uint16("average cadence", scale: 2, unit: "rpm")
    static let resistanceField = GATTField.sint16("resistance level")
    static let powerField = GATTField.sint16("instantaneous power", unit: "W")
    static let averagePowerField = GATTField.sint16("average power", unit: "W")

    /// Data with the fields given; those left `nil` are not sent (the speed's absence sets More Data).
    public init(
        speed: Double? = nil, averageSpeed: Double? = nil, cadence: Double? = nil, averageCadence: Double? = nil,
        totalDistance: Double? = nil, resistanceLevel: Double? = nil, power: Int? = nil, averagePower: Int? = nil,
        expendedEnergy: ExpendedEnergy? = nil, heartRate: Int? = nil, metabolicEquivalent: Double? = nil,
        elapsedTime: Duration? = nil, remainingTime: Duration? = nil
    ) {
        self.speed = speed
        self.averageSpeed = averageSpeed
        self.cadence = cadence
        self.averageCadence = averageCadence
        self.totalDistance = totalDistance
        self.resistanceLevel = resistanceLevel
        self.power = power
        self.averagePower = averagePower
        self.expendedEnergy = expendedEnergy
        self.heartRate = heartRate
        self.metabolicEquivalent = metabolicEquivalent
        self.elapsedTime = elapsedTime
        self.remainingTime = remainingTime
    }

    /// Decodes `bytes`. Throws ``MalformedNotification`` naming the first field its flags announce
    /// that is missing, or the bytes left after the last. Flags the specification reserves (bits
    /// 13 to 15) announce nothing.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        typealias Fields = FitnessMachineFields
        var reader = GATTBytes(bytes, characteristic: Self.characteristic)
        let flags = try Fields.flags(&reader, bytes)
        func has(_ bit: Int) -> Bool { flags & (1 << bit) != 0 }
        speed = has(0) ? nil : try reader.value(Fields.speed)
        averageSpeed = has(1) ? try reader.value(Fields.averageSpeed) : nil
        cadence = has(2) ? try reader.value(Self.cadenceField) : nil
        averageCadence = has(3) ? try reader.value(Self.averageCadenceField) : nil
        totalDistance = has(4) ? try reader.value(Fields.totalDistance) : nil
        resistanceLevel = has(5) ? try reader.value(Self.resistanceField) : nil
        power = has(6) ? try reader.int(Self.powerField) : nil
        averagePower = has(7) ? try reader.int(Self.averagePowerField) : nil
        expendedEnergy = has(8) ? try ExpendedEnergy(&reader) : nil
        heartRate = has(9) ? try reader.int(Fields.heartRate) : nil
        metabolicEquivalent = has(10) ? try reader.value(Fields.metabolicEquivalent) : nil
        elapsedTime = has(11) ? try reader.seconds(Fields.elapsedTime) : nil
        remainingTime = has(12) ? try reader.seconds(Fields.remainingTime) : nil
        try reader.end()
    }

    /// The data's bytes: the flags of the fields it has, then those fields, each value clamped to
    /// what its field carries (a machine's display saturates; it does not refuse to show).
    public var bytes: [UInt8] {
        typealias Fields = FitnessMachineFields
        var flags = 0
        var writer = GATTWriter()
        func field(_ bit: Int, _ value: Double?, _ format: GATTField) {
            guard let value else { return }
            flags |= 1 << bit
            writer.clamped(value, format)
        }
        if let speed { writer.clamped(speed, Fields.speed) } else { flags |= 1 }
        field(1, averageSpeed, Fields.averageSpeed)
        field(2, cadence, Self.cadenceField)
        field(3, averageCadence, Self.averageCadenceField)
        field(4, totalDistance, Fields.totalDistance)
        field(5, resistanceLevel, Self.resistanceField)
        field(6, power.map(Double.init), Self.powerField)
        field(7, averagePower.map(Double.init), Self.averagePowerField)
        if let expendedEnergy { flags |= 1 << 8; expendedEnergy.write(to: &writer) }
        field(9, heartRate.map(Double.init), Fields.heartRate)
        field(10, metabolicEquivalent, Fields.metabolicEquivalent)
        field(11, elapsedTime?.inSeconds, Fields.elapsedTime)
        field(12, remainingTime?.inSeconds, Fields.remainingTime)
        var header = GATTWriter()
        header.write(flags, .uint16("flags"))
        return header.bytes + writer.bytes
    }
}
