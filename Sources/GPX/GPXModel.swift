#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// What a GPX file says, delivered piece by piece by ``GPXReader`` as it parses, so that memory
/// stays flat whatever the file's size. Tracks arrive as `trackStart`, then for each segment
/// `segmentStart`, its points, `segmentEnd`, and finally `trackEnd`; routes likewise without
/// segments. `metadata` arrives once, before the first waypoint, route or track (GPX 1.0's
/// top-level `<name>`, `<time>`... are gathered into it).
public enum GPXEvent: Sendable, Hashable {
    /// The file's `<metadata>` (GPX 1.1) or top-level fields (GPX 1.0), and the root's attributes.
    case metadata(GPXMetadata)
    /// A `<wpt>`.
    case waypoint(GPXPoint)
    /// A `<rte>` begins; its `<rtept>`s follow as `routePoint`.
    case routeStart(GPXPathInfo)
    /// An `<rtept>`.
    case routePoint(GPXPoint)
    /// The `<rte>` ends.
    case routeEnd
    /// A `<trk>` begins.
    case trackStart(GPXPathInfo)
    /// A `<trkseg>` begins.
    case segmentStart
    /// A `<trkpt>`.
    case trackPoint(GPXPoint)
    /// The `<trkseg>` ends.
    case segmentEnd
    /// The `<trk>` ends. Its name, type... are repeated here, as a `<trk>` may put them after
    /// its segments.
    case trackEnd(GPXPathInfo)
}

/// The file-level facts: version, creator, and the `<metadata>` block.
public struct GPXMetadata: Sendable, Hashable {
    /// `1.0` or `1.1`, from the root's `version` attribute or its namespace; `nil` when absent.
    public var version: String?
    /// The root's `creator` attribute.
    public var creator: String?
    public var name: String?
    public var description: String?
    public var author: String?
    /// The metadata's `<time>`.
    public var time: GPXTime?
    public var keywords: String?

    public init(
        version: String? = nil, creator: String? = nil, name: String? = nil, description: String? = nil,
        author: String? = nil, time: GPXTime? = nil, keywords: String? = nil
    ) {
        self.version = version
        self.creator = creator
        self.name = name
        self.description = description
        self.author = author
        self.time = time
        self.keywords = keywords
    }
}

/// The descriptive fields of a `<trk>` or `<rte>`.
public struct GPXPathInfo: Sendable, Hashable {
    /// Its position among the file's tracks (or routes), from 0.
    public var index: Int
    public var name: String?
    public var comment: String?
    public var description: String?
    public var source: String?
    /// `<type>`: free text such as `running`, `Biking`, `hiking`.
    public var type: String?
    /// `<number>`.
    public var number: Int?
    /// The line of its start tag.
    public var line: Int
    /// A track's `<extensions>` children, each as XML text with its namespace declarations (as a
    /// point's ``GPXPoint/unknownExtensions``), read before its first `<trkseg>` (GPX 1.1 puts them
    /// there), so they come with ``GPXEvent/trackStart(_:)``.
    public var extensions: [String] = []

    /// The most ``extensions`` a track keeps (the rest are dropped and reported): a file of
    /// a million extension elements must not grow the reader with it.
    public static let maximumExtensions = 100_000

    public init(
        index: Int, name: String? = nil, comment: String? = nil, description: String? = nil,
        source: String? = nil, type: String? = nil, number: Int? = nil, line: Int = 0
    ) {
        self.index = index
        self.name = name
        self.comment = comment
        self.description = description
        self.source = source
        self.type = type
        self.number = number
        self.line = line
    }
}

/// A time from a GPX file: the instant (UTC), and the offset from UTC it was written with, kept
/// for display (`2024-05-01T09:15:00+01:15` is `08:00:00Z` with an offset of 4,500 s). It is the
/// package's one parsed-time type, `RFC3339/Timestamp`.
public typealias GPXTime = RFC3339.Timestamp

