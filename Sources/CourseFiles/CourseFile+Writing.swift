#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import FIT
import GPX
import Navigation

/// The formats a course is written as.
public enum CourseExportFormat: String, Sendable, Hashable, CaseIterable {
    /// A FIT course file, as head units load them.
    case fit
    /// A GPX 1.1 route, its cues and points of interest as waypoints.
    case gpx

    /// The usual file name extension: `fit`, `gpx`.
    public var fileExtension: String { rawValue }
}

/// How a FIT course is written: its sport, and the times of its records (a device's virtual
/// partner rides at `speed` from `start`).
public struct CourseFITOptions: Sendable, Hashable {
    /// The `course` message's sport.
    public var sport: FITSport
    /// Metres per second between the records' times (default 5, 18 km/h).
    public var speed: Double
    /// The time of the first record and of the file.
    public var start: Date

    public init(sport: FITSport = .cycling, speed: Double = 5, start: Date = Date()) {
        self.sport = sport
        self.speed = speed
        self.start = start
    }
}

extension CourseFile {
    /// The `course` message's `capabilities` we write: processed, valid, time, distance and
    /// position (FIT's `course_capabilities` bits 0x01-0x10), what the file holds. gpsbabel's
    /// writer leaves the field out; Garmin's profile defines it for the device to check.
    public static let fitCapabilities: UInt32 = 0x01 | 0x02 | 0x04 | 0x08 | 0x10

