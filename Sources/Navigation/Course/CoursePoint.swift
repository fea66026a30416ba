import Geometry

/// What a point of a course is: FIT's `course_point` types (Garmin's FIT profile, `course_point`
/// enum), the vocabulary every head unit shares. Raw values are FIT's names.
public enum CoursePointKind: String, Sendable, Hashable, Codable, CaseIterable {
    case generic, summit, valley, water, food, danger, left, right, straight
    case firstAid = "first_aid"
    case fourthCategory = "fourth_category"
    case thirdCategory = "third_category"
    case secondCategory = "second_category"
    case firstCategory = "first_category"
    case horsCategory = "hors_category"
    case sprint
    case leftFork = "left_fork"
    case rightFork = "right_fork"
    case middleFork = "middle_fork"
    case slightLeft = "slight_left"
    case sharpLeft = "sharp_left"
    case slightRight = "slight_right"
    case sharpRight = "sharp_right"
    case uTurn = "u_turn"
    case segmentStart = "segment_start"
    case segmentEnd = "segment_end"

    /// FIT's number for the type (`course_point` enum, FIT SDK profile).
    public var fitValue: UInt8 {
        UInt8(Self.allCases.firstIndex(of: self) ?? 0)
    }

    /// The kind FIT numbers `value`, or nil for a number this package does not name (FIT's later
    /// types, 27 and up: campsite, aid station, ...; read as ``generic`` by a reader that keeps them).
    public init?(fitValue value: UInt8) {
        guard Int(value) < Self.allCases.count else { return nil }
        self = Self.allCases[Int(value)]
    }

    /// Whether it tells the rider which way to go (a turn, a fork, straight on): a cue.
    public var isTurn: Bool {
        switch self {
        case .left, .right, .straight, .leftFork, .rightFork, .middleFork,
            .slightLeft, .sharpLeft, .slightRight, .sharpRight, .uTurn:
            true
        default:
            false
        }
    }

    /// A short English name for a computed cue ("Slight left").
    public var displayName: String {
        switch self {
        case .generic: "Point"
        case .firstAid: "First aid"
        case .fourthCategory: "Category 4 climb"
        case .thirdCategory: "Category 3 climb"
        case .secondCategory: "Category 2 climb"
        case .firstCategory: "Category 1 climb"
        case .horsCategory: "HC climb"
        case .leftFork: "Left fork"
        case .rightFork: "Right fork"
        case .middleFork: "Middle fork"
        case .slightLeft: "Slight left"
        case .sharpLeft: "Sharp left"
        case .slightRight: "Slight right"
        case .sharpRight: "Sharp right"
        case .uTurn: "U-turn"
        case .segmentStart: "Segment start"
        case .segmentEnd: "Segment end"
        default: rawValue.prefix(1).uppercased() + rawValue.dropFirst()
        }
    }

    /// The kind a waypoint's name or type names, as gpsbabel's FIT writer reads a GPX waypoint
    /// (a word `left` or `right`, case aside, makes a turn; "sharp", "slight" and "u-turn" refine
    /// it), or nil when it names no turn.
    public init?(turnNamedIn text: String) {
        let words = text.lowercased().split { !$0.isLetter && $0 != "-" }.map(String.init)
        let has = { (word: String) in words.contains(word) }
        if has("u-turn") || has("uturn") || (has("u") && has("turn")) {
            self = .uTurn
        } else if has("left") {
            self = has("sharp") ? .sharpLeft : has("slight") || has("bear") ? .slightLeft : has("fork") ? .leftFork : .left
        } else if has("right") {
            self = has("sharp") ? .sharpRight : has("slight") || has("bear") ? .slightRight : has("fork") ? .rightFork : .right
        } else if has("straight") {
            self = .straight
        } else {
            return nil
        }
    }
}

/// A point of a course at its distance along it: a cue (a turn) or a point of interest (water, a
/// summit, a danger).
public struct CoursePoint: Sendable, Hashable, Codable {
    /// Where the point comes from.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// The course's file named it (a FIT `course_point`, a TCX `CoursePoint`, a GPX waypoint).
        case file
        /// Computed from the course's geometry (a turn where the file had none).
        case computed
    }

    public var kind: CoursePointKind
    /// Its name in the file, or the computed cue's ("Slight left").
    public var name: String?
    /// The position: the file's, or for a computed cue the course's vertex at the turn.
    public var coordinate: GeoCoordinate
    /// Metres along the course.
    public var distance: Double
    public var origin: Origin

    public init(kind: CoursePointKind, name: String?, coordinate: GeoCoordinate, distance: Double, origin: Origin = .file) {
        self.kind = kind
        self.name = name
        self.coordinate = coordinate
        self.distance = distance
        self.origin = origin
    }

    /// Whether it is a cue: a turn, a fork, straight on.
    public var isCue: Bool { kind.isTurn }
}

/// A point a course's file names, before it is placed along the course: a FIT `course_point`
/// (with its distance), a TCX `CoursePoint`, a GPX waypoint (without).
public struct CourseWaypoint: Sendable, Hashable {
    public var coordinate: GeoCoordinate
    public var name: String?
    /// Its kind; nil to read it from the name (``CoursePointKind/init(turnNamedIn:)``, else generic).
    public var kind: CoursePointKind?
    /// Metres along the course when the file says (FIT's `distance`); nil to place it at every
    /// pass of the course within ``Course/waypointRadius``.
    public var distance: Double?

    public init(coordinate: GeoCoordinate, name: String? = nil, kind: CoursePointKind? = nil, distance: Double? = nil) {
        self.coordinate = coordinate
        self.name = name
        self.kind = kind
        self.distance = distance
    }
}
