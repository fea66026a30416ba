import FIT
import Geometry
import Navigation

/// A course from a FIT course file (`file_id` type 6): its `course` name, its `record`s with a
/// position, and its `course_point`s. Field numbers are the FIT SDK profile's.
enum FITCourseReader {
    /// `record` fields.
    enum Record {
        static let latitude: UInt8 = 0, longitude: UInt8 = 1, altitude: UInt8 = 2, distance: UInt8 = 5, enhancedAltitude: UInt8 = 78
    }
    /// `course_point` fields.
    enum Point {
        static let timestamp: UInt8 = 1, latitude: UInt8 = 2, longitude: UInt8 = 3, distance: UInt8 = 4, type: UInt8 = 5, name: UInt8 = 6
    }
    /// `course` fields.
    enum CourseField {
        static let sport: UInt8 = 4, name: UInt8 = 5, capabilities: UInt8 = 6
    }

    static func read(_ bytes: [UInt8], name file: String) throws(CourseFileError) -> CourseSource {
        var fileType: UInt8?
        var sawFileID = false
        var source = CourseSource()
        /// The file's own distance at each position kept, for placing its course points on our line.
        var fileDistances: [Double?] = []
        var points: [(coordinate: GeoCoordinate?, distance: Double?, kind: CoursePointKind?, name: String?)] = []
        do {
            _ = try FITReader().read(data: bytes, name: file) { event in
                guard case .message(let message) = event, message.fileIndex == 0 else { return }
                switch message.globalNumber {
                case FITMessageNumber.fileID where !sawFileID:
                    sawFileID = true
                    fileType = FITFileID(message)?.type
                case FITMessageNumber.course:
                    source.name = source.name ?? message.string(CourseField.name)
                case FITMessageNumber.record:
                    guard let position = position(message, Record.latitude, Record.longitude) else { return }
                    let altitude = message.number(Record.enhancedAltitude, scale: 5, offset: 500)
                        ?? message.number(Record.altitude, scale: 5, offset: 500)
                    source.append(position, elevation: altitude)
                    fileDistances.append(message.number(Record.distance, scale: 100))
                case FITMessageNumber.coursePoint:
                    let kind = message.integer(Point.type).map { value in
                        // FIT's later types (27 and up: campsite, aid station...) are points of interest.
                        CoursePointKind(fitValue: UInt8(truncatingIfNeeded: value)) ?? .generic
                    }
                    points.append((position(message, Point.latitude, Point.longitude), message.number(Point.distance, scale: 100), kind, message.string(Point.name)))
                default:
                    break
                }
            }
        } catch {
            throw converted(error, file: file)
        }
        guard sawFileID else {
            throw .notACourse(file: file, place: "", reason: "the FIT file has no file_id message, so it is not a course.")
        }
        guard fileType == FITFileType.course.rawValue else {
            let type = fileType.map { value in
                let named = FITFileType(rawValue: value).map { "a FIT \($0)" } ?? "a FIT file"
                return "\(named) (file type \(value))"
            } ?? "a FIT file of no type"
            throw .notACourse(file: file, place: "", reason: "\(type), not a course (file type 6).")
        }
        let along = source.distancesAlong()
        for point in points {
            let distance = point.distance.map { ourDistance(atFileDistance: $0, fileDistances: fileDistances, along: along) }
            guard let coordinate = point.coordinate ?? distance.flatMap({ coordinate(atDistance: $0, positions: source.positions, along: along) }) else {
                continue
            }
            source.waypoints.append(CourseWaypoint(coordinate: coordinate, name: point.name, kind: point.kind, distance: distance))
        }
        return source
    }

    static func position(_ message: FITMessage, _ latitude: UInt8, _ longitude: UInt8) -> GeoCoordinate? {
        guard let lat = message.integer(latitude), let lon = message.integer(longitude) else { return nil }
        let position = GeoCoordinate(latitude: FITSemicircles.degrees(lat), longitude: FITSemicircles.degrees(lon))
        return position.isValid ? position : nil
    }

    /// Metres along our line where the file's own distance `distance` lies: between the two
    /// positions whose file distances hold it, in proportion. Where the records have no distances,
    /// the file's distance as it is.
    static func ourDistance(atFileDistance distance: Double, fileDistances: [Double?], along: [Double]) -> Double {
        var previous: (file: Double, ours: Double)?
        for (index, file) in fileDistances.enumerated() {
            guard let file else { continue }
            if file >= distance {
                guard let before = previous, file > before.file else { return along[index] }
                return before.ours + (along[index] - before.ours) * (distance - before.file) / (file - before.file)
            }
            previous = (file, along[index])
        }
        return previous.map { $0.ours + (distance - $0.file) } ?? distance
    }

    /// The position `distance` metres along the positions, for a course point the file gave no position.
    static func coordinate(atDistance distance: Double, positions: [GeoCoordinate], along: [Double]) -> GeoCoordinate? {
        guard let last = positions.last else { return nil }
        for index in 1..<max(1, positions.count) where along[index] >= distance {
            let start = along[index - 1], end = along[index]
            let fraction = end > start ? max(0, (distance - start) / (end - start)) : 0
            let from = positions[index - 1], to = positions[index]
            return GeoCoordinate(
                latitude: from.latitude + (to.latitude - from.latitude) * fraction,
                longitude: from.longitude + (to.longitude - from.longitude) * fraction)
        }
        return last
    }

    static func converted(_ error: FITError, file: String) -> CourseFileError {
        switch error {
        case let .unreadable(_, reason):
            .missingFile(file: file, reason: reason)
        case let .notFIT(_, reason):
            .notACourse(file: file, place: "", reason: "not a FIT file: " + sentence(reason))
        case let .malformed(_, offset, reason), let .truncated(_, offset, reason), let .badCRC(_, offset, reason),
             let .handlerFailed(_, offset, reason):
            .notACourse(file: file, place: "byte \(offset)", reason: sentence(reason))
        }
    }
}