/// One `<wpt>`, `<rtept>` or `<trkpt>` with everything GPX 1.0, 1.1 and the known extensions
/// carry. Absent values are `nil`, never NaN.
public struct GPXPoint: Sendable, Hashable {
    /// WGS84 degrees, within -90...90.
    public var latitude: Double
    /// WGS84 degrees, within -180...180.
    public var longitude: Double
    /// `<ele>`, metres.
    public var elevation: Double?
    /// `<time>`.
    public var time: GPXTime?
    public var name: String?
    /// `<cmt>`.
    public var comment: String?
    /// `<desc>`.
    public var description: String?
    /// `<sym>`: the symbol a map shows for a waypoint.
    public var symbol: String?
    /// `<type>`.
    public var type: String?
    /// `<hdop>`, `<vdop>`, `<pdop>`.
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// `<sat>`.
    public var satellites: Int?
    /// `<fix>`: `none`, `2d`, `3d`, `dgps` or `pps` (other text is kept as written).
    public var fix: String?
    /// Speed in m/s: GPX 1.0's `<speed>`, or an extension's (TrackPointExtension v2 `speed`).
    public var speed: Double?
    /// Course in degrees true: GPX 1.0's `<course>`, or an extension's.
    public var course: Double?
    /// Heart rate, beats per minute (TrackPointExtension `hr`, gpxdata `hr`, `heartrate`).
    public var heartRate: Double?
    /// Cadence, revolutions or steps per minute (TrackPointExtension `cad`, gpxdata `cadence`).
    public var cadence: Double?
    /// Power in watts (`PowerInWatts`, `power`).
    public var power: Double?
    /// Air temperature, °C (TrackPointExtension `atemp`, gpxdata `temp`).
    public var airTemperature: Double?
    /// Water temperature, °C (TrackPointExtension `wtemp`).
    public var waterTemperature: Double?
    /// Depth, metres (TrackPointExtension `depth`).
    public var depth: Double?
    /// Distance from the start as the device counted it, metres (gpxdata `distance`).
    public var distance: Double?
    /// The point's `<extensions>` children that no known namespace claimed, as XML text with their
    /// namespace declarations, to write back unchanged on export.
    public var unknownExtensions: [String]
    /// The line of its start tag, for reports.
    public var line: Int

    public init(
        latitude: Double, longitude: Double, elevation: Double? = nil, time: GPXTime? = nil,
        name: String? = nil, comment: String? = nil, description: String? = nil, symbol: String? = nil,
        type: String? = nil, hdop: Double? = nil, vdop: Double? = nil, pdop: Double? = nil,
        satellites: Int? = nil, fix: String? = nil, speed: Double? = nil, course: Double? = nil,
        heartRate: Double? = nil, cadence: Double? = nil, power: Double? = nil,
        airTemperature: Double? = nil, waterTemperature: Double? = nil, depth: Double? = nil,
        distance: Double? = nil, unknownExtensions: [String] = [], line: Int = 0
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.time = time
        self.name = name
        self.comment = comment
        self.description = description
        self.symbol = symbol
        self.type = type
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.satellites = satellites
        self.fix = fix
        self.speed = speed
        self.course = course
        self.heartRate = heartRate
        self.cadence = cadence
        self.power = power
        self.airTemperature = airTemperature
        self.waterTemperature = waterTemperature
        self.depth = depth
        self.distance = distance
        self.unknownExtensions = unknownExtensions
        self.line = line
    }
}

/// A point (or value) the reader skipped, and why: reported instead of failing, unless
/// ``GPXReadOptions/strict`` is set.
public struct GPXSkip: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    /// The column, or 0 when only the line is known.
    public var column: Int
    /// What was wrong, as a person reads it: `latitude 91 is outside -90...90`.
    public var reason: String

    public init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `line 12, column 5: reason`; `line 12: reason` when only the line is known (column 0).
    public var description: String {
        column > 0 ? "line \(line), column \(column): \(reason)" : "line \(line): \(reason)"
    }

    /// `FILE:LINE:COLUMN: reason` (`FILE:LINE: reason` without a column), as compilers write.
    public func located(in file: String) -> String {
        column > 0 ? "\(file):\(line):\(column): \(reason)" : "\(file):\(line): \(reason)"
    }
}

