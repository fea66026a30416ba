#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Geometry
import Navigation
import TCX

/// A course from TCX: the first `<Course>`, its track's positions and its course points.
enum TCXCourseReader {
    /// TCX's `PointType`s (Training Center Database v2's `CoursePointType_t`), as FIT names them.
    static let kinds: [String: CoursePointKind] = [
        "generic": .generic, "summit": .summit, "valley": .valley, "water": .water, "food": .food, "danger": .danger,
        "left": .left, "right": .right, "straight": .straight, "first aid": .firstAid,
        "4th category": .fourthCategory, "3rd category": .thirdCategory, "2nd category": .secondCategory,
        "1st category": .firstCategory, "hors category": .horsCategory, "sprint": .sprint,
    ]

    static func read(_ bytes: [UInt8], name file: String) throws(CourseFileError) -> CourseSource {
        var found: TCXCourse?
        var activities = 0
        do {
            _ = try TCXReader().read(data: Data(bytes), name: file) { event in
                switch event {
                case .course(let course) where found == nil: found = course
                case .activityStart: activities += 1
                default: break
                }
            }
        } catch {
            throw converted(error, file: file)
        }
        guard let course = found else {
            let what = activities > 0 ? "it holds \(activities == 1 ? "an activity" : "\(activities) activities") and no course" : "it holds no course"
            throw .notACourse(file: file, place: "", reason: "\(what) (a <Course> in <Courses>).")
        }
        var source = CourseSource(name: course.name)
        for position in course.positions {
            source.append(GeoCoordinate(latitude: position.latitude, longitude: position.longitude), elevation: position.altitude)
        }
        source.waypoints = course.points.map { point in
            CourseWaypoint(
                coordinate: GeoCoordinate(latitude: point.latitude, longitude: point.longitude), name: point.name,
                kind: point.pointType.flatMap { kinds[$0.lowercased()] })
        }
        return source
    }

    static func converted(_ error: TCXError, file: String) -> CourseFileError {
        switch error {
        case let .unreadable(_, reason):
            .missingFile(file: file, reason: reason)
        case let .malformed(_, 0, _, reason), let .handlerFailed(_, 0, reason):
            .notACourse(file: file, place: "", reason: sentence(reason))
        case let .malformed(_, line, column, reason), let .refused(_, line, column, reason),
             let .limitExceeded(_, line, column, reason), let .invalidValue(_, line, column, reason):
            .notACourse(file: file, place: "line \(line), column \(column)", reason: sentence(reason))
        case let .handlerFailed(_, line, reason):
            .notACourse(file: file, place: "line \(line)", reason: sentence(reason))
        }
    }
}
