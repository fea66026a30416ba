import GPSCore
import Geometry

/// A course to follow: a line with distances and elevations along it, its cues (the file's, or
/// turns computed from its geometry where it has none), its points of interest and its climbs.
///
/// Read one from a file with the `CourseFiles` module, or make one from positions:
///
/// ```swift
/// let course = try Course(name: "Loop", positions: positions, elevations: elevations)
/// for cue in course.cues { print(cue.distance, cue.kind) }
/// ```
public struct Course: Sendable {
    /// The course's name, when its file gives one.
    public var name: String?
    /// The line the course follows, with the distance along it at each position.
    public let line: Polyline
    /// Each position's elevation in metres, nil where the file has none (all nil for a flat file).
    public let elevations: [Double?]
    /// Each position's elevation smoothed by the workout's rule (`ElevationHysteresis`, 5 m), nil
    /// where the course has no elevation at all.
    public let smoothedElevations: [Double]?
    /// Cues and points of interest, in order along the course.
    public let points: [CoursePoint]
    /// The climbs, in order along the course (``ClimbRule``).
    public let climbs: [Climb]

    /// Metres a waypoint without a distance may be from the course and still be placed on it.
    public static let waypointRadius = 50.0

    /// A course along `positions` (two at least, as read from the file), with `elevations` (one
    /// per position, or empty), the file's `waypoints`, and computed turns when the file gives no
    /// cue (`turns`; nil computes none).
    public init(
        name: String? = nil, positions: [GeoCoordinate], elevations: [Double?] = [],
        waypoints: [CourseWaypoint] = [], turns: TurnRule? = TurnRule(), climbs climbRule: ClimbRule = ClimbRule()
    ) throws(CourseError) {
        guard positions.count >= 2 else { throw CourseError.tooFewPoints(positions.count) }
        guard elevations.isEmpty || elevations.count == positions.count else {
            throw CourseError.elevationCount(elevations.count, positions: positions.count)
        }
        let line: Polyline
        do {
            line = try Polyline(positions)
        } catch {
            throw CourseError.invalidPoint(error.description)
        }
        self.name = name
        self.line = line
        self.elevations = elevations.isEmpty ? Array(repeating: nil, count: positions.count) : elevations
        smoothedElevations = Self.smooth(self.elevations)

        var points: [CoursePoint] = []
        for waypoint in waypoints {
            let kind = waypoint.kind ?? waypoint.name.flatMap(CoursePointKind.init(turnNamedIn:)) ?? .generic
            if let distance = waypoint.distance {
                points.append(CoursePoint(kind: kind, name: waypoint.name, coordinate: waypoint.coordinate, distance: min(line.length, max(0, distance))))
            } else {
                // Each pass of the course near it: a course through a point twice has it twice.
                for pass in line.passes(near: waypoint.coordinate, within: Self.waypointRadius, separation: 2 * Self.waypointRadius) {
                    points.append(CoursePoint(kind: kind, name: waypoint.name, coordinate: waypoint.coordinate, distance: pass.distanceAlong))
                }
            }
        }
        if let turns, !points.contains(where: \.isCue) {
            points += turns.turns(along: line)
        }
        points.sort { $0.distance < $1.distance }
        self.points = points
        let raw = self.elevations
        self.climbs = smoothedElevations.map { climbRule.climbs(distances: line.distances, elevations: $0, raw: raw) } ?? []
    }

    /// Metres from the start to the finish.
    public var length: Double { line.length }

    /// The cues alone (turns, forks, straight on), in order.
    public var cues: [CoursePoint] { points.filter(\.isCue) }

    /// The smoothed elevation `distance` metres along, interpolated, or nil without elevation.
    public func elevation(atDistance distance: Double) -> Double? {
        guard let smoothed = smoothedElevations else { return nil }
        let edge = line.edge(atDistance: distance)
        let start = line.distances[edge], end = line.distances[edge + 1]
        let fraction = end > start ? min(1, max(0, (distance - start) / (end - start))) : 0
        return smoothed[edge] + (smoothed[edge + 1] - smoothed[edge]) * fraction
    }

    /// The grade `distance` metres along, a fraction (0.05 is 5 % up): the rise of the file's own
    /// elevations (interpolated, gaps bridged) over `window` metres centred there (shortened at
    /// the ends), or nil without elevation. A trainer riding the course is set to it; the
    /// smoothed elevations, steps of 5 m, are for climbs, not for a grade metre by metre.
    public func grade(atDistance distance: Double, window: Double = 100) -> Double? {
        guard smoothedElevations != nil else { return nil }
        let from = max(0, min(length, distance - window / 2)), to = min(length, max(0, distance + window / 2))
        guard to - from > 1, let low = rawElevation(atDistance: from), let high = rawElevation(atDistance: to) else { return nil }
        return (high - low) / (to - from)
    }

    /// The file's elevation `distance` metres along, interpolated between the nearest known
    /// elevations on either side (the nearest one alone past the last or before the first).
    private func rawElevation(atDistance distance: Double) -> Double? {
        let edge = line.edge(atDistance: distance)
        guard let before = elevations[...edge].lastIndex(where: { $0 != nil }) ?? elevations.firstIndex(where: { $0 != nil }),
              let after = elevations[(edge + 1)...].firstIndex(where: { $0 != nil }) ?? elevations.lastIndex(where: { $0 != nil }),
              let low = elevations[before], let high = elevations[after] else { return nil }
        let start = line.distances[before], end = line.distances[after]
        guard end > start else { return distance < start ? low : high }
        let fraction = min(1, max(0, (distance - start) / (end - start)))
        return low + (high - low) * fraction
    }

    /// The elevations with the workout's hysteresis, and the gaps filled from the nearest known
    /// elevation; nil when none is known.
    private static func smooth(_ elevations: [Double?]) -> [Double]? {
        guard let first = elevations.firstIndex(where: { $0 != nil }), let firstElevation = elevations[first] else { return nil }
        var smoothing = ElevationHysteresis()
        var smoothed: [Double] = []
        smoothed.reserveCapacity(elevations.count)
        for elevation in elevations {
            if let elevation { smoothing.feed(elevation) }
            smoothed.append(smoothing.reference ?? firstElevation)
        }
        return smoothed
    }
}

/// What is wrong with a course.
public enum CourseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No position, or one: a course needs two.
    case tooFewPoints(Int)
    /// A position not on the Earth.
    case invalidPoint(String)
    /// Elevations given for some positions but not one each.
    case elevationCount(Int, positions: Int)

    public var description: String {
        switch self {
        case .tooFewPoints(0): "The course has no points; a course needs at least two."
        case .tooFewPoints(let count): "The course has \(count) point; a course needs at least two."
        case .invalidPoint(let what): what
        case .elevationCount(let count, let positions): "The course has \(count) elevations for \(positions) points."
        }
    }
}
