#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import FIT
import GPSCore
import GZipFiles
import Navigation

/// The formats a course is read from.
public enum CourseFileFormat: String, Sendable, Hashable, CaseIterable {
    /// GPX 1.0 or 1.1: a route, else a track, and its waypoints.
    case gpx
    /// A FIT course file (`file_id` type 6).
    case fit
    /// A TCX (Training Center Database v2) course.
    case tcx
    /// GeoJSON (RFC 7946): a LineString or MultiLineString, and named Points.
    case geojson

    /// The format `head` (a file's first bytes, decompressed) begins as: a FIT header, the root
    /// element of XML (`<gpx>`, `<TrainingCenterDatabase>`), or a JSON object; else the one
    /// `fileExtension` (`gpx`, `fit`, `tcx`, `geojson` or `json`, case aside) names.
    public init?(head: [UInt8], fileExtension: String? = nil) {
        if FITReader.looksLikeFIT(head) {
            self = .fit
            return
        }
        switch XMLHead.localRootName(head) {
        case "gpx":
            self = .gpx
            return
        case "TrainingCenterDatabase":
            self = .tcx
            return
        default:
            break
        }
        var start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
        if start < head.count, head[start] == UInt8(ascii: "{") {
            self = .geojson
            return
        }
        switch fileExtension?.lowercased() {
        case "gpx": self = .gpx
        case "fit": self = .fit
        case "tcx": self = .tcx
        case "geojson", "json": self = .geojson
        default: return nil
        }
    }
}

/// Courses read from GPX, FIT, TCX and GeoJSON files, and written as FIT courses and GPX routes.
///
/// ```swift
/// let course = try CourseFile.read(contentsOf: "ride.gpx")
/// print(course.length, course.cues.count)
/// try CourseFile.write(course, as: .fit, toFileAt: "ride.fit")
/// ```
///
/// The format is told from the content (a FIT header, the XML root, a JSON object), the file's
/// extension deciding only where the content does not; `.gz` files are read through zlib. What
/// each format gives the course:
///
/// - GPX: the first route with two points or more (a named `rtept` becomes a course point, a
///   turn when its name says left or right, as gpsbabel reads them), else every track's segments
///   joined; each `wpt` is a point of interest at every pass of the course within
///   `Course.waypointRadius`, of the kind its `type` or name says.
/// - FIT: `record`s with a position (their altitude), the `course` message's name, and each
///   `course_point` with its type, name and position, at its distance along our line.
/// - TCX: the first `Course`: its track's positions and its `CoursePoint`s.
/// - GeoJSON: the line and the named Point features (`GeoJSON.line(contentsOf:)`).
///
/// Where the file gives no cue, turns are computed from the line (`turns`, `TurnRule`).
public enum CourseFile {
    /// The course in the file at `path`.
    ///
    /// - Throws: ``CourseFileError``: `missingFile` when it does not exist or cannot be read,
    ///   `notACourse` when it is not a course (naming where), `tooFewPoints` for fewer than two.
    public static func read(contentsOf path: String, turns: TurnRule? = TurnRule()) throws(CourseFileError) -> Course {
        let bytes = try contents(of: path)
        return try read(bytes: bytes, name: path, fileExtension: Self.fileExtension(of: path), turns: turns)
    }

    /// The course in `bytes` (a file's content, not gzip data), in `format` or, when nil, the
    /// format the content says (then `fileExtension`'s); `name` stands for the file in errors.
    ///
    /// - Throws: ``CourseFileError``: `notACourse` or `tooFewPoints`.
    public static func read(
        bytes: [UInt8], format: CourseFileFormat? = nil, name: String, fileExtension: String? = nil, turns: TurnRule? = TurnRule()
    ) throws(CourseFileError) -> Course {
        guard let format = format ?? CourseFileFormat(head: Array(bytes.prefix(4_096)), fileExtension: fileExtension) else {
            throw .notACourse(file: name, place: "", reason: "it is not a GPX, FIT, TCX or GeoJSON file.")
        }
        let source: CourseSource
        switch format {
        case .gpx: source = try GPXCourseReader.read(bytes, name: name)
        case .fit: source = try FITCourseReader.read(bytes, name: name)
        case .tcx: source = try TCXCourseReader.read(bytes, name: name)
        case .geojson: source = try GeoJSONCourseReader.read(bytes, name: name)
        }
        return try source.course(file: name, turns: turns)
    }

    /// The extension of the file's name, a `.gz` passed over: `gpx` for `ride.gpx.gz`.
    static func fileExtension(of path: String) -> String? {
        var name = Substring(path.split(separator: "/").last ?? Substring(path))
        if name.lowercased().hasSuffix(".gz") { name = name.dropLast(3) }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return String(name[name.index(after: dot)...])
    }

    /// The whole content of the file at `path`, inflated when it is gzip data.
    static func contents(of path: String) throws(CourseFileError) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .missingFile(file: path, reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw .missingFile(file: path, reason: "it is a directory") }
        let input: GZipReader
        do throws(GZipReadError) {
            input = try GZipReader(path: path)
        } catch {
            throw .missingFile(file: path, reason: error.reason)
        }
        var bytes: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do throws(GZipReadError) {
                count = try input.read(into: buffer)
            } catch {
                if case .unreadable = error { throw .missingFile(file: path, reason: error.reason) }
                throw .notACourse(file: path, place: "", reason: error.reason + ".")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        return bytes
    }
}
