#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPX
import Geometry
import Navigation

/// A course from GPX: the first route of two points or more, else every track's points joined;
/// the waypoints as points of interest.
enum GPXCourseReader {
    /// What the reader is inside of.
    enum Place {
        case outside
        case inRoute(name: String?, points: [GPXPoint])
        case inTrack
    }

    static func read(_ bytes: [UInt8], name file: String) throws(CourseFileError) -> CourseSource {
        var place = Place.outside
        var route: (name: String?, points: [GPXPoint])?
        var track: [GPXPoint] = []
        var trackName: String?
        var metadataName: String?
        var waypoints: [GPXPoint] = []
        do {
            _ = try GPXReader().read(data: Data(bytes), name: file) { event in
                switch event {
                case .metadata(let metadata): metadataName = metadata.name
                case .waypoint(let point): waypoints.append(point)
                case .routeStart(let info): place = .inRoute(name: info.name, points: [])
                case .routePoint(let point):
                    if case .inRoute(let name, var points) = place {
                        points.append(point)
                        place = .inRoute(name: name, points: points)
                    }
                case .routeEnd:
                    if case .inRoute(let name, let points) = place, route == nil, points.count >= 2 { route = (name, points) }
                    place = .outside
                case .trackStart: place = .inTrack
                case .trackPoint(let point): track.append(point)
                case .trackEnd(let info):
                    trackName = trackName ?? info.name
                    place = .outside
                case .segmentStart, .segmentEnd: break
                }
            }
        } catch {
            throw converted(error, file: file)
        }
        var source = CourseSource()
        if let route {
            source.name = route.name ?? metadataName
            for point in route.points { source.append(coordinate(point), elevation: point.elevation) }
            // A named route point is a point of the course where it lies on it, as gpsbabel's
            // FIT writer makes each one a course point.
            let along = source.distancesAlong()
            for (index, point) in route.points.enumerated() where point.name != nil {
                source.waypoints.append(CourseWaypoint(coordinate: coordinate(point), name: point.name, kind: kind(point), distance: along[index]))
            }
        } else {
            source.name = trackName ?? metadataName
            for point in track { source.append(coordinate(point), elevation: point.elevation) }
        }
        source.waypoints += waypoints.map { CourseWaypoint(coordinate: coordinate($0), name: $0.name, kind: kind($0)) }
        return source
    }

    static func coordinate(_ point: GPXPoint) -> GeoCoordinate {
        GeoCoordinate(latitude: point.latitude, longitude: point.longitude)
    }

    /// The kind a point's `<type>` names (FIT's name, as our writer puts it, or a turn's words);
    /// nil to read it from its name.
    static func kind(_ point: GPXPoint) -> CoursePointKind? {
        guard let type = point.type else { return nil }
        return CoursePointKind(rawValue: type.lowercased()) ?? CoursePointKind(turnNamedIn: type)
    }

    static func converted(_ error: GPXError, file: String) -> CourseFileError {
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

/// `reason` ending with a full stop.
func sentence(_ reason: String) -> String {
    reason.hasSuffix(".") ? reason : reason + "."
}
