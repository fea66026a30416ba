#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GPSCore

/// A path of positions with the distance along it measured at each: a course to follow, a
/// corridor's centre line. Its edges are straight in longitude and latitude (as a GeoJSON
/// LineString's); distances along it are the haversine lengths of its edges, as a track's are.
///
/// A grid over its edges finds the edges near a position without looking at the others, so a
/// position is matched to a course of 20,000 points in microseconds.
///
/// ```swift
/// let line = try Polyline([GeoCoordinate(latitude: 50, longitude: -4), GeoCoordinate(latitude: 50.01, longitude: -4)])
/// let match = line.nearest(to: GeoCoordinate(latitude: 50.005, longitude: -3.9999))
/// print(match.distanceAlong, match.distance, match.isLeft)   // about 556 m along, 7 m off, on the right
/// ```
public struct Polyline: Sendable {
    /// The positions, in order.
    public let points: [GeoCoordinate]
    /// Metres along the line at each of ``points``: 0 at the first.
    public let distances: [Double]
    private let grid: EdgeGrid

    /// The line through `points` (two or more valid positions).
    public init(_ points: [GeoCoordinate]) throws(PolylineError) {
        guard points.count >= 2 else { throw PolylineError.tooFewPoints(points.count) }
        var distances = [Double]()
        distances.reserveCapacity(points.count)
        var along = 0.0
        for (index, point) in points.enumerated() {
            guard point.isValid else { throw PolylineError.invalidPoint(index: index, point) }
            if index > 0 { along += points[index - 1].distance(to: point) }
            distances.append(along)
        }
        self.points = points
        self.distances = distances
        grid = EdgeGrid(points)
    }

    /// Metres from the first point to the last, along the line.
    public var length: Double { distances[distances.count - 1] }

    /// The nearest point of the line to `point`, of all its edges.
    public func nearest(to point: GeoCoordinate) -> PolylineProjection {
        let plane = LocalPlane(at: point)
        var best = project(plane, edge: 0)
        for edge in 1..<(points.count - 1) {
            let candidate = project(plane, edge: edge)
            if candidate.distance < best.distance { best = candidate }
        }
        return best
    }

    /// Each place where the line passes within `radius` metres of `point`, nearest first: one
    /// projection for each local minimum of the distance along the line, so a line that passes a
    /// point twice (an out-and-back on one road, the crossing of a figure of eight) gives two,
    /// their ``PolylineProjection/distanceAlong`` telling them apart. Passes whose distances along
    /// are within `separation` metres of each other are one (the nearer kept).
    public func passes(near point: GeoCoordinate, within radius: Double, separation: Double = 10) -> [PolylineProjection] {
        let plane = LocalPlane(at: point)
        let edges = grid.edges(near: point, within: radius)
        guard !edges.isEmpty else { return [] }
        var passes: [PolylineProjection] = []
        // Walk the near edges in order along the line; a pass is a run whose distance falls and
        // then rises again (or whose run of near edges ends).
        var previous: PolylineProjection?
        var falling = true
        var runBest: PolylineProjection?
        func close() {
            if let best = runBest, best.distance <= radius { passes.append(best) }
            runBest = nil
        }
        for edge in edges {
            let projection = project(plane, edge: edge)
            if let last = previous, last.segment + 1 == edge {
                if projection.distance > last.distance + 1e-9 {
                    falling = false
                } else if !falling, projection.distance < last.distance - 1e-9 {
                    // Rising then falling again: a new pass begins.
                    close()
                    falling = true
                }
            } else {
                close()
                falling = true
            }
            if runBest == nil || projection.distance < runBest!.distance { runBest = projection }
            previous = projection
        }
        close()
        passes.sort { $0.distance < $1.distance }
        var kept: [PolylineProjection] = []
        for pass in passes where !kept.contains(where: { abs($0.distanceAlong - pass.distanceAlong) < separation }) {
            kept.append(pass)
        }
        return kept
    }

    /// The position `distance` metres along the line (clamped to its ends).
    public func coordinate(atDistance distance: Double) -> GeoCoordinate {
        let edge = edge(atDistance: distance)
        let start = distances[edge], end = distances[edge + 1]
        let fraction = end > start ? min(1, max(0, (distance - start) / (end - start))) : 0
        let a = points[edge], b = points[edge + 1]
        return GeoCoordinate(
            latitude: a.latitude + (b.latitude - a.latitude) * fraction,
            longitude: a.longitude + (b.longitude - a.longitude) * fraction)
    }

    /// The bearing in degrees (0..<360) of the edge `distance` metres along the line.
    public func bearing(atDistance distance: Double) -> Double {
        let edge = edge(atDistance: distance)
        return points[edge].bearing(to: points[edge + 1])
    }

    /// The index of the edge (from `points[i]` to `points[i + 1]`) holding `distance` metres along.
    public func edge(atDistance distance: Double) -> Int {
        // The last vertex at or before `distance`, by bisection.
        var low = 0, high = distances.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if distances[middle] <= distance { low = middle } else { high = middle }
        }
        return min(low, points.count - 2)
    }

    @inline(__always)
    private func project(_ plane: LocalPlane, edge: Int) -> PolylineProjection {
        let a = plane.project(points[edge])
        let b = plane.project(points[edge + 1])
        let (t, distance) = LocalPlane.projectOrigin(a.x, a.y, b.x, b.y)
        // Positive when the point (the origin) is left of the edge looking along it.
        let cross = (b.x - a.x) * (0 - a.y) - (b.y - a.y) * (0 - a.x)
        let along = distances[edge] + t * (distances[edge + 1] - distances[edge])
        return PolylineProjection(segment: edge, fraction: t, distanceAlong: along, distance: distance, isLeft: cross > 0)
    }
}

