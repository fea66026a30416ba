import Foundation

/// One workout: what was done, when, the totals and where the record came from, as HealthKit's
/// `HKWorkout`. A value type; save it with ``WorkoutStore/save(_:)`` or, with its samples and
/// route in one atomic call, ``WorkoutStore/saveWorkout(_:samples:route:routeMetadata:)``.
///
/// ```swift
/// let run = WorkoutRecord(
///     activityType: .running, start: start, end: end,
///     totals: WorkoutTotals(distance: 10_012, energy: 712),
///     metadata: WorkoutMetadata(sourceApp: "my-recorder", externalID: "gpx:3f2a..."))
/// ```
///
/// The ``id`` is the workout's identity in the store: saving a value whose id (or
/// ``WorkoutMetadata/externalID``) is already stored never makes a second copy. Times are stored
/// as seconds since 1970 in a double: exact for times from GPS fixes or RFC 3339 text, within a
/// microsecond for a `Date()` taken from the system clock.
public struct WorkoutRecord: Sendable, Hashable, Codable, Identifiable {
    /// The stable identity of the workout, kept by the store.
    public var id: UUID
    /// What was done.
    public var activityType: WorkoutActivityType
    /// When the workout began.
    public var start: Date
    /// When it ended (not before ``start``).
    public var end: Date
    /// Distance, duration, moving time, elevation and energy, where known.
    public var totals: WorkoutTotals
    /// Indoor or not, the source device and app, an external id, and free key/values.
    public var metadata: WorkoutMetadata
    /// The activity type as the store holds it, when this version does not know it (a newer
    /// version wrote it): ``activityType`` is then ``WorkoutActivityType/other``. `nil` otherwise.
    public var unknownActivityType: String?

    /// Creates a workout. `totals.duration` defaults to the whole time from `start` to `end`.
    public init(
        id: UUID = UUID(),
        activityType: WorkoutActivityType,
        start: Date,
        end: Date,
        totals: WorkoutTotals = WorkoutTotals(),
        metadata: WorkoutMetadata = WorkoutMetadata()
    ) {
        self.id = id
        self.activityType = activityType
        self.start = start
        self.end = end
        self.totals = totals
        self.metadata = metadata
    }

    /// The time from start to end, pauses included, in seconds.
    public var elapsedTime: TimeInterval {
        end.timeIntervalSince(start)
    }

    /// The duration in seconds, the time not paused by the user (as `HKWorkout.duration`):
    /// ``WorkoutTotals/duration`` when set, else ``elapsedTime`` (nothing says it was paused).
    public var duration: TimeInterval {
        totals.duration ?? elapsedTime
    }

    /// The moving time in seconds, the duration less the time stopped:
    /// ``WorkoutTotals/movingTime`` when set, else ``duration`` (nothing says it stopped).
    public var movingTime: TimeInterval {
        totals.movingTime ?? duration
    }

    /// Whether `date` lies within the workout, both ends included.
    public func contains(_ date: Date) -> Bool {
        date >= start && date <= end
    }
}

/// A workout's totals. Each is `nil` when unknown, never NaN.
public struct WorkoutTotals: Sendable, Hashable, Codable {
    /// Distance covered, in metres.
    public var distance: Double?
    /// The duration in seconds: the time from start to end less the time paused by the user, as
    /// `HKWorkout.duration` (and FIT's `total_timer_time` of a device whose timer runs through
    /// auto-pause); `nil` means the whole time from start to end.
    public var duration: TimeInterval?
    /// The moving time in seconds: the duration less the time stopped (auto-pause, or a device's
    /// automatic timer stops): the FIT export's `total_timer_time`, its timer stopping on
    /// auto-pause as a Garmin device's does; `nil` means the whole duration.
    public var movingTime: TimeInterval?
    /// Total climb, in metres.
    public var elevationGain: Double?
    /// Total descent, in metres (a positive number).
    public var elevationLoss: Double?
    /// Active energy burned, in kilocalories.
    public var energy: Double?

    /// Creates totals; pass only what is known.
    public init(
        distance: Double? = nil,
        duration: TimeInterval? = nil,
        movingTime: TimeInterval? = nil,
        elevationGain: Double? = nil,
        elevationLoss: Double? = nil,
        energy: Double? = nil
    ) {
        self.distance = distance
        self.duration = duration
        self.movingTime = movingTime
        self.elevationGain = elevationGain
        self.elevationLoss = elevationLoss
        self.energy = energy
    }
}

/// Where a workout came from, and anything else worth keeping with it.
public struct WorkoutMetadata: Sendable, Hashable, Codable {
    /// Whether the workout happened indoors (a treadmill, a trainer); `nil` when unknown. The FIT
    /// export writes it as the session's sub sport (indoor cycling, treadmill: see
    /// ``WorkoutActivityType/fitSubSport(indoor:virtual:)``); the FIT and TCX imports set it for a
    /// file that says so or has no position at all.
    public var isIndoor: Bool?
    /// The device that recorded it, such as `Garmin Forerunner 255` or `/dev/ttyUSB0`.
    public var sourceDevice: String?
    /// The app or program that recorded or imported it.
    public var sourceApp: String?
    /// An identity from outside the store, unique among stored workouts: the id a device or
    /// service gave the activity, or a hash of an imported file's content. Saving a workout whose
    /// external id is already stored finds the stored one instead of making a duplicate.
    public var externalID: String?
    /// Free key/value pairs.
    public var values: [String: String]

    /// Creates metadata; pass only what is known.
    public init(
        isIndoor: Bool? = nil,
        sourceDevice: String? = nil,
        sourceApp: String? = nil,
        externalID: String? = nil,
        values: [String: String] = [:]
    ) {
        self.isIndoor = isIndoor
        self.sourceDevice = sourceDevice
        self.sourceApp = sourceApp
        self.externalID = externalID
        self.values = values
    }
}

extension WorkoutMetadata {
    /// The key of ``values`` naming where the workout goes once saved: destinations of the
    /// upload queue (`fittrackee://host:port`, `strava`), separated by spaces.
    public static let uploadDestinationsKey = "upload_to"

    /// Where a session asks its workout to go once saved: queued in the transaction that saves
    /// it (a recorded or recovered session), so that a crash cannot fall between the two.
    ///
    /// ```swift
    /// var configuration = WorkoutSession.Configuration(activityType: .cycling)
    /// configuration.metadata.uploadDestinations = ["fittrackee://fittrackee.example"]
    /// ```
    public var uploadDestinations: [String] {
        get { values[Self.uploadDestinationsKey].map { $0.split(separator: " ").map(String.init) } ?? [] }
        set { values[Self.uploadDestinationsKey] = newValue.isEmpty ? nil : newValue.joined(separator: " ") }
    }
}
