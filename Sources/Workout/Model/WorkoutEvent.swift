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

    /// A lap with its figures (see <doc:TheFigures> for what each means).
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
