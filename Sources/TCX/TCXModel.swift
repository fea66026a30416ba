#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import GPX

/// What a TCX file (Garmin Training Center Database v2) says, delivered piece by piece by
/// ``TCXReader`` as it parses, so that memory stays flat whatever the file's size. An activity
/// arrives as `activityStart`, then for each lap `lapStart`, its tracks (`trackStart`, their
/// points, `trackEnd`) and `lapEnd` with the lap's totals, and finally `activityEnd` with what the
/// activity says after its laps (its creator, its notes). A course (a route to follow, not a
/// recorded workout) arrives as one `course`.
public enum TCXEvent: Sendable, Hashable {
    /// An `<Activity>` begins.
    case activityStart(TCXActivityStart)
    /// A `<Lap>` begins.
    case lapStart(TCXLapStart)
    /// A `<Track>` of the lap begins: devices start a new one after each pause.
    case trackStart(line: Int)
    /// A `<Trackpoint>` with a valid time.
    case trackpoint(TCXTrackpoint)
    /// The `<Track>` ends.
    case trackEnd
    /// The `<Lap>` ends: its totals, as the device worked them out.
    case lapEnd(TCXLap)
    /// The `<Activity>` ends.
    case activityEnd(TCXActivity)
    /// A `<Course>`: not a workout, reported so an importer can say so.
    case course(TCXCourse)
}

/// The start of an `<Activity>`.
public struct TCXActivityStart: Sendable, Hashable {
    /// Its position among the file's activities, from 0.
    public var index: Int
    /// Its `Sport` attribute: `Running`, `Biking` or `Other`.
    public var sport: String?
    /// The line of its start tag.
    public var line: Int

    /// An activity's start.
    public init(index: Int, sport: String?, line: Int) {
        (self.index, self.sport, self.line) = (index, sport, line)
    }
}

/// An `<Activity>` as a whole, once read: what it says outside its laps.
public struct TCXActivity: Sendable, Hashable {
    /// Its position among the file's activities, from 0.
    public var index: Int
    /// Its `Sport` attribute.
    public var sport: String?
    /// Its `<Id>`: the time it began, by convention.
    public var id: GPXTime?
    /// Its `<Notes>`.
    public var notes: String?
    /// Its `<Creator>`'s `<Name>` (the device: "Forerunner 305").
    public var creator: String?
    /// The line of its start tag.
    public var line: Int
    /// How many laps it had.
    public var laps: Int
    /// How many of its track points were skipped for want of a valid time (reported in ``TCXReadSummary/skipped``).
    public var pointsWithoutTime = 0
    /// The `<Extensions>` children of the activity in namespaces other than TCX's and
    /// ActivityExtension's, each as XML text with its namespace declarations.
    public var extensions: [String] = []
    /// The most ``extensions`` an activity keeps (the others are dropped).
    public static let maximumExtensions = 1_000

    /// An activity.
    public init(index: Int, sport: String?, id: GPXTime? = nil, notes: String? = nil, creator: String? = nil, line: Int, laps: Int) {
        (self.index, self.sport, self.id, self.notes, self.creator, self.line, self.laps) = (index, sport, id, notes, creator, line, laps)
    }
}

/// The start of a `<Lap>`.
public struct TCXLapStart: Sendable, Hashable {
    /// Its position in the activity, from 0.
    public var index: Int
    /// Its `StartTime` attribute.
    public var startTime: GPXTime?
    /// The line of its start tag.
    public var line: Int

    /// A lap's start.
    public init(index: Int, startTime: GPXTime?, line: Int) {
        (self.index, self.startTime, self.line) = (index, startTime, line)
    }
}

/// A `<Lap>`'s totals, as the device worked them out.
public struct TCXLap: Sendable, Hashable {
    /// Its position in the activity, from 0.
    public var index: Int
    /// Its `StartTime`.
    public var startTime: GPXTime?
    /// `<TotalTimeSeconds>`: the timer's time (pauses left out), seconds.
    public var totalTime: Double?
    /// `<DistanceMeters>`, metres.
    public var distance: Double?
    /// `<MaximumSpeed>`, m/s.
    public var maximumSpeed: Double?
    /// `<Calories>`, kilocalories.
    public var calories: Double?
    /// `<AverageHeartRateBpm>` and `<MaximumHeartRateBpm>`.
    public var averageHeartRate: Double?
    /// `<MaximumHeartRateBpm>`.
    public var maximumHeartRate: Double?
    /// `<Cadence>`, rpm.
    public var cadence: Double?
    /// `<Intensity>`: `Active` or `Resting`.
    public var intensity: String?
    /// `<TriggerMethod>`: `Manual`, `Distance`, `Location`, `Time` or `HeartRate`.
    public var triggerMethod: String?
    /// The ActivityExtension v2 `<LX>`'s `AvgSpeed` (m/s), `AvgWatts` and `MaxWatts`.
    public var averageSpeed: Double?
    /// The `<LX>`'s `AvgWatts`.
    public var averageWatts: Double?
    /// The `<LX>`'s `MaxWatts`.
    public var maximumWatts: Double?
    /// The line of its start tag.
    public var line: Int

