/// A cumulative revolution count and the time of the last revolution, as cycling sensors send
/// them: the wheel's (32 bits) or the crank's (16 bits, widened here), each counter and time
/// wrapping around. Speed, distance and cadence come from two of them (``RevolutionCounter``).
public struct RevolutionData: Sendable, Hashable {
    /// Revolutions since the sensor started counting (wrapping at 2^32 for a wheel, 2^16 for a crank).
    public var revolutions: UInt32
    /// The time of the last revolution, in the characteristic's unit (1/1024 s, or 1/2048 s for
    /// a power meter's wheel), wrapping at 2^16.
    public var eventTime: UInt16

    /// Revolutions `revolutions`, the last at `eventTime`.
    public init(revolutions: UInt32, eventTime: UInt16) {
        self.revolutions = revolutions
        self.eventTime = eventTime
    }
}

/// A largest and a smallest value.
public struct Extremes<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The largest.
    public var maximum: Value
    /// The smallest.
    public var minimum: Value

    /// `maximum` and `minimum`.
    public init(maximum: Value, minimum: Value) {
        self.maximum = maximum
        self.minimum = minimum
    }
}

/// A CSC Measurement (`0x2A5B`), as the Cycling Speed and Cadence Service specification lays it
/// out: flags, then the cumulative wheel revolutions (32 bits) with the last wheel event time,
/// and the cumulative crank revolutions (16 bits) with the last crank event time, both times in
/// 1/1024 s.
public struct CSCMeasurement: Sendable, Hashable {
    /// The wheel's revolutions (flags bit 0).
    public var wheel: RevolutionData?
    /// The crank's revolutions (flags bit 1).
    public var crank: RevolutionData?

    /// Decodes `bytes`. Throws ``MalformedNotification`` when they are shorter than their flags
    /// announce, or longer than their fields.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: "CSC Measurement")
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        let flags = try reader.uint8("flags")
        if flags & 0x01 != 0 {
            let revolutions = try reader.uint32("cumulative wheel revolutions")
            wheel = RevolutionData(revolutions: revolutions, eventTime: try reader.uint16("last wheel event time"))
        }
        if flags & 0x02 != 0 {
            let revolutions = UInt32(try reader.uint16("cumulative crank revolutions"))
            crank = RevolutionData(revolutions: revolutions, eventTime: try reader.uint16("last crank event time"))
        }
        try reader.end()
    }
}

/// A Cycling Power Measurement (`0x2A63`), as the Cycling Power Service specification lays it
/// out: flags (16 bits), the instantaneous power, then each optional field the flags announce, in
/// their order.
public struct CyclingPowerMeasurement: Sendable, Hashable {
    /// Instantaneous power in watts (a negative value is power put into the pedals).
    public var power: Int
    /// The share of power on one pedal, in percent (sent in 1/2 %; flags bit 0).
    public var pedalPowerBalance: Double?
    /// Whether ``pedalPowerBalance`` is the left pedal's (flags bit 1); otherwise unknown.
    public var balanceIsLeft: Bool
    /// Accumulated torque in newton-metres (sent in 1/32 Nm; flags bit 2).
    public var accumulatedTorque: Double?
    /// Whether the accumulated torque is measured at the crank (flags bit 3); else at the wheel.
    public var torqueIsCrankBased: Bool
    /// The wheel's revolutions, their time in 1/2048 s here (flags bit 4).
    public var wheel: RevolutionData?
    /// The crank's revolutions, their time in 1/1024 s (flags bit 5).
    public var crank: RevolutionData?
    /// The largest and smallest force, in newtons (flags bit 6).
    public var extremeForces: Extremes<Int>?
    /// The largest and smallest torque, in newton-metres (sent in 1/32 Nm; flags bit 7).
    public var extremeTorques: Extremes<Double>?
    /// The crank angles, in degrees, at the largest and smallest force or torque (flags bit 8).
    public var extremeAngles: Extremes<Int>?
    /// The top dead spot's crank angle, in degrees (flags bit 9).
    public var topDeadSpotAngle: Int?
    /// The bottom dead spot's crank angle, in degrees (flags bit 10).
    public var bottomDeadSpotAngle: Int?
    /// Accumulated energy in kilojoules (flags bit 11).
    public var accumulatedEnergy: Int?
    /// Whether the sensor says its offset compensation is under way (flags bit 12).
    public var offsetCompensation: Bool

    /// Decodes `bytes`. Throws ``MalformedNotification`` when they are shorter than their flags
    /// announce, or longer than their fields.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: "Cycling Power Measurement")
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        let flags = try reader.uint16("flags")
        power = Int(try reader.sint16("instantaneous power"))
        pedalPowerBalance = flags & 0x0001 != 0 ? Double(try reader.uint8("pedal power balance")) / 2 : nil
        balanceIsLeft = flags & 0x0002 != 0
        accumulatedTorque = flags & 0x0004 != 0 ? Double(try reader.uint16("accumulated torque")) / 32 : nil
        torqueIsCrankBased = flags & 0x0008 != 0
        if flags & 0x0010 != 0 {
            let revolutions = try reader.uint32("cumulative wheel revolutions")
            wheel = RevolutionData(revolutions: revolutions, eventTime: try reader.uint16("last wheel event time"))
        }
        if flags & 0x0020 != 0 {
            let revolutions = UInt32(try reader.uint16("cumulative crank revolutions"))
            crank = RevolutionData(revolutions: revolutions, eventTime: try reader.uint16("last crank event time"))
        }
        if flags & 0x0040 != 0 {
            let maximum = Int(try reader.sint16("maximum force"))
            extremeForces = Extremes(maximum: maximum, minimum: Int(try reader.sint16("minimum force")))
        }
        if flags & 0x0080 != 0 {
            let maximum = Double(try reader.sint16("maximum torque")) / 32
            extremeTorques = Extremes(maximum: maximum, minimum: Double(try reader.sint16("minimum torque")) / 32)
        }
        if flags & 0x0100 != 0 {
            // Two 12-bit angles in three bytes, the maximum in the low 12 bits.
            let angles = try reader.uint24("extreme angles")
            extremeAngles = Extremes(maximum: Int(angles & 0xFFF), minimum: Int(angles >> 12))
        }
        topDeadSpotAngle = flags & 0x0200 != 0 ? Int(try reader.uint16("top dead spot angle")) : nil
        bottomDeadSpotAngle = flags & 0x0400 != 0 ? Int(try reader.uint16("bottom dead spot angle")) : nil
        accumulatedEnergy = flags & 0x0800 != 0 ? Int(try reader.uint16("accumulated energy")) : nil
        offsetCompensation = flags & 0x1000 != 0
        try reader.end()
    }
}
