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

    /// Totals; pass what is known.
    public init(
        distance: Double? = nil, timerTime: Double? = nil, elapsedTime: Double? = nil, ascent: Double? = nil,
        descent: Double? = nil, calories: Double? = nil, heartRateAverage: Double? = nil, heartRateMaximum: Double? = nil
    ) {
        self.distance = distance
        self.timerTime = timerTime
        self.elapsedTime = elapsedTime
        self.ascent = ascent
        self.descent = descent
        self.calories = calories
        self.heartRateAverage = heartRateAverage
        self.heartRateMaximum = heartRateMaximum
    }

    /// The metadata keys, in the order `show` prints them.
    static var keys: [(key: String, path: WritableKeyPath<DeviceTotals, Double?>)] { [
        ("device_distance_m", \.distance), ("device_timer_time_s", \.timerTime), ("device_elapsed_time_s", \.elapsedTime),
        ("device_ascent_m", \.ascent), ("device_descent_m", \.descent), ("device_energy_kcal", \.calories),
        ("device_heart_rate_avg", \.heartRateAverage), ("device_heart_rate_max", \.heartRateMaximum),
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
    /// climbs and energy add up; the heart-rate mean is weighted by timer time; the maximum is the largest.
    static func sum(_ parts: [DeviceTotals]) -> DeviceTotals {
        guard parts.count > 1 else { return parts.first ?? DeviceTotals() }
        func total(_ path: KeyPath<DeviceTotals, Double?>) -> Double? {
            let values = parts.compactMap { $0[keyPath: path] }
            return values.isEmpty ? nil : values.reduce(0, +)
        }
        var sum = DeviceTotals(
            distance: total(\.distance), timerTime: total(\.timerTime), elapsedTime: total(\.elapsedTime),
            ascent: total(\.ascent), descent: total(\.descent), calories: total(\.calories))
        let weighted = parts.compactMap { part in part.heartRateAverage.map { ($0, part.timerTime ?? 1) } }
        let weight = weighted.map(\.1).reduce(0, +)
        if weight > 0 { sum.heartRateAverage = weighted.map { $0.0 * $0.1 }.reduce(0, +) / weight }
        sum.heartRateMaximum = parts.compactMap(\.heartRateMaximum).max()
        return sum
    }
}