    /// A lap of those totals (for writers and tests).
    public init(index: Int, startTime: GPXTime? = nil, line: Int = 0) {
        self.index = index
        self.startTime = startTime
        self.line = line
    }
}

/// A `<Trackpoint>`: a moment of the activity, with or without a position.
public struct TCXTrackpoint: Sendable, Hashable {
    /// `<Time>`.
    public var time: GPXTime
    /// `<Position>`, degrees: both or neither.
    public var latitude: Double?
    /// The longitude, degrees (see ``latitude``).
    public var longitude: Double?
    /// `<AltitudeMeters>`.
    public var altitude: Double?
    /// `<DistanceMeters>`: the distance covered since the start, as the device counted it.
    public var distance: Double?
    /// `<HeartRateBpm>`.
    public var heartRate: Double?
    /// `<Cadence>` (a bike's, rpm), or the ActivityExtension's `<RunCadence>` (steps per minute
    /// per foot, as Garmin writes it).
    public var cadence: Double?
    /// The ActivityExtension's `<Speed>`, m/s.
    public var speed: Double?
    /// The ActivityExtension's `<Watts>`.
    public var power: Double?
    /// The `<Extensions>` children of the point in namespaces other than ActivityExtension's
    /// (its `TPX`), each as XML text with its namespace declarations.
    public var extensions: [String] = []
    /// The line of its start tag.
    public var line: Int

    /// A point at `time` (for writers and tests).
    public init(time: GPXTime, line: Int = 0) {
        self.time = time
        self.line = line
    }

    /// Whether it has a position.
    public var hasPosition: Bool { latitude != nil && longitude != nil }
}

/// A `<Course>`: a route to follow, not a recorded workout. Its track's positions and its
/// course points are kept whole (a course is a planned route of some thousands of points, read
/// once to follow it, not a recording of any length).
public struct TCXCourse: Sendable, Hashable {
    /// Its position among the file's courses, from 0.
    public var index: Int
    /// Its `<Name>`.
    public var name: String?
    /// Its track points.
    public var trackpoints: Int
    /// The line of its start tag.
    public var line: Int
    /// The track points with a valid position, in order: its `<Track>`s joined.
    public var positions: [TCXCoursePosition] = []
    /// Its `<CoursePoint>`s with a valid position, in file order.
    public var points: [TCXCoursePoint] = []

    /// A course.
    public init(index: Int, name: String?, trackpoints: Int, line: Int) {
        (self.index, self.name, self.trackpoints, self.line) = (index, name, trackpoints, line)
    }
}

/// A `<Trackpoint>` of a course's track: where the course goes.
public struct TCXCoursePosition: Sendable, Hashable {
    /// `<Position>`, degrees.
    public var latitude: Double
    /// The longitude, degrees.
    public var longitude: Double
    /// `<AltitudeMeters>`.
    public var altitude: Double?
    /// `<DistanceMeters>`: metres from the course's start, as its maker measured them.
    public var distance: Double?
    /// The line of its start tag.
    public var line: Int

    /// A position of a course.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil, distance: Double? = nil, line: Int = 0) {
        (self.latitude, self.longitude, self.altitude, self.distance, self.line) = (latitude, longitude, altitude, distance, line)
    }
}

/// A `<CoursePoint>`: a point of a course a device announces (a turn, water, a summit).
public struct TCXCoursePoint: Sendable, Hashable {
    /// `<Name>` (TCX allows 10 characters; longer names are kept as written).
    public var name: String?
    /// `<Position>`, degrees.
    public var latitude: Double
    /// The longitude, degrees.
    public var longitude: Double
    /// `<AltitudeMeters>`.
    public var altitude: Double?
    /// `<PointType>`: `Generic`, `Summit`, `Valley`, `Water`, `Food`, `Danger`, `Left`, `Right`,
    /// `Straight`, `First Aid`, `4th Category`, `3rd Category`, `2nd Category`, `1st Category`,
    /// `Hors Category` or `Sprint`, as written.
    public var pointType: String?
    /// `<Notes>`.
    public var notes: String?
    /// The line of its start tag.
    public var line: Int

