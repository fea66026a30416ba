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

    public var kind: Kind
    public var time: Date
    /// A marker's name.
    public var name: String?

    public init(_ kind: Kind, at time: Date, name: String? = nil) {
        self.kind = kind
        self.time = time
        self.name = name
    }
}

/// One lap of a recorded workout: from the start (or the lap event before) to its lap event (or
/// the end), with its figures.
public struct WorkoutLap: Sendable, Hashable, Codable {
    /// 1 for the first lap.
    public var index: Int
    public var start: Date
    public var end: Date
    /// Metres covered while moving.
    public var distance: Double
    /// Seconds from start to end.
    public var duration: TimeInterval
    /// Seconds of it not paused (by the user or auto-pause).
    public var activeDuration: TimeInterval
    /// The mean of the heart-rate samples taken in the lap, if any.
    public var heartRateAverage: Double?

    public init(
        index: Int, start: Date, end: Date, distance: Double, duration: TimeInterval, activeDuration: TimeInterval,
        heartRateAverage: Double? = nil
    ) {
        self.index = index
        self.start = start
        self.end = end
        self.distance = distance
        self.duration = duration
        self.activeDuration = activeDuration
        self.heartRateAverage = heartRateAverage
    }
}
