import Navigation
import RegionMonitoring

/// A course from GeoJSON: RegionMonitoring's reader of a line (its strict JSON scan, its paths
/// in errors), its named points as points of interest.
enum GeoJSONCourseReader {
    static func read(_ bytes: [UInt8], name file: String) throws(CourseFileError) -> CourseSource {
        let line: GeoJSONLine
        do {
            line = try GeoJSON.line(data: bytes, name: file)
        } catch {
            switch error {
            case let .cannotRead(_, reason): throw .missingFile(file: file, reason: reason)
            case let .invalid(_, path, reason): throw .notACourse(file: file, place: path, reason: sentence(reason))
            }
        }
        var source = CourseSource(name: line.name, positions: line.positions, elevations: line.altitudes)
        source.waypoints = line.points.map { point in
            CourseWaypoint(
                coordinate: point.coordinate, name: point.name,
                kind: point.type.flatMap { CoursePointKind(rawValue: $0.lowercased()) ?? CoursePointKind(turnNamedIn: $0) })
        }
        return source
    }
}