    /// A course point.
    public init(name: String?, latitude: Double, longitude: Double, altitude: Double? = nil, pointType: String? = nil, notes: String? = nil, line: Int = 0) {
        (self.name, self.latitude, self.longitude, self.altitude) = (name, latitude, longitude, altitude)
        (self.pointType, self.notes, self.line) = (pointType, notes, line)
    }
}

/// How ``TCXReader`` reads.
public struct TCXReadOptions: Sendable, Hashable {
    /// Fail on the first invalid value instead of skipping it (or its point, for a bad time).
    public var strict: Bool
    /// The deepest element nesting accepted.
    public var maximumDepth: Int
    /// The longest text (or attribute value) accepted, in bytes.
    public var maximumTextLength: Int

    /// Options: lenient, 64 levels, 1 MB of text.
    public init(strict: Bool = false, maximumDepth: Int = 64, maximumTextLength: Int = 1 << 20) {
        self.strict = strict
        self.maximumDepth = maximumDepth
        self.maximumTextLength = maximumTextLength
    }
}

/// What a whole read found, returned by ``TCXReader`` when it ends.
public struct TCXReadSummary: Sendable, Hashable {
    /// The file, as given.
    public var file: String
    /// Activities read.
    public var activities = 0
    /// Laps read.
    public var laps = 0
    /// Tracks read.
    public var tracks = 0
    /// Track points delivered.
    public var trackpoints = 0
    /// Courses read.
    public var courses = 0
    /// Points and values skipped, in file order, with their lines: the first
    /// ``maximumSkipsListed``; ``skippedCount`` counts them all.
    public var skipped: [GPXSkip] = []
    /// How many points and values were skipped, listed in ``skipped`` or not.
    public var skippedCount = 0
    /// Whether the file was gzip-compressed.
    public var compressed = false

    /// An empty summary of `file`.
    public init(file: String) {
        self.file = file
    }

    /// The most skips ``skipped`` lists: a file of a million bad points must not grow the summary
    /// with the input.
    public static let maximumSkipsListed = 1_000

    /// Adds a skip: listed while fewer than ``maximumSkipsListed`` are, counted always.
    mutating func add(_ skip: GPXSkip) {
        skippedCount += 1
        if skipped.count < Self.maximumSkipsListed { skipped.append(skip) }
    }
}

/// Why a TCX file could not be read. Each case names the file and, where the parser had reached
/// one, the line and column.
public enum TCXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read (or a `.gz` was damaged).
    case unreadable(file: String, reason: String)
    /// The XML is not well formed, or is not TCX (no `<TrainingCenterDatabase>` root).
    case malformed(file: String, line: Int, column: Int, reason: String)
    /// A DOCTYPE, entity declaration or entity reference: refused, as they allow XXE and
    /// billion-laughs attacks and TCX has no use for them.
    case refused(file: String, line: Int, column: Int, reason: String)
    /// Deeper nesting or longer text than ``TCXReadOptions`` allows.
    case limitExceeded(file: String, line: Int, column: Int, reason: String)
    /// An invalid value in strict mode.
    case invalidValue(file: String, line: Int, column: Int, reason: String)
    /// The event handler threw; its error is described here.
    case handlerFailed(file: String, line: Int, reason: String)

    /// `FILE:LINE:COLUMN: malformed TCX: ...`.
    public var description: String {
        switch self {
        case let .unreadable(file, reason): "cannot read \(file): \(reason)"
        case let .malformed(file, 0, _, reason): "\(file): \(reason)"
        case let .malformed(file, line, column, reason): "\(file):\(line):\(column): malformed TCX: \(reason)"
        case let .refused(file, line, column, reason): "\(file):\(line):\(column): refused: \(reason)"
        case let .limitExceeded(file, line, column, reason): "\(file):\(line):\(column): limit exceeded: \(reason)"
        case let .invalidValue(file, line, column, reason): "\(file):\(line):\(column): invalid value: \(reason)"
        case let .handlerFailed(file, line, reason): "\(file):\(line): stopped reading: \(reason)"
        }
    }
}