/// How ``GPXReader`` reads.
public struct GPXReadOptions: Sendable, Hashable {
    /// Fail on the first invalid value instead of skipping its point.
    public var strict: Bool
    /// The deepest element nesting accepted.
    public var maximumDepth: Int
    /// The longest text (or attribute value) accepted, in bytes.
    public var maximumTextLength: Int

    public init(strict: Bool = false, maximumDepth: Int = 64, maximumTextLength: Int = 1 << 20) {
        self.strict = strict
        self.maximumDepth = maximumDepth
        self.maximumTextLength = maximumTextLength
    }
}

/// Why a GPX file could not be read. Each case names the file and, where the parser had reached
/// one, the line and column.
public enum GPXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read (or a `.gz` was corrupt).
    case unreadable(file: String, reason: String)
    /// The XML is not well formed, or is not GPX (no `<gpx>` root).
    case malformed(file: String, line: Int, column: Int, reason: String)
    /// A DOCTYPE, entity declaration or entity reference: refused, as they allow XXE and
    /// billion-laughs attacks and GPX has no use for them.
    case refused(file: String, line: Int, column: Int, reason: String)
    /// Deeper nesting or longer text than ``GPXReadOptions`` allows.
    case limitExceeded(file: String, line: Int, column: Int, reason: String)
    /// An invalid value in strict mode.
    case invalidValue(file: String, line: Int, column: Int, reason: String)
    /// The event handler threw; its error is described here.
    case handlerFailed(file: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason):
            "cannot read \(file): \(reason)"
        case let .malformed(file, 0, _, reason):
            "\(file): \(reason)"
        case let .malformed(file, line, column, reason):
            "\(file):\(line):\(column): malformed GPX: \(reason)"
        case let .refused(file, line, column, reason):
            "\(file):\(line):\(column): refused: \(reason)"
        case let .limitExceeded(file, line, column, reason):
            "\(file):\(line):\(column): limit exceeded: \(reason)"
        case let .invalidValue(file, line, column, reason):
            "\(file):\(line):\(column): invalid value: \(reason)"
        case let .handlerFailed(file, line, reason):
            "\(file):\(line): stopped reading: \(reason)"
        }
    }
}

/// What a whole read found, returned by ``GPXReader`` when it ends.
public struct GPXReadSummary: Sendable, Hashable {
    public var file: String
    public var tracks = 0
    public var segments = 0
    public var trackPoints = 0
    public var routes = 0
    public var routePoints = 0
    public var waypoints = 0
    /// Points and values skipped, in file order.
    public var skipped: [GPXSkip] = []
    /// The encoding the file declared or began with (`UTF-8`, `ISO-8859-1`...).
    public var encoding: String?
    /// Whether the file was gzip-compressed.
    public var compressed = false

    public init(file: String) {
        self.file = file
    }
}

// The reader (GPXReader.swift, next to this file) has this shape:
//
//     public struct GPXReader: Sendable {
//         public init(options: GPXReadOptions = GPXReadOptions())
//         /// Reads the file at `path` (plain, or gzip-compressed whatever its name), calling
//         /// `handler` for each event in file order, on the caller's thread.
//         public func read(
//             fileAt path: String,
//             progress: ((_ bytesRead: Int64, _ totalBytes: Int64?) -> Void)? = nil,
//             handler: (GPXEvent) throws -> Void
//         ) throws(GPXError) -> GPXReadSummary
//         /// The same from bytes in memory (tests, fuzzing); `name` stands for the file in errors.
//         public func read(data: Data, name: String, handler: (GPXEvent) throws -> Void) throws(GPXError) -> GPXReadSummary
//     }
