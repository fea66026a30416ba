import Foundation
import LocationCore

/// One point of a stored route: the fix, its place in the route and the segment it belongs to.
///
/// What the store keeps of a `Location`: position, both altitudes, the accuracies, speed,
/// course, the fix mode and status, whether it was simulated, and the fix's `time`. The
/// `receivedAt` of a point read back is its `time`; `climb` and `device` are not kept.
public struct RoutePoint: Sendable, Hashable {
    /// The point's position in its route, from 0, without gaps.
    public var ordinal: Int
    /// The segment it belongs to, from 0: a pause in the workout starts a new segment.
    public var segment: Int
    /// The fix.
    public var location: Location
    /// GPX extensions of the point that no known namespace claimed, as XML elements carrying
    /// their namespace declarations: kept from an import (`GPXPoint/unknownExtensions`) and
    /// written back by a GPX export. `nil` for most points.
    public var unknownExtensions: String?

    /// A point at `ordinal` in `segment`.
    public init(ordinal: Int, segment: Int, location: Location, unknownExtensions: String? = nil) {
        self.ordinal = ordinal
        self.segment = segment
        self.location = location
        self.unknownExtensions = unknownExtensions
    }
}

/// A finished route attached to a workout, as HealthKit's `HKWorkoutRoute`: a summary; read its
/// points with ``WorkoutStore/routePoints(of:batchSize:)``.
public struct WorkoutRoute: Sendable, Hashable {
    /// The workout the route belongs to.
    public var workoutID: UUID
    /// How many points it has.
    public var pointCount: Int
    /// How many segments (1 when the workout never paused).
    public var segmentCount: Int
    /// The time of its first point.
    public var start: Date
    /// The time of its last point.
    public var end: Date
    /// How many points the builder dropped as exact duplicates of points it already had.
    public var droppedDuplicates: Int
    /// The metadata given to ``RouteBuilder/finishRoute(with:metadata:)``.
    public var metadata: [String: String]

    /// A route summary.
    public init(
        workoutID: UUID, pointCount: Int, segmentCount: Int, start: Date, end: Date,
        droppedDuplicates: Int = 0, metadata: [String: String] = [:]
    ) {
        self.workoutID = workoutID
        self.pointCount = pointCount
        self.segmentCount = segmentCount
        self.start = start
        self.end = end
        self.droppedDuplicates = droppedDuplicates
        self.metadata = metadata
    }
}

/// What a ``WorkoutStore/saveWorkout(_:samples:route:routeMetadata:)`` call did.
public enum SaveOutcome: Sendable, Hashable {
    /// The run is now in the store: its workout, samples and route, all together.
    case saved(workoutID: UUID)
    /// The store already held this run, found by `matchedBy`; nothing was written.
    /// `existingID` is the stored workout's id (different from the one given when the external
    /// id matched).
    case alreadySaved(existingID: UUID, matchedBy: DuplicateKey)

    /// The id of the stored workout, whether this call saved it or found it.
    public var workoutID: UUID {
        switch self {
        case let .saved(id): id
        case let .alreadySaved(id, _): id
        }
    }
}

/// How the store recognised a workout it already held.
public enum DuplicateKey: Sendable, Hashable, CustomStringConvertible {
    /// A stored workout has the same ``WorkoutRecord/id``.
    case id
    /// A stored workout has the same ``WorkoutMetadata/externalID``.
    case externalID(String)

    /// "its id" or "its external id "…"", for messages.
    public var description: String {
        switch self {
        case .id: "its id"
        case let .externalID(value): "its external id \"\(value)\""
        }
    }
}
