#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a ``QuantitySample`` measures, and in which unit, as HealthKit's `HKQuantityTypeIdentifier`.
///
/// Each type has one fixed unit, so a value never needs one of its own. Raw values are stable strings.
public enum QuantityType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Heart rate, in beats per minute (count/min).
    case heartRate = "heart_rate"
    /// Cadence: steps or pedal revolutions per minute (count/min).
    case cadence
    /// Power, in watts.
    case power
    /// Temperature, in degrees Celsius.
    case temperature
    /// Speed, in metres per second.
    case speed
    /// The time between two heartbeats (an RR interval, from a chest strap), in seconds: the
    /// interval the sample covers ends at the beat. Heart-rate variability is worked out from them.
    case heartbeatInterval = "heartbeat_interval"
    /// Distance covered over the sample's interval, in metres (a wheel sensor's, beside GPS).
    case distance

    /// The unit of every value of this type: `count/min`, `W`, `°C`, `m/s`, `s` or `m`.
    public var unit: String {
        switch self {
        case .heartRate, .cadence: "count/min"
        case .power: "W"
        case .temperature: "°C"
        case .speed: "m/s"
        case .heartbeatInterval: "s"
        case .distance: "m"
        }
    }

    /// Whether a value below zero makes sense (only temperatures can be negative).
    public var allowsNegativeValues: Bool {
        self == .temperature
    }

    /// The type in words: "heart rate", "power".
    public var description: String {
        switch self {
        case .heartRate: "heart rate"
        case .heartbeatInterval: "heartbeat interval"
        default: rawValue
        }
    }
}

/// One measurement taken during a workout: a value of a ``QuantityType`` over an interval of time
/// (`start == end` for an instantaneous reading), as HealthKit's `HKQuantitySample`.
///
/// ```swift
/// let beat = QuantitySample(type: .heartRate, value: 142, at: fix.time!)
/// ```
///
/// Within one workout a sample is identified by its type, start and end: a sensor gives one value
/// per interval. Adding a sample equal to one already stored is a no-op (so a retried call does not
/// duplicate), and adding one with the same type and interval but another value is refused with
/// `WorkoutStoreError.conflictingSample` (in `Workout`).
public struct QuantitySample: Sendable, Hashable, Codable {
    /// What the value measures.
    public var type: QuantityType
    /// The measurement, in the type's ``QuantityType/unit``.
    public var value: Double
    /// When the measurement interval began.
    public var start: Date
    /// When it ended; equal to `start` for an instantaneous reading.
    public var end: Date

    /// A sample over `start...end`.
    public init(type: QuantityType, value: Double, start: Date, end: Date) {
        self.type = type
        self.value = value
        self.start = start
        self.end = end
    }

    /// An instantaneous sample taken at `time`.
    public init(type: QuantityType, value: Double, at time: Date) {
        self.init(type: type, value: value, start: time, end: time)
    }
}