/// Where a position falls on a ``Polyline``: the nearest point of one of its edges.
public struct PolylineProjection: Sendable, Hashable {
    /// The edge: from `points[segment]` to `points[segment + 1]`.
    public var segment: Int
    /// How far along that edge, 0 at its first end and 1 at its second.
    public var fraction: Double
    /// Metres along the line to the projected point.
    public var distanceAlong: Double
    /// Metres from the position to the projected point (the cross-track distance).
    public var distance: Double
    /// Whether the position is left of the line, looking along it.
    public var isLeft: Bool

    public init(segment: Int, fraction: Double, distanceAlong: Double, distance: Double, isLeft: Bool) {
        self.segment = segment
        self.fraction = fraction
        self.distanceAlong = distanceAlong
        self.distance = distance
        self.isLeft = isLeft
    }

    /// The cross-track distance, positive left of the line and negative right of it.
    public var offset: Double { isLeft ? distance : -distance }
}

/// What was wrong with the positions of a ``Polyline``.
public enum PolylineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than two positions.
    case tooFewPoints(Int)
    /// A position not on the Earth, at its index.
    case invalidPoint(index: Int, GeoCoordinate)

    public var description: String {
        switch self {
        case .tooFewPoints(let count):
            "A line needs at least two positions; it has \(count)."
        case .invalidPoint(let index, let point):
            "Position \(index + 1) of the line (\(point.latitude), \(point.longitude)) is not on the Earth."
        }
    }
}

/// A uniform grid over longitude and latitude listing, in each cell, the edges whose box touches
/// it. An edge that would fill too many cells (a leg of a boat's route across a bay) is kept in a
/// list looked at for every query.
private struct EdgeGrid: Sendable {
    /// Degrees per cell side: about 220 m of latitude.
    static let cellSize = 0.002
    static let maximumCells = 1024

    private var cells: [Int64: [Int32]] = [:]
    private var everywhere: [Int32] = []
    /// Each edge's lowest cell (x, y): an edge in several cells of a query is given by the first
    /// of them only, so no edge comes twice without a pass to remove repeats.
    private var lowCells: [(x: Int32, y: Int32)] = []

    init(_ points: [GeoCoordinate]) {
        lowCells.reserveCapacity(points.count - 1)
        for edge in 0..<(points.count - 1) {
            let a = points[edge], b = points[edge + 1]
            let (lowX, lowY) = Self.cell(latitude: min(a.latitude, b.latitude), longitude: min(a.longitude, b.longitude))
            let (highX, highY) = Self.cell(latitude: max(a.latitude, b.latitude), longitude: max(a.longitude, b.longitude))
            lowCells.append((Int32(truncatingIfNeeded: lowX), Int32(truncatingIfNeeded: lowY)))
            guard (highX - lowX + 1) * (highY - lowY + 1) <= Self.maximumCells else {
                everywhere.append(Int32(edge))
                continue
            }
            for x in lowX...highX {
                for y in lowY...highY { cells[Self.key(x, y), default: []].append(Int32(edge)) }
            }
        }
    }

    /// Every edge that may pass within `radius` metres of `point` (and perhaps a few more), each
    /// once, in ascending order.
    func edges(near point: GeoCoordinate, within radius: Double) -> [Int] {
        let latitudeDegrees = radius / LocalPlane.metresPerDegree
        let longitudeDegrees = latitudeDegrees / max(0.01, cos(min(89.9, abs(point.latitude) + latitudeDegrees) * .pi / 180))
        let (lowX, lowY) = Self.cell(latitude: point.latitude - latitudeDegrees, longitude: point.longitude - longitudeDegrees)
        let (highX, highY) = Self.cell(latitude: point.latitude + latitudeDegrees, longitude: point.longitude + longitudeDegrees)
        var found = everywhere.map(Int.init)
        var lists = found.isEmpty ? 0 : 1
        for x in lowX...highX {
            for y in lowY...highY {
                guard let list = cells[Self.key(x, y)] else { continue }
                lists += 1
                for edge in list {
                    // Given by this cell only when it is the edge's first cell in the query.
                    let low = lowCells[Int(edge)]
                    guard max(Int(low.x), lowX) == x, max(Int(low.y), lowY) == y else { continue }
                    found.append(Int(edge))
                }
            }
        }
        // Each cell's list is in ascending order (edges are added in order): one alone needs no sort.
        if lists > 1 { found.sort() }
        return found
    }

    @inline(__always)
    private static func cell(latitude: Double, longitude: Double) -> (Int, Int) {
        (Int((longitude / cellSize).rounded(.down)), Int((latitude / cellSize).rounded(.down)))
    }

    @inline(__always)
    private static func key(_ x: Int, _ y: Int) -> Int64 { Int64(x) << 32 | Int64(UInt32(truncatingIfNeeded: y)) }
}
