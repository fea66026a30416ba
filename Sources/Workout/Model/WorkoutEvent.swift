import Foundation

/// Something that happened during a recorded workout, at a time: as HealthKit's `HKWorkoutEvent`.
public struct WorkoutEvent: Sendable, Hashable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The user paused the session.
        case pause
        /// The user resumed it.
        case resume
        /// Auto-pause: the athlete stopped moving.
        case motionPaused = "motion_paused"
        /// Auto-pause: the athlete moves again.
        case motionResumed = "motion_resumed"
        /// A lap ended here (by the user, or by auto-lap); the next begins.
        case lap
        /// A point the user marked, with a name.
        case marker
    }

    /// What ended a lap, as TCX's `TriggerMethod` says it.
    public enum LapTrigger: String, Sendable, Hashable, Codable, CaseIterable {
        /// The user (``WorkoutSession/lap()``).
        case manual
        /// Auto-lap by distance (``WorkoutSession/Configuration/autoLapDistance``).
        case distance
        /// Auto-lap by active time (``WorkoutSession/Configuration/autoLapTime``).
        case time
    }

    /// What happened.
    public var kind: Kind
    /// When: the time of the fix it happened at.
    public var time: Date
    /// A marker's name.
    public var name: String?
    /// What ended a lap (`nil` for other kinds, and for laps stored before this was kept).
    public var trigger: LapTrigger?

    /// An event of `kind` at `time`; a marker has a `name`, a lap a `trigger`.
    public init(_ kind: Kind, at time: Date, name: String? = nil, trigger: LapTrigger? = nil) {
        self.kind = kind
        self.time = time
        self.name = name
        self.trigger = trigger
    }

    /// Whether a person made it (pause, resume, a manual lap, a marker) rather than the session
    /// (auto-pause, auto-laps): a session recovered from the store makes the others again.
    public var isUserAction: Bool {
        switch kind {
        case .pause, .resume, .marker: true
        case .lap: trigger == nil || trigger == .manual
        case .motionPaused, .motionResumed: false
        }
    }
}

/// One lap of a recorded workout: from the start (or the lap event before) to its lap event (or
/// the end), with its figures.
public struct WorkoutLap: Sendable, Hashable, Codable {
    /// 1 for the first lap.
    public var index: Int
    /// When the lap began.
    public var start: Date
    /// When it ended.
    public var end: Date
    /// Metres covered while moving.
    public var distance: Double
    /// Seconds from start to end, pauses included.
    public var elapsedTime: TimeInterval
    /// Seconds of it not paused by the user (TCX's `TotalTimeSeconds`).
    public var duration: TimeInterval
    /// Seconds of it moving: neither paused by the user nor stopped (auto-pause): the FIT export's
    /// lap `total_timer_time`, its timer stopping at both, as a Garmin device's does.
    public var movingTime: TimeInterval
    /// The mean of the heart-rate samples taken in the lap, if any.
    public var heartRateAverage: Double?
    /// The figures of each type of sample taken in the lap (heart rate, cadence, power...).
    public var samples: [QuantityType: SampleFigures] = [:]
    /// What ended the lap: the ``WorkoutEvent/trigger`` of the lap event that ended it; `nil` for
    /// a lap the workout's end ended (the last), and for one whose lap event has no trigger (stored
    /// before triggers were kept). The FIT and TCX exports write it with the lap, whatever lap
    /// events the workout has besides (one at its start ends no lap).
    public var trigger: WorkoutEvent.LapTrigger?

    /// A lap with its figures (see the README's table of figures for what each means).
    public init(
        index: Int, start: Date, end: Date, distance: Double, elapsedTime: TimeInterval, duration: TimeInterval,
        movingTime: TimeInterval, heartRateAverage: Double? = nil, trigger: WorkoutEvent.LapTrigger? = nil
    ) {
        self.index = index
        self.start = start
        self.end = end
        self.distance = distance
        self.elapsedTime = elapsedTime
        self.duration = duration
        self.movingTime = movingTime
        self.heartRateAverage = heartRateAverage
        self.trigger = trigger
    }

