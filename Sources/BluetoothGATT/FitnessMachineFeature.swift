/// What a fitness machine measures and what it can be set to (Fitness Machine Feature, `0x2ACC`):
/// two 32-bit fields, the machine's features and its target settings, as the Fitness Machine
/// Service specification (v1.0) lays them out. A client reads it once, before it asks for a
/// target the machine may not take.
///
/// ```swift
/// let features = try FitnessMachineFeature(bytes: [0x02, 0x40, 0x00, 0x00, 0x08, 0x20, 0x00, 0x00])
/// // features.machine == [.cadence, .powerMeasurement], features.targets == [.power, .indoorBikeSimulation]
/// ```
public struct FitnessMachineFeature: Sendable, Hashable {
    /// What the machine measures.
    public var machine: MachineFeatures
    /// What it can be set to.
    public var targets: TargetSettings

    /// Features `machine` and target settings `targets`.
    public init(machine: MachineFeatures, targets: TargetSettings) {
        self.machine = machine
        self.targets = targets
    }

    /// Decodes the characteristic's eight bytes (bits the specification reserves are kept).
    /// Throws ``MalformedNotification`` for any other size.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        var reader = GATTBytes(bytes, characteristic: "Fitness Machine Feature")
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        machine = MachineFeatures(rawValue: try reader.uint32("fitness machine features"))
        targets = TargetSettings(rawValue: try reader.uint32("target setting features"))
        try reader.end()
    }

    /// The characteristic's bytes.
    public var bytes: [UInt8] {
        var writer = GATTWriter()
        let field = GATTField.uint32("features")
        writer.write(Int(machine.rawValue), field)
        writer.write(Int(targets.rawValue), field)
        return writer.bytes
    }

    /// What a fitness machine measures (the first field, bit by bit).
    public struct MachineFeatures: OptionSet, Sendable, Hashable {
        /// The field's bits, as sent.
        public var rawValue: UInt32

        /// The features of the bits `rawValue`.
        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        /// Average speed (bit 0).
        public static let averageSpeed = MachineFeatures(rawValue: 1 << 0)
        /// Cadence (bit 1).
        public static let cadence = MachineFeatures(rawValue: 1 << 1)
        /// Total distance (bit 2).
        public static let totalDistance = MachineFeatures(rawValue: 1 << 2)
        /// Inclination (bit 3).
        public static let inclination = MachineFeatures(rawValue: 1 << 3)
        /// Elevation gain (bit 4).
        public static let elevationGain = MachineFeatures(rawValue: 1 << 4)
        /// Pace (bit 5).
        public static let pace = MachineFeatures(rawValue: 1 << 5)
        /// Step count (bit 6).
        public static let stepCount = MachineFeatures(rawValue: 1 << 6)
        /// Resistance level (bit 7).
        public static let resistanceLevel = MachineFeatures(rawValue: 1 << 7)
        /// Stride count (bit 8).
        public static let strideCount = MachineFeatures(rawValue: 1 << 8)
        /// Expended energy (bit 9).
        public static let expendedEnergy = MachineFeatures(rawValue: 1 << 9)
        /// Heart rate, from the machine's own sensor or a strap it reads (bit 10).
        public static let heartRateMeasurement = MachineFeatures(rawValue: 1 << 10)
        /// Metabolic equivalent (bit 11).
        public static let metabolicEquivalent = MachineFeatures(rawValue: 1 << 11)
        /// Elapsed time (bit 12).
        public static let elapsedTime = MachineFeatures(rawValue: 1 << 12)
        /// Remaining time (bit 13).
        public static let remainingTime = MachineFeatures(rawValue: 1 << 13)
        /// Power (bit 14).
        public static let powerMeasurement = MachineFeatures(rawValue: 1 << 14)
        /// A treadmill's force on the belt and power output (bit 15).
        public static let forceOnBeltAndPowerOutput = MachineFeatures(rawValue: 1 << 15)
        /// It keeps the user's data (bit 16).
        public static let userDataRetention = MachineFeatures(rawValue: 1 << 16)

        /// The features in words, in the order of their bits: "cadence", "power".
        public var names: [String] {
            let words = [
                "average speed", "cadence", "total distance", "inclination", "elevation gain", "pace", "step count",
                "resistance level", "stride count", "expended energy", "heart rate", "metabolic equivalent", "elapsed time",
                "remaining time", "power", "force on belt and power output", "user data retention",
            ]
            return FitnessMachineFeature.names(of: rawValue, words)
        }
    }

    /// What a fitness machine can be set to through its control point (the second field).
    public struct TargetSettings: OptionSet, Sendable, Hashable {
        /// The field's bits, as sent.
        public var rawValue: UInt32

        /// The features of the bits `rawValue`.
        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        /// A target speed (bit 0).
        public static let speed = TargetSettings(rawValue: 1 << 0)
        /// A target inclination (bit 1).
        public static let inclination = TargetSettings(rawValue: 1 << 1)
        /// A target resistance level (bit 2).
        public static let resistance = TargetSettings(rawValue: 1 << 2)
        /// A target power (bit 3).
        public static let power = TargetSettings(rawValue: 1 << 3)
        /// A target heart rate (bit 4).
        public static let heartRate = TargetSettings(rawValue: 1 << 4)
        /// A targeted expended energy (bit 5).
        public static let targetedExpendedEnergy = TargetSettings(rawValue: 1 << 5)
        /// A targeted number of steps (bit 6).
        public static let targetedSteps = TargetSettings(rawValue: 1 << 6)
        /// A targeted number of strides (bit 7).
        public static let targetedStrides = TargetSettings(rawValue: 1 << 7)
        /// A targeted distance (bit 8).
        public static let targetedDistance = TargetSettings(rawValue: 1 << 8)
        /// A targeted training time (bit 9).
        public static let targetedTrainingTime = TargetSettings(rawValue: 1 << 9)
        /// Targeted times in two heart-rate zones (bit 10).
        public static let targetedTimeInTwoHeartRateZones = TargetSettings(rawValue: 1 << 10)
        /// Targeted times in three heart-rate zones (bit 11).
        public static let targetedTimeInThreeHeartRateZones = TargetSettings(rawValue: 1 << 11)
        /// Targeted times in five heart-rate zones (bit 12).
        public static let targetedTimeInFiveHeartRateZones = TargetSettings(rawValue: 1 << 12)
        /// Indoor bike simulation parameters: wind, grade, rolling and wind resistance (bit 13).
        public static let indoorBikeSimulation = TargetSettings(rawValue: 1 << 13)
        /// The wheel's circumference (bit 14).
        public static let wheelCircumference = TargetSettings(rawValue: 1 << 14)
        /// A spin down calibration (bit 15).
        public static let spinDown = TargetSettings(rawValue: 1 << 15)
        /// A targeted cadence (bit 16).
        public static let targetedCadence = TargetSettings(rawValue: 1 << 16)

        /// The target settings in words, in the order of their bits: "power", "indoor bike simulation".
        public var names: [String] {
            let words = [
                "speed", "inclination", "resistance", "power", "heart rate", "targeted expended energy", "targeted steps",
                "targeted strides", "targeted distance", "targeted training time", "targeted time in two heart rate zones",
                "targeted time in three heart rate zones", "targeted time in five heart rate zones", "indoor bike simulation",
                "wheel circumference", "spin down", "targeted cadence",
            ]
            return FitnessMachineFeature.names(of: rawValue, words)
        }
    }

    /// The words of the bits set in `bits`; a bit the specification reserves is "bit N".
    static func names(of bits: UInt32, _ words: [String]) -> [String] {
        (0..<32).filter { bits & (1 << $0) != 0 }.map { $0 < words.count ? words[$0] : "bit \($0)" }
    }
}
