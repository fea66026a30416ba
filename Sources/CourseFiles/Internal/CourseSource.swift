import Geometry
import Navigation

/// What a format's reader found, before it is a ``Course``: the one place each format's reading
/// becomes a course, and a course's errors become the file's.
struct CourseSource {
    var name: String?
    var positions: [GeoCoordinate] = []
    var elevations: [Double?] = []
    var waypoints: [CourseWaypoint] = []

    /// Appends a position with its elevation.
    mutating func append(_ position: GeoCoordinate, elevation: Double?) {
        positions.append(position)
        elevations.append(elevation)
    }

    func course(file: String, turns: TurnRule?) throws(CourseFileError) -> Course {
        let elevations = elevations.contains { $0 != nil } ? elevations : []
        do {
            return try Course(name: name, positions: positions, elevations: elevations, waypoints: waypoints, turns: turns)
        } catch {
            switch error {
            case .tooFewPoints(let count): throw .tooFewPoints(file: file, count: count)
            case .invalidPoint, .elevationCount:
                throw .notACourse(file: file, place: "", reason: error.description)
            }
        }
    }

    /// Metres along `positions` (the line the course will be) at each of them: where a file's
    /// own point on the line (a named route point) lies.
    func distancesAlong() -> [Double] {
        var along = 0.0
        return positions.indices.map { index in
            if index > 0 { along += positions[index - 1].distance(to: positions[index]) }
            return along
        }
    }
}
