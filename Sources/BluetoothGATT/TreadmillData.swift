/// Treadmill Data (`0x2ACD`), as the Fitness Machine Service specification (v1.0) lays it out:
/// 16 bits of flags, then each field they announce, in this order. A treadmill sends it about
/// once a second.
///
/// Bit 0 is "More Data": the instantaneous speed is present when it is **0**. The paces are in
/// kilometres per minute, as v1.0 defines them (one byte, 0.1 km/min); the later GATT
/// Specification Supplement gives them as two bytes of seconds, which a v1.0 machine does not send.
///
/// ```swift
/// let run = try TreadmillData(bytes: [0x0C, 0x00, 0x52, 0x03, 0xDC, 0x05, 0x00, 0x0F, 0x00, 0x14, 0x00])
/// // run.speed == 8.5 km/h in m/s, run.totalDistance == 1500, run.incline == 1.5 % at 2.0°
/// ```
public struct TreadmillData: Sendable, Hashable {
    /// The belt's speed, in metres per second (sent in 0.01 km/h); `nil` when More Data is set.
    public var speed: Double?
    /// The session's average speed, in metres per second (flags bit 1).
    public var averageSpeed: Double?
    /// The session's distance, in metres (a 24-bit count of metres; flags bit 2).
    public var totalDistance: Double?
    /// The inclination and the ramp angle (flags bit 3, one flag for both).
    public var incline: Incline?
    /// The elevation gained and lost since the session started (flags bit 4).
    public var elevationGain: ElevationGain?
    /// The instantaneous pace, in kilometres per minute (sent in 0.1 km/min; flags bit 5).
    public var pace: Double?
    /// The session's average pace, in kilometres per minute (flags bit 6).
    public var averagePace: Double?
    /// The energy spent (flags bit 7).
    public var expendedEnergy: ExpendedEnergy?
    /// The user's heart rate, in beats per minute (flags bit 8).
    public var heartRate: Int?
    /// The metabolic equivalent (sent in 0.1 MET; flags bit 9).
    public var metabolicEquivalent: Double?
    /// The session's elapsed time, in whole seconds (flags bit 10).
    public var elapsedTime: Duration?
    /// The time left of the session the user chose, in whole seconds (flags bit 11).
    public var remainingTime: Duration?
    /// The force of the user's steps on the belt, and their power (flags bit 12).
    public var beltForce: BeltForce?

    /// A treadmill's slope: as a grade, and as the angle of its ramp.
    public struct Incline: Sendable, Hashable {
        /// The grade, in percent (sent in 0.1 %); above 0 is uphill.
        public var inclination: Double
        /// The ramp's angle, in degrees (sent in 0.1°).
        public var rampAngle: Double

        /// A grade of `inclination` percent on a ramp at `rampAngle` degrees.
        public init(inclination: Double, rampAngle: Double) {
            self.inclination = inclination
            self.rampAngle = rampAngle
        }
    }

    /// The elevation gained and lost since the session started.
    public struct ElevationGain: Sendable, Hashable {
        /// Metres climbed (sent in 0.1 m).
        public var positive: Double
        /// Metres descended (sent in 0.1 m).
        public var negative: Double

        /// `positive` metres up and `negative` metres down.
        public init(positive: Double, negative: Double) {
            self.positive = positive
            self.negative = negative
        }
    }

    /// What the user's steps do to the belt: above 0 they drive it, below 0 they brake it.
    public struct BeltForce: Sendable, Hashable {
        /// The force, in newtons.
        public var force: Int
        /// The power, in watts.
        public var powerOutput: Int

        /// `force` newtons, `powerOutput` watts.
        public init(force: Int, powerOutput: Int) {
            self.force = force
            self.powerOutput = powerOutput
        }
    }

    static let characteristic = "Treadmill Data"
    static let inclinationField = GATTField.sint16("inclination", scale: 10, unit: "%")
    static let rampAngleField = GATTField.sint16("ramp angle setting", scale: 10, unit: "°")
    static let positiveGainField = GATTField.uint16("positive elevation gain", scale: 10, unit: "m")
    static let negativeGainField = GATTField.uint16("negative elevation gain", scale: 10, unit: "m")
    static let paceField = GATTField.uint8("instantaneous pace", scale: 10, unit: "km/min")
    static let averagePaceField = GATTField.uint8("average pace", scale: 10, unit: "km/min")
    static let forceField = GATTField.sint16("force on belt", unit: "N")
    static let powerOutputField = GATTField.sint16("power output", unit: "W")

