import Foundation

/// The training figures of a workout (or of a session so far): what ``TrainingFigures`` gives.
/// <doc:TheFigures> names each with its peers' names (FIT, TrainingPeaks).
public struct TrainingSummary: Sendable, Hashable, Codable {
    /// The profile the figures were measured against.
    public var profile: TrainingProfile
    /// The seconds the figures span: the workout's duration (the user's pauses left out, stops
    /// kept) up to the last thing fed.
    public var duration: TimeInterval
    /// The seconds of it with a power reading (the time the normalized power and the training
    /// stress score are taken over).
    public var powerTime: TimeInterval
    /// The seconds of it with a heart-rate reading.
    public var heartRateTime: TimeInterval
    /// The normalized power, watts (Coggan's: the 30 s rolling mean of the 1-second power series,
    /// each to the fourth power, their mean, its fourth root); `nil` with less than 30 s of power.
    public var normalizedPower: Double?
    /// The normalized power over the FTP; `nil` without either.
    public var intensityFactor: Double?
    /// `powerTime × NP × IF / (FTP × 3600) × 100`; `nil` without an intensity factor.
    public var trainingStressScore: Double?
    /// The integral of power over time, kilojoules; `nil` without power.
    public var work: Double?
    /// The time in each power zone; `nil` without power, or without bounds (no FTP).
    public var powerZones: ZoneTimes?
    /// The time in each heart-rate zone; `nil` without heart rate, or without bounds.
    public var heartRateZones: ZoneTimes?

    /// Figures; pass what is known (for tests, and for readers of a summary kept elsewhere).
    public init(
        profile: TrainingProfile, duration: TimeInterval, powerTime: TimeInterval = 0, heartRateTime: TimeInterval = 0,
        normalizedPower: Double? = nil, intensityFactor: Double? = nil, trainingStressScore: Double? = nil, work: Double? = nil,
        powerZones: ZoneTimes? = nil, heartRateZones: ZoneTimes? = nil
    ) {
        self.profile = profile
        self.duration = duration
        self.powerTime = powerTime
        self.heartRateTime = heartRateTime
        self.normalizedPower = normalizedPower
        self.intensityFactor = intensityFactor
        self.trainingStressScore = trainingStressScore
        self.work = work
        self.powerZones = powerZones
        self.heartRateZones = heartRateZones
    }
}

/// The seconds spent in each zone, and the seconds of the span without a reading: together they
/// make the span (``total``).
public struct ZoneTimes: Sendable, Hashable, Codable {
    /// The upper bound of each zone but the last, in the samples' unit (watts, bpm).
    public var upperBounds: [Double]
    /// Seconds in each zone, from zone 1: one more than ``upperBounds``.
    public var times: [TimeInterval]
    /// Seconds of the span without a reading (before the first, after the last, a heart-rate
    /// strap's silence).
    public var unrecorded: TimeInterval

    /// Zone times.
    public init(upperBounds: [Double], times: [TimeInterval], unrecorded: TimeInterval) {
        self.upperBounds = upperBounds
        self.times = times
        self.unrecorded = unrecorded
    }

    /// Zones with no time yet.
    init(upperBounds: [Double]) {
        self.init(upperBounds: upperBounds, times: Array(repeating: 0, count: upperBounds.count + 1), unrecorded: 0)
    }

    /// The zone of `value`, from 0: a value on a bound is in the zone below it.
    func zone(of value: Double) -> Int {
        upperBounds.firstIndex { value <= $0 } ?? upperBounds.count
    }

    /// The seconds of the span: the zones' and the unrecorded.
    public var total: TimeInterval {
        times.reduce(0, +) + unrecorded
    }
}
