import Foundation

/// How a workout's distance was counted, as its metadata keeps it: where it came from
/// (``DistanceSource``), what a sensor's distance was multiplied by, and the wheel's
/// circumference as it was given or assumed, and as the fixes calibrated it. A recorded session
/// writes it; the store reads it back to count a stored workout's distance as the session did
/// (``WorkoutStore/laps(of:)``, the exports), and `workout show` prints it.
///
/// ```swift
/// if let sensor = SensorDistance(workout.metadata), let calibrated = sensor.calibratedCircumference {
///     print("the wheel measured \(calibrated) m a turn against GPS")
/// }
/// ```
///
/// The keys: `distance_source` (`gps`, `sensor` or `automatic`), `distance_sensor_factor`,
/// `wheel_circumference_m`, `wheel_circumference_given` (`true` when the user gave it),
/// `wheel_circumference_calibrated_m` and `wheel_calibration_distance_m` (the metres of GPS it was
/// calibrated over).
public struct SensorDistance: Sendable, Hashable {
    /// Where the distance came from.
    public var source: DistanceSource
    /// What the sensor's distance was multiplied by (1: as it measured it).
    public var factor: Double
    /// The circumference the wheel sensor measured with, metres, and whether the user gave it.
    public var circumference: Double?
    public var circumferenceIsGiven: Bool
    /// The circumference the fixes say the wheel has, metres, and over how many metres of them.
    public var calibratedCircumference: Double?
    public var calibrationDistance: Double?

    /// A record of how the distance was counted.
    public init(
        source: DistanceSource, factor: Double = 1, circumference: Double? = nil, circumferenceIsGiven: Bool = false,
        calibratedCircumference: Double? = nil, calibrationDistance: Double? = nil
    ) {
        self.source = source
        self.factor = factor
        self.circumference = circumference
        self.circumferenceIsGiven = circumferenceIsGiven
        self.calibratedCircumference = calibratedCircumference
        self.calibrationDistance = calibrationDistance
    }

    static let sourceKey = "distance_source"
    static let factorKey = "distance_sensor_factor"
    static let circumferenceKey = "wheel_circumference_m"
    static let givenKey = "wheel_circumference_given"
    static let calibratedKey = "wheel_circumference_calibrated_m"
    static let calibrationDistanceKey = "wheel_calibration_distance_m"

    /// What `metadata` says, or `nil` when it does not say where the distance came from (a
    /// workout imported or saved through the chain: its distance is counted as
    /// ``DistanceSource/automatic`` with the sensor's distance as measured).
    public init?(_ metadata: WorkoutMetadata) {
        let values = metadata.values
        guard let source = values[Self.sourceKey].flatMap(DistanceSource.init(rawValue:)) else { return nil }
        func number(_ key: String) -> Double? {
            values[key].flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        }
        self.init(
            source: source, factor: number(Self.factorKey) ?? 1, circumference: number(Self.circumferenceKey),
            circumferenceIsGiven: values[Self.givenKey] == "true", calibratedCircumference: number(Self.calibratedKey),
            calibrationDistance: number(Self.calibrationDistanceKey))
    }

    /// The metadata values that hold it.
    public var metadataValues: [String: String] {
        // The factor to the last bit: the store counts a stored workout's distance with it again.
        var values = [Self.sourceKey: source.rawValue, Self.factorKey: "\(factor)"]
        if let circumference {
            values[Self.circumferenceKey] = Self.format(circumference, digits: 4)
            values[Self.givenKey] = circumferenceIsGiven ? "true" : "false"
        }
        if let calibratedCircumference { values[Self.calibratedKey] = Self.format(calibratedCircumference, digits: 4) }
        if let calibrationDistance { values[Self.calibrationDistanceKey] = Self.format(calibrationDistance, digits: 1) }
        return values
    }

    private static func format(_ value: Double, digits: Int) -> String {
        String(format: "%.\(digits)f", value).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
    }

    /// The time line's options for a stored workout whose metadata is `metadata`.
    static func timelineOptions(_ options: SessionTimeline.Options, metadata: WorkoutMetadata) -> SessionTimeline.Options {
        var options = options
        let recorded = SensorDistance(metadata)
        options.distanceSource = recorded?.source ?? .automatic
        options.sensorFactor = recorded?.factor ?? 1
        options.calibratesSensor = false
        return options
    }
}