    /// Writes `course` to `path` in `format`, whole (a temporary file renamed into place).
    ///
    /// - Throws: ``CourseFileError/cannotWrite(file:reason:)``.
    public static func write(_ course: Course, as format: CourseExportFormat, toFileAt path: String, fit options: CourseFITOptions = CourseFITOptions()) throws(CourseFileError) {
        let bytes = data(of: course, as: format, fit: options)
        let temporary = path + ".partial-\(getpid())"
        func failure() -> CourseFileError { .cannotWrite(file: path, reason: String(cString: strerror(errno))) }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure() }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { all in
                let rest = UnsafeRawBufferPointer(rebasing: all[written...])
                return Glibc.write(descriptor, rest.baseAddress, rest.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                let error = failure()
                close(descriptor)
                unlink(temporary)
                throw error
            }
            written += count
        }
        guard close(descriptor) == 0, rename(temporary, path) == 0 else {
            let error = failure()
            unlink(temporary)
            throw error
        }
    }

    /// The bytes of `course` in `format`.
    public static func data(of course: Course, as format: CourseExportFormat, fit options: CourseFITOptions = CourseFITOptions()) -> [UInt8] {
        switch format {
        case .fit: fit(course, options: options)
        case .gpx: gpx(course)
        }
    }

    /// A FIT course file (`file_id` type 6), laid out as Garmin's course files are: `file_id`,
    /// `course` (name, sport, ``fitCapabilities``), one `lap` (start and end, total distance and
    /// time), a timer start `event`, a `record` per position (position, distance, altitude, and a
    /// time at `options.speed`), the timer's `stop_disable_all`, and a `course_point` per cue and
    /// point of interest (type, name, distance, position, time). A course point's name is cut to
    /// 15 bytes (whole characters), as gpsbabel writes them and head units show them; the course's
    /// to 31.
    public static func fit(_ course: Course, options: CourseFITOptions = CourseFITOptions()) -> [UInt8] {
        let start = FITTime.value(fromSeconds: options.start.timeIntervalSince1970) ?? FITTime.minimumDate
        let speed = options.speed > 0 ? options.speed : 5
        func time(at distance: Double) -> Int64 { Int64(start) + Int64((distance / speed).rounded()) }
        func field(_ number: UInt8, _ type: FITBaseType, size: Int? = nil) -> FITFieldDefinition {
            FITFieldDefinition(number: number, baseType: type, size: size)
        }
        func semicircles(_ degrees: Double) -> FITValue { .integer(Int64(FITSemicircles.semicircles(degrees))) }
        func centimetres(_ metres: Double) -> FITValue { .integer(Int64((metres * 100).rounded())) }
        let line = course.line
        let end = time(at: course.length)
        let first = line.points[0], last = line.points[line.points.count - 1]
        return FITWriter.file { writer in
            writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [
                field(0, .enumeration), field(1, .uint16), field(2, .uint16), field(4, .uint32),
            ])
            writer.write(localType: 0, values: [
                .integer(Int64(FITFileType.course.rawValue)), .integer(Int64(FITManufacturer.development)), .integer(0), .integer(Int64(start)),
            ])
            writer.define(localType: 1, globalNumber: FITMessageNumber.course, fields: [
                field(FITCourseReader.CourseField.name, .string, size: 32), field(FITCourseReader.CourseField.sport, .enumeration),
                field(FITCourseReader.CourseField.capabilities, .uint32z),
            ])
            writer.write(localType: 1, values: [
                course.name.map(FITValue.string), .integer(Int64(options.sport.rawValue)), .integer(Int64(fitCapabilities)),
            ])
            writer.define(localType: 2, globalNumber: FITMessageNumber.lap, fields: [
                field(FITField.timestamp, .uint32), field(2, .uint32), field(3, .sint32), field(4, .sint32), field(5, .sint32), field(6, .sint32),
                field(7, .uint32), field(8, .uint32), field(9, .uint32),
            ])
            let elapsed = FITValue.integer((end - Int64(start)) * 1000)
            writer.write(localType: 2, values: [
                .integer(end), .integer(Int64(start)), semicircles(first.latitude), semicircles(first.longitude),
                semicircles(last.latitude), semicircles(last.longitude), elapsed, elapsed, centimetres(course.length),
            ])
            writer.define(localType: 3, globalNumber: FITMessageNumber.event, fields: [
                field(FITField.timestamp, .uint32), field(0, .enumeration), field(1, .enumeration), field(4, .uint8),
            ])
            // The timer: `start` (0) and `stop_disable_all` (9), as Garmin's course files have it.
            writer.write(localType: 3, values: [.integer(Int64(start)), .integer(Int64(FITEventMessage.timer)), .integer(0), .integer(0)])
            writer.define(localType: 4, globalNumber: FITMessageNumber.record, fields: [
                field(FITField.timestamp, .uint32), field(FITCourseReader.Record.latitude, .sint32), field(FITCourseReader.Record.longitude, .sint32),
                field(FITCourseReader.Record.distance, .uint32), field(FITCourseReader.Record.altitude, .uint16),
            ])
            for (index, point) in line.points.enumerated() {
                let distance = line.distances[index]
                let altitude = course.elevations[index].map { FITValue.integer(Int64((($0 + 500) * 5).rounded())) }
                writer.write(localType: 4, values: [
                    .integer(time(at: distance)), semicircles(point.latitude), semicircles(point.longitude), centimetres(distance), altitude,
                ])
            }
            writer.write(localType: 3, values: [.integer(end), .integer(Int64(FITEventMessage.timer)), .integer(9), .integer(0)])
            writer.define(localType: 5, globalNumber: FITMessageNumber.coursePoint, fields: [
                field(FITField.messageIndex, .uint16), field(FITCourseReader.Point.timestamp, .uint32),
                field(FITCourseReader.Point.latitude, .sint32), field(FITCourseReader.Point.longitude, .sint32),
                field(FITCourseReader.Point.distance, .uint32), field(FITCourseReader.Point.type, .enumeration),
                field(FITCourseReader.Point.name, .string, size: 16),
            ])
            for (index, point) in course.points.enumerated() {
                writer.write(localType: 5, values: [
                    .integer(Int64(index)), .integer(time(at: point.distance)), semicircles(point.coordinate.latitude),
                    semicircles(point.coordinate.longitude), centimetres(point.distance), .integer(Int64(point.kind.fitValue)),
                    .string(point.name ?? point.kind.displayName),
                ])
            }
        }
    }

    /// A GPX 1.1 document: each cue and point of interest as a `<wpt>` with its `<name>` and its
    /// kind as `<type>` (FIT's name: `left`, `water`), then the course as one `<rte>` of `<rtept>`s
    /// with their elevations.
    public static func gpx(_ course: Course, creator: String = "swift-gps-facade") -> [UInt8] {
        var bytes: [UInt8] = []
        GPXWriter.appendHeader(creator: creator, to: &bytes)
        for point in course.points {
            var waypoint = GPXPoint(latitude: point.coordinate.latitude, longitude: point.coordinate.longitude)
            waypoint.name = point.name ?? point.kind.displayName
            waypoint.type = point.kind.rawValue
            GPXWriter.appendWaypoint(waypoint, to: &bytes)
        }
        GPXWriter.appendRouteStart(name: course.name, to: &bytes)
        for (index, position) in course.line.points.enumerated() {
            var point = GPXPoint(latitude: position.latitude, longitude: position.longitude)
            point.elevation = course.elevations[index]
            GPXWriter.appendRoutePoint(point, to: &bytes)
        }
        GPXWriter.appendRouteEnd(to: &bytes)
        GPXWriter.appendFooter(to: &bytes)
        return bytes
    }
}