    /// Data with the fields given; those left `nil` are not sent (the speed's absence sets More Data).
    public init(
        speed: Double? = nil, averageSpeed: Double? = nil, totalDistance: Double? = nil, incline: Incline? = nil,
        elevationGain: ElevationGain? = nil, pace: Double? = nil, averagePace: Double? = nil,
        expendedEnergy: ExpendedEnergy? = nil, heartRate: Int? = nil, metabolicEquivalent: Double? = nil,
        elapsedTime: Duration? = nil, remainingTime: Duration? = nil, beltForce: BeltForce? = nil
    ) {
        self.speed = speed
        self.averageSpeed = averageSpeed
        self.totalDistance = totalDistance
        self.incline = incline
        self.elevationGain = elevationGain
        self.pace = pace
        self.averagePace = averagePace
        self.expendedEnergy = expendedEnergy
        self.heartRate = heartRate
        self.metabolicEquivalent = metabolicEquivalent
        self.elapsedTime = elapsedTime
        self.remainingTime = remainingTime
        self.beltForce = beltForce
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
        totalDistance = has(2) ? try reader.value(Fields.totalDistance) : nil
        if has(3) {
            let inclination = try reader.value(Self.inclinationField)
            incline = Incline(inclination: inclination, rampAngle: try reader.value(Self.rampAngleField))
        }
        if has(4) {
            let positive = try reader.value(Self.positiveGainField)
            elevationGain = ElevationGain(positive: positive, negative: try reader.value(Self.negativeGainField))
        }
        pace = has(5) ? try reader.value(Self.paceField) : nil
        averagePace = has(6) ? try reader.value(Self.averagePaceField) : nil
        expendedEnergy = has(7) ? try ExpendedEnergy(&reader) : nil
        heartRate = has(8) ? try reader.int(Fields.heartRate) : nil
        metabolicEquivalent = has(9) ? try reader.value(Fields.metabolicEquivalent) : nil
        elapsedTime = has(10) ? try reader.seconds(Fields.elapsedTime) : nil
        remainingTime = has(11) ? try reader.seconds(Fields.remainingTime) : nil
        if has(12) {
            let force = try reader.int(Self.forceField)
            beltForce = BeltForce(force: force, powerOutput: try reader.int(Self.powerOutputField))
        }
        try reader.end()
    }

    /// The data's bytes: the flags of the fields it has, then those fields, each value clamped to
    /// what its field carries (a machine's display saturates; it does not refuse to show).
    public var bytes: [UInt8] {
        typealias Fields = FitnessMachineFields
        var flags = 0
        var writer = GATTWriter()
        func field(_ bit: Int, _ values: [(Double, GATTField)]?) {
            guard let values else { return }
            flags |= 1 << bit
            for (value, format) in values { writer.clamped(value, format) }
        }
        if let speed { writer.clamped(speed, Fields.speed) } else { flags |= 1 }
        field(1, averageSpeed.map { [($0, Fields.averageSpeed)] })
        field(2, totalDistance.map { [($0, Fields.totalDistance)] })
        field(3, incline.map { [($0.inclination, Self.inclinationField), ($0.rampAngle, Self.rampAngleField)] })
        field(4, elevationGain.map { [($0.positive, Self.positiveGainField), ($0.negative, Self.negativeGainField)] })
        field(5, pace.map { [($0, Self.paceField)] })
        field(6, averagePace.map { [($0, Self.averagePaceField)] })
        if let expendedEnergy { flags |= 1 << 7; expendedEnergy.write(to: &writer) }
        field(8, heartRate.map { [(Double($0), Fields.heartRate)] })
        field(9, metabolicEquivalent.map { [($0, Fields.metabolicEquivalent)] })
        field(10, elapsedTime.map { [($0.inSeconds, Fields.elapsedTime)] })
        field(11, remainingTime.map { [($0.inSeconds, Fields.remainingTime)] })
        field(12, beltForce.map { [(Double($0.force), Self.forceField), (Double($0.powerOutput), Self.powerOutputField)] })
        var header = GATTWriter()
        header.write(flags, .uint16("flags"))
        return header.bytes + writer.bytes
    }
}
