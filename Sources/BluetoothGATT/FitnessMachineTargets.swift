/// Stop, or pause: the parameter of a Stop or Pause request, and of the status a machine sends
/// when its user stops or pauses it.
public enum StopOrPause: UInt8, Sendable, Hashable, CaseIterable {
    /// Stop the session (0x01).
    case stop = 1
    /// Pause it, to resume later (0x02).
    case pause = 2
}

/// What a trainer simulates riding outdoors: the wind, the grade and the two resistance
/// coefficients, as a Set Indoor Bike Simulation Parameters request sends them.
public struct IndoorBikeSimulation: Sendable, Hashable {
    /// The wind's speed, in metres per second (sent in 0.001 m/s); above 0 is a headwind.
    public var windSpeed: Double
    /// The grade, in percent (sent in 0.01 %, so -327.68 % to 327.67 %); above 0 is uphill.
    public var grade: Double
    /// The coefficient of rolling resistance (sent in 0.0001, so 0 to 0.0255).
    public var rollingResistance: Double
    /// The wind resistance coefficient, in kilograms per metre (sent in 0.01 kg/m, so 0 to 2.55).
    public var windResistance: Double

    /// A ride into a `windSpeed` m/s wind up a `grade` percent slope.
    public init(windSpeed: Double = 0, grade: Double, rollingResistance: Double = 0.004, windResistance: Double = 0.51) {
        self.windSpeed = windSpeed
        self.grade = grade
        self.rollingResistance = rollingResistance
        self.windResistance = windResistance
    }

    init(_ reader: inout GATTBytes) throws(MalformedNotification) {
        typealias Fields = FitnessMachineTargetFields
        windSpeed = try reader.value(Fields.windSpeed)
        grade = try reader.value(Fields.grade)
        rollingResistance = try reader.value(Fields.rollingResistance)
        windResistance = try reader.value(Fields.windResistance)
    }

    var parameters: [(Double, GATTField)] {
        typealias Fields = FitnessMachineTargetFields
        return [(windSpeed, Fields.windSpeed), (grade, Fields.grade), (rollingResistance, Fields.rollingResistance),
                (windResistance, Fields.windResistance)]
    }
}

/// Start or skip a trainer's spin down calibration: the parameter of a Spin Down Control request.
public enum SpinDownControl: UInt8, Sendable, Hashable, CaseIterable {
    /// Start it (0x01).
    case start = 1
    /// Skip it (0x02).
    case ignore = 2
}

/// Where a trainer's spin down calibration is: the parameter of its Spin Down Status.
public enum SpinDownStatus: UInt8, Sendable, Hashable, CaseIterable {
    /// The trainer asks for one (0x01).
    case requested = 1
    /// It succeeded (0x02).
    case success = 2
    /// It failed (0x03).
    case error = 3
    /// The user should stop pedalling now (0x04).
    case stopPedaling = 4
}

/// The parameters of the control point's requests and of the machine's status, defined once:
/// names, widths and resolutions as the Fitness Machine Service specification (v1.0) gives them.
enum FitnessMachineTargetFields {
    static let speed = GATTField.uint16("target speed", scale: 360, unit: "m/s")
    static let inclination = GATTField.sint16("target inclination", scale: 10, unit: "%")
    /// One byte in 0.1 (v1.0); the later GATT Specification Supplement gives two (sint16).
    static let resistanceLevel = GATTField.uint8("target resistance level", scale: 10)
    static let power = GATTField.sint16("target power", unit: "W")
    static let heartRate = GATTField.uint8("target heart rate", unit: "bpm")
    static let expendedEnergy = GATTField.uint16("targeted expended energy", unit: "kcal")
    static let steps = GATTField.uint16("targeted number of steps")
    static let strides = GATTField.uint16("targeted number of strides")
    static let distance = GATTField.uint24("targeted distance", unit: "m")
    static let trainingTime = GATTField.uint16("targeted training time", unit: "s")
    static func zoneTime(_ zone: String) -> GATTField { .uint16("targeted time in \(zone) zone", unit: "s") }
    static let windSpeed = GATTField.sint16("wind speed", scale: 1000, unit: "m/s")
    static let grade = GATTField.sint16("grade", scale: 100, unit: "%")
    static let rollingResistance = GATTField.uint8("coefficient of rolling resistance", scale: 10_000)
    static let windResistance = GATTField.uint8("wind resistance coefficient", scale: 100, unit: "kg/m")
    /// Metres, sent in 0.1 mm.
    static let wheelCircumference = GATTField.uint16("wheel circumference", scale: 10_000, unit: "m")
    static let cadence = GATTField.uint16("targeted cadence", scale: 2, unit: "rpm")
    static let stopOrPause = GATTField.uint8("stop or pause")
    static let spinDownControl = GATTField.uint8("spin down control")
    static let spinDownStatus = GATTField.uint8("spin down status")

    /// The zones of the targeted times in two, three and five heart-rate zones, in their order.
    static let twoZones = ["fat burn", "fitness"].map(zoneTime)
    static let threeZones = ["light", "moderate", "hard"].map(zoneTime)
    static let fiveZones = ["very light", "light", "moderate", "hard", "maximum"].map(zoneTime)

    /// Reads a one-byte enumeration, throwing for a value the specification reserves.
    static func enumeration<Value: RawRepresentable<UInt8>>(
        _ reader: inout GATTBytes, _ field: GATTField, as: Value.Type
    ) throws(MalformedNotification) -> Value {
        let start = reader.offset
        let raw = try reader.uint8(field.name)
        guard let value = Value(rawValue: raw) else { throw reader.malformed(.outOfRange(field: field.name, value: Int(raw)), at: start) }
        return value
    }
}
