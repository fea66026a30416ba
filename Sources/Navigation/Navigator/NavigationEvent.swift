#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Geometry
import GPSCore

/// Where the rider is with respect to the course.
public enum NavigationState: String, Sendable, Hashable, Codable {
    /// No usable fix yet, or the latest fix is not usable (no fix, or worse than
    /// ``NavigatorConfiguration/maximumAccuracy``).
    case unknown
    case onCourse = "on-course"
    case offCourse = "off-course"
    case finished
}

/// Something the rider is told, at a fix.
public enum NavigationEvent: Sendable, Hashable {
    /// The rider is on the course for the first time, `distanceAlong` metres from its start
    /// (joined halfway: not 0).
    case joined
    /// Off the course for ``NavigatorConfiguration/offCourseFixes`` fixes.
    case offCourse
    /// Back on the course (perhaps at a later part: a shortcut).
    case backOnCourse
    /// Moving against the course.
    case wrongWay
    /// Moving along the course again after ``wrongWay``.
    case rightWay
    /// A cue `distance` metres ahead along the course: said at the first fix within each of
    /// ``NavigatorConfiguration/cueAnnouncements`` (only the nearest of them when the rider joins
    /// within several), and `now` within ``NavigatorConfiguration/cueNow`` (or at the first fix past
    /// it, `distance` then 0).
    case cue(CoursePoint, distance: Double, now: Bool)
    /// A climb begins.
    case climbStart(Climb)
    /// The top of a climb.
    case climbTop(Climb)
    /// The finish.
    case finished

    /// The event's name in JSON lines: `joined`, `off-course`, `back-on-course`, `wrong-way`,
    /// `right-way`, `cue`, `climb-start`, `climb-top`, `finished`.
    public var name: String {
        switch self {
        case .joined: "joined"
        case .offCourse: "off-course"
        case .backOnCourse: "back-on-course"
        case .wrongWay: "wrong-way"
        case .rightWay: "right-way"
        case .cue: "cue"
        case .climbStart: "climb-start"
        case .climbTop: "climb-top"
        case .finished: "finished"
        }
    }

    /// The event in words, for a line a person reads: its ``name`` and, for a cue, what and how
    /// far (`cue Left in 300 m`, `cue Left now`), for a climb's start its length, grade and
    /// ascent (`climb-start 1200 m at 6.1 %, 73 m up`).
    public var text: String {
        switch self {
        case let .cue(point, distance, now):
            "\(name) \(point.name ?? point.kind.displayName) " + (now ? "now" : "in \(Int(distance.rounded())) m")
        case let .climbStart(climb):
            "\(name) \(Int(climb.length.rounded())) m at \(TextBytes.fixed(climb.grade * 100, decimals: 1)) %, \(Int(climb.ascent.rounded())) m up"
        default:
            name
        }
    }
}

/// What the navigator knows after a fix.
public struct NavigationProgress: Sendable, Hashable {
    /// The fix's time (its own, else when it came).
    public var time: Date
    public var state: NavigationState
    /// Metres along the course done, and to go. Held while off course or without a fix.
    public var distanceAlong: Double
    public var distanceToGo: Double
    /// Metres from the course, positive left of it and negative right of it (looking along it),
    /// nil without a usable fix.
    public var crossTrack: Double?
    /// Whether the rider is moving against the course.
    public var isWrongWay: Bool
    /// The next cue ahead and the metres along the course to it.
    public var nextCue: CoursePoint?
    public var distanceToNextCue: Double?
    /// The climb the rider is on, metres and metres of ascent left of it.
    public var climb: Climb?
    public var climbDistanceLeft: Double?
    public var climbAscentLeft: Double?
    /// The next climb ahead and the metres to its foot.
    public var nextClimb: Climb?
    public var distanceToNextClimb: Double?
    /// The next point of the course ahead (a cue or a point of interest), or the finish: its
    /// position, name, and the bearing (degrees true) and straight distance to it from the fix,
    /// and the speed made good towards it (m/s; negative when moving away).
    public var nextPoint: CoursePoint?
    public var bearingToNextPoint: Double?
    public var distanceToNextPoint: Double?
    public var velocityMadeGood: Double?
    /// The moving speed the times ahead are worked out from (m/s), and those times: at the finish
    /// and at the next cue.
    public var movingSpeed: Double?
    public var estimatedFinish: Date?
    public var estimatedNextCue: Date?
}

/// A fix's outcome: the events it caused, in order, and the progress after it.
public struct NavigationUpdate: Sendable, Hashable {
    public var events: [NavigationEvent]
    public var progress: NavigationProgress
}
