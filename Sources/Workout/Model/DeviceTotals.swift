import Foundation

/// The totals the recording device worked out itself, as a FIT file's `session` messages or a TCX
/// file's laps give them, kept beside the ones the store works out from the points (the
/// workout's ``WorkoutRecord/totals``), in its metadata under the keys `device_*`. Devices count
/// distance from a wheel or foot sensor, smooth elevation their own way and stop the timer on
/// auto-pause, so the two differ; `workout show` prints both when they do.
///
/// ```swift
/// if let device = DeviceTotals(workout.metadata), let distance = device.distance {
///     print("the device says \(distance) m, the points \(workout.totals.distance ?? 0) m")
/// }
/// ```
public struct DeviceTotals: Sendable, Hashable {
    /// Distance, metres.
    public var distance: Double?
    /// Time with the timer running (pauses left out), seconds.
    public var timerTime: Double?
    /// Time from start to end, seconds.
    public var elapsedTime: Double?
    /// Climb and descent, metres.
    public var ascent: Double?
    /// Descent, metres.
    public var descent: Double?
    /// Energy, kilocalories.
    public var calories: Double?
    /// Mean and highest heart rate, bpm.
    public var heartRateAverage: Double?
    /// Highest heart rate, bpm.
    public var heartRateMaximum: Double?
    /// Mean power, W (FIT `avg_power`).
    public var powerAverage: Double?
    /// Highest power, W (FIT `max_power`).
    public var powerMaximum: Double?
    /// Normalized power, W (FIT `normalized_power`).
    public var normalizedPower: Double?
    /// Training stress score (FIT `training_stress_score`).
    public var trainingStressScore: Double?
    /// Intensity factor (FIT `intensity_factor`).
    public var intensityFactor: Double?
    /// Work, kilojoules (FIT `total_work`, which is in joules).
    public var work: Double?
    /// The FTP the device measured against, W (FIT `threshold_power`).
    public var thresholdPower: Double?

    /// Totals; pass what is known.
    public init(
        distance: Double? = nil, timerTime: Double? = nil, elapsedTime: Double? = nil, ascent: Double? = nil,
        descent: Double? = nil, calories: Double? = nil, heartRateAverage: Double? = nil, heartRateMaximum: Double? = nil,
        powerAverage: Double? = nil, powerMaximum: Double? = nil, normalizedPower: Double? = nil,
        trainingStressScore: Double? = nil, intensityFactor: Double? = nil, work: Double? = nil, thresholdPower: Double? = nil
    ) {
        self.distance = distance
        self.timerTime = timerTime
        self.elapsedTime = elapsedTime
        self.ascent = ascent
        self.descent = descent
        self.calories = calories
        self.heartRateAverage = heartRateAverage
        self.heartRateMaximum = heartRateMaximum
        self.powerAverage = powerAverage
        self.powerMaximum = powerMaximum
        self.normalizedPower = normalizedPower
        self.trainingStressScore = trainingStressScore
        self.intensityFactor = intensityFactor
        self.work = work
        self.thresholdPower = thresholdPower
    }

    /// The metadata keys, in the order `show` prints them.
    static var keys: [(key: String, path: WritableKeyPath<DeviceTotals, Double?>)] { [
        ("device_distance_m", \.distance), ("device_timer_time_s", \.timerTime), ("device_elapsed_time_s", \.elapsedTime),
        ("device_ascent_m", \.ascent), ("device_descent_m", \.descent), ("device_energy_kcal", \.calories),
        ("device_heart_rate_avg", \.heartRateAverage), ("device_heart_rate_max", \.heartRateMaximum),
        ("device_power_avg_w", \.powerAverage), ("device_power_max_w", \.powerMaximum),
        ("device_normalized_power_w", \.normalizedPower), ("device_training_stress_score", \.trainingStressScore),
        ("device_intensity_factor", \.intensityFactor), ("device_work_kj", \.work), ("device_threshold_power_w", \.thresholdPower),
    ] }

    /// The totals a workout's metadata holds; `nil` when it holds none (a GPX import, a session).
    public init?(_ metadata: WorkoutMetadata) {
        var totals = DeviceTotals()
        var any = false
        for (key, path) in Self.keys {
            if let text = metadata.values[key], let value = Double(text), value.isFinite {
                totals[keyPath: path] = value
                any = true
            }
        }
        guard any else { return nil }
        self = totals
    }

    /// The metadata values that hold these totals (numbers to 3 decimals, none for unknown ones).
    public var metadataValues: [String: String] {
        var values: [String: String] = [:]
        for (key, path) in Self.keys {
            if let value = self[keyPath: path], value.isFinite {
                values[key] = String(format: "%.3f", value).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
            }
        }
        return values
    }

    /// Whether no total is known.
    public var isEmpty: Bool {
        Self.keys.allSatisfy { self[keyPath: $0.path] == nil }
    }

    /// The sum of several sessions' totals (a multisport activity's legs): distances, times,
    /// climbs, energy, work and training stress add up; the heart-rate and power means are
    /// weighted by timer time, the normalized power as its fourth powers are (the intensity factor
    /// then over the FTP, when the legs give one); the maxima are the largest.
    static func sum(_ parts: [DeviceTotals]) -> DeviceTotals {
        guard parts.count > 1 else { return parts.first ?? DeviceTotals() }
        func total(_ path: KeyPath<DeviceTotals, Double?>) -> Double? {
            let values = parts.compactMap { $0[keyPath: path] }
            return values.isEmpty ? nil : values.reduce(0, +)
        }
        var sum = DeviceTotals(
            distance: total(\.distance), timerTime: total(\.timerTime), elapsedTime: total(\.elapsedTime),
            ascent: total(\.ascent), descent: total(\.descent), calories: total(\.calories))
        func mean(_ path: KeyPath<DeviceTotals, Double?>, power: Double = 1) -> Double? {
            let weighted = parts.compactMap { part in part[keyPath: path].map { (pow($0, power), part.timerTime ?? 1) } }
            let weight = weighted.map(\.1).reduce(0, +)
            return weight > 0 ? pow(weighted.map { $0.0 * $0.1 }.reduce(0, +) / weight, 1 / power) : nil
        }
        sum.heartRateAverage = mean(\.heartRateAverage)
        sum.heartRateMaximum = parts.compactMap(\.heartRateMaximum).max()
        sum.powerAverage = mean(\.powerAverage)
        sum.powerMaximum = parts.compactMap(\.powerMaximum).max()
        sum.normalizedPower = mean(\.normalizedPower, power: 4)
        sum.work = total(\.work)
        sum.trainingStressScore = total(\.trainingStressScore)
        sum.thresholdPower = parts.compactMap(\.thresholdPower).first
        if let normalized = sum.normalizedPower, let ftp = sum.thresholdPower, ftp > 0 { sum.intensityFactor = normalized / ftp }
        return sum
    }
}
