import Foundation
import LocationCore

/// Where a workout's distance comes from: its fixes, a sensor's `.distance` samples (a wheel's
/// revolutions, a foot pod's or a treadmill's or a trainer's total distance), or each where the
/// other cannot, as head units offer the choice.
///
/// ```swift
/// let configuration = WorkoutSession.Configuration(activityType: .cycling, distanceSource: .automatic)   // the default
/// ```
///
/// Indoors (``WorkoutSession/LocationType/indoor``) there are no fixes: the distance is the
/// sensor's, whatever the choice.
public enum DistanceSource: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The fixes alone: a sensor's distance is kept as samples and never counted.
    case gps
    /// The sensor alone, whenever the workout moves: the fixes make the route, not the distance
    /// (a workout whose sensor is silent covers no distance meanwhile).
    case sensor
    /// The fixes where they are usable, and the sensor across every stretch without a usable fix
    /// (a tunnel, fixes less accurate than the limit) longer than ``DistanceSourcing/gapLimit``
    /// (5 s): the stretch then covers the sensor's distance, or the straight line between the
    /// fixes either side when that is longer (a sensor that fell silent on the way). The default.
    case automatic

    /// The choice in words: "GPS", "the sensor", "automatic".
    public var description: String {
        switch self {
        case .gps: "GPS"
        case .sensor: "the sensor"
        case .automatic: "automatic"
        }
    }
}

/// A sensor's measurement as the session's time line takes it: a distance covered over an
/// interval, or a speed, cadence or power at a time. Heart rate, temperature and beat intervals
/// say nothing of motion, and are not readings.
struct SensorReading: Sendable, Hashable {
    enum Measure: Sendable, Hashable {
        /// Metres covered since `since` (seconds since 1970), as the sensor measured them.
        case distance(Double, since: Double)
        /// Metres per second.
        case speed(Double)
        /// Revolutions or steps per minute.
        case cadence(Double)
        /// Watts.
        case power(Double)
    }

    /// When it was measured (the end of a distance's interval), seconds since 1970.
    var time: Double
    var measure: Measure

    /// Where it is placed among the fixes: its time, or the middle of a distance's interval (a
    /// wheel's second that ends at a fix belongs to the stretch before that fix).
    var placement: Double {
        if case let .distance(_, since) = measure { (since + time) / 2 } else { time }
    }

    /// Where `sample` is placed among the fixes, as its reading is: see ``placement``.
    static func placement(of sample: QuantitySample) -> Double {
        let end = sample.end.timeIntervalSince1970
        return sample.type == .distance ? (sample.start.timeIntervalSince1970 + end) / 2 : end
    }

    init(time: Double, measure: Measure) {
        self.time = time
        self.measure = measure
    }

    /// The reading of `sample`, or `nil` for a sample that says nothing of motion.
    init?(_ sample: QuantitySample) {
        let end = sample.end.timeIntervalSince1970
        switch sample.type {
        case .distance: self.init(time: end, measure: .distance(sample.value, since: sample.start.timeIntervalSince1970))
        case .speed: self.init(time: end, measure: .speed(sample.value))
        case .cadence: self.init(time: end, measure: .cadence(sample.value))
        case .power: self.init(time: end, measure: .power(sample.value))
        case .heartRate, .temperature, .heartbeatInterval: return nil
        }
    }

    /// Whether samples of `type` are readings.
    static func isReading(_ type: QuantityType) -> Bool {
        switch type {
        case .distance, .speed, .cadence, .power: true
        case .heartRate, .temperature, .heartbeatInterval: false
        }
    }
}

/// A reading as ``DistanceSourcing`` released it, in time order among the fixes.
struct TimelineReading: Sendable, Hashable {
    var reading: SensorReading
    /// Whether it lies in a gap: a stretch without a usable fix longer than ``DistanceSourcing/gapLimit``.
    var inGap: Bool
    /// Whether the time line takes it: its distance counts and motion is judged by it (the
    /// workout's distance source decided so for its stretch). One outside a gap, counted or not,
    /// calibrates the sensor against the fixes around it.
    var counts: Bool
    /// The speed motion is judged by at its time, when it counts: the sensor's speed, at least
    /// the auto-pause threshold while a crank turns or a power is measured; `nil`: nothing to judge by.
    var judgedSpeed: Double?
    /// The route segment it came in (the last fix's), for the motion detector.
    var segment = 0

    var time: Double { reading.time }
}

/// What the session's motion detector and time line are fed, in time order: fixes and readings.
enum TimelineInput: Sendable, Hashable, MotionFix {
    /// A fix; `judged` says whether motion is judged by it (not when the distance source is the sensor).
    case point(TimelinePoint, judged: Bool)
    case reading(TimelineReading)

    var time: Double {
        switch self {
        case let .point(point, _): point.time
        case let .reading(reading): reading.time
        }
    }

    var latitude: Double {
        if case let .point(point, _) = self { point.latitude } else { 0 }
    }

    var longitude: Double {
        if case let .point(point, _) = self { point.longitude } else { 0 }
    }

    var speed: Double? {
        switch self {
        case let .point(point, _): point.speed
        case let .reading(reading): reading.judgedSpeed
        }
    }

    var horizontalAccuracy: Double? {
        if case let .point(point, _) = self { point.horizontalAccuracy } else { nil }
    }

    var segment: Int {
        switch self {
        case let .point(point, _): point.segment
        case let .reading(reading): reading.segment
        }
    }

    var motionEvidence: MotionEvidence {
        switch self {
        case let .point(_, judged): judged ? .position : .none
        case let .reading(reading): reading.counts ? .speed : .none
        }
    }
}