    /// The lap's moving time: the name it had before ``duration`` meant what it means for a workout.
    @available(*, deprecated, renamed: "movingTime")
    public var activeDuration: TimeInterval {
        get { movingTime }
        set { movingTime = newValue }
    }
}

/// The figures of a run of samples of one type: how many, the last, the mean, the least and the most.
///
/// The mean is weighted by time, so that it does not depend on how often a sensor or a file
/// sampled: a sample over an interval weighs its length; an instantaneous one weighs the time
/// since the sample before it, at most ``maximumHold`` (a longer gap is a dropout, not a reading);
/// the first instantaneous sample weighs nothing. Without any weight (one sample, or values added
/// without a time) the mean is the plain arithmetic one. The live session, the store's
/// ``WorkoutStore/sampleFigures(of:)`` and laps, the importers and the exporters all use it. Peers
/// differ: gpxpy and ``TrackStatistics`` average a GPX file's points arithmetically.
///
/// ```swift
/// var heartRate: SampleFigures?
/// for sample in samples { heartRate.add(sample) }   // in time order
/// print(heartRate?.average ?? 0)
/// ```
public struct SampleFigures: Sendable, Hashable, Codable {
    /// How many samples.
    public var count: Int
    /// The last value taken.
    public var latest: Double
    /// The mean, weighted by time (see the type's description).
    public var average: Double
    /// The least value.
    public var minimum: Double
    /// The greatest value.
    public var maximum: Double
    /// The seconds the mean is weighted over.
    public private(set) var weightedTime: Double = 0
    private var weightedSum = 0.0
    private var arithmeticMean: Double
    /// The end of the last timed sample, seconds since 1970.
    private var lastTime: Double?

    /// The longest an instantaneous value is taken to hold, seconds: 10.
    public static let maximumHold = 10.0

    /// The figures of one value, without a time.
    public init(_ value: Double) {
        count = 1
        latest = value
        average = value
        minimum = value
        maximum = value
        arithmeticMean = value
    }

    /// The figures of one sample.
    public init(_ sample: QuantitySample) {
        self.init(sample.value)
        note(sample)
    }

    /// Adds the next value, without a time: it weighs nothing in a mean that has weights.
    public mutating func add(_ value: Double) {
        count += 1
        latest = value
        arithmeticMean += (value - arithmeticMean) / Double(count)
        minimum = min(minimum, value)
        maximum = max(maximum, value)
        average = weightedTime > 0 ? weightedSum / weightedTime : arithmeticMean
    }

    /// Adds the next sample (samples come in time order).
    public mutating func add(_ sample: QuantitySample) {
        note(sample)
        add(sample.value)
    }

    /// Weighs `sample` by its interval, or by the time since the sample before it.
    private mutating func note(_ sample: QuantitySample) {
        let start = sample.start.timeIntervalSince1970, end = sample.end.timeIntervalSince1970
        let weight = end > start ? end - start : lastTime.map { min(max(0, end - $0), Self.maximumHold) } ?? 0
        weightedSum += sample.value * weight
        weightedTime += weight
        lastTime = max(lastTime ?? end, end)
    }

    /// The figures of `values` (without times), or `nil` without any.
    public init?(_ values: some Sequence<Double>) {
        var figures: SampleFigures?
        for value in values {
            if figures == nil { figures = SampleFigures(value) } else { figures!.add(value) }
        }
        guard let figures else { return nil }
        self = figures
    }

    /// The figures of `samples` (in time order), or `nil` without any.
    public init?(samples: some Sequence<QuantitySample>) {
        var figures: SampleFigures?
        for sample in samples { figures.add(sample) }
        guard let figures else { return nil }
        self = figures
    }
}

extension Optional where Wrapped == SampleFigures {
    /// Adds `sample` to the figures, starting them with it.
    public mutating func add(_ sample: QuantitySample) {
        if self == nil { self = SampleFigures(sample) } else { self!.add(sample) }
    }
}
