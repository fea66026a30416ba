/// A circle: the positions within `radius` metres of `center` (great-circle distance).
public struct CircularRegion: Sendable, Hashable, Codable {
    public let center: GeoCoordinate
    /// Metres.
    public let radius: Double

    /// A circle of `radius` metres (positive) around `center`.
    ///
    /// - Throws: ``RegionGeometryError`` for a centre off the Earth or a radius that is not positive.
    public init(center: GeoCoordinate, radius: Double) throws(RegionGeometryError) {
        try RegionGeometryError.checkValid(center, "The centre")
        guard radius > 0, radius.isFinite else { throw RegionGeometryError("A circle's radius must be a positive number of metres, not \(radius).") }
        self.center = center
        self.radius = radius
    }

    /// Metres from `point` to the edge: positive inside, negative outside.
    public func signedDistance(from point: GeoCoordinate) -> Double {
        radius - center.distance(to: point)
    }

    /// The box around the circle.
    public var boundingBox: GeoBoundingBox {
        GeoBoundingBox(covering: [center]).expanded(by: radius)
    }
}

/// A polygon as RFC 7946 has it: an exterior ring and any number of holes, each ring closed (its
/// last position is its first), edges straight in longitude and latitude (§3.1.1), as shapely and
/// every planar GIS library compute them.
public struct GeoPolygon: Sendable, Hashable, Codable {
    /// The exterior ring, closed.
    public let exterior: [GeoCoordinate]
    /// The holes, each closed.
    public let holes: [[GeoCoordinate]]

    /// A polygon of `exterior` with `holes`. A ring given open (its last position not its first)
    /// is closed; the winding order is not checked (RFC 7946 says parsers should not reject a
    /// polygon for it).
    ///
    /// - Throws: ``RegionGeometryError`` for a ring of fewer than three distinct positions, a
    ///   position off the Earth, or an edge across the antimeridian.
    public init(exterior: [GeoCoordinate], holes: [[GeoCoordinate]] = []) throws(RegionGeometryError) {
        self.exterior = try Self.ring(exterior, "The exterior ring")
        var closedHoles: [[GeoCoordinate]] = []
        for (index, hole) in holes.enumerated() {
            closedHoles.append(try Self.ring(hole, "Hole \(index + 1)"))
        }
        self.holes = closedHoles
    }

    private static func ring(_ points: [GeoCoordinate], _ what: String) throws(RegionGeometryError) -> [GeoCoordinate] {
        for point in points { try RegionGeometryError.checkValid(point, "A position of \(what.lowercased())") }
        var ring = points
        if let first = ring.first, ring.last != first { ring.append(first) }
        guard ring.count >= 4 else {
            throw RegionGeometryError("\(what) has \(points.count) positions: a linear ring needs at least four, the last the same as the first (RFC 7946 §3.1.6).")
        }
        try RegionGeometryError.checkEdges(ring, what)
        return ring
    }

    /// Whether `point` is inside (in the exterior ring and in no hole), by the crossing number in
    /// longitude and latitude. A point exactly on an edge may go either way, as in any planar test.
    public func contains(_ point: GeoCoordinate) -> Bool {
        guard Self.ringContains(exterior, point) else { return false }
        return !holes.contains { Self.ringContains($0, point) }
    }

    /// Metres from `point` to the nearest edge of any ring.
    func distanceToBoundary(in plane: LocalPlane) -> Double {
        var nearest = Double.infinity
        for ring in [exterior] + holes {
            var previous = plane.project(ring[0])
            for point in ring.dropFirst() {
                let current = plane.project(point)
                nearest = min(nearest, LocalPlane.distanceFromOrigin(previous.x, previous.y, current.x, current.y))
                previous = current
            }
        }
        return nearest
    }

    @inline(__always)
    static func ringContains(_ ring: [GeoCoordinate], _ point: GeoCoordinate) -> Bool {
        var inside = false
        let x = point.longitude
        let y = point.latitude
        var j = ring.count - 1
        for i in 0..<ring.count {
            let xi = ring[i].longitude, yi = ring[i].latitude
            let xj = ring[j].longitude, yj = ring[j].latitude
            if (yi > y) != (yj > y), x < (xj - xi) * (y - yi) / (yj - yi) + xi {
                inside.toggle()
            }
            j = i
        }
        return inside
    }
}

/// An area of one or more polygons (a GeoJSON Polygon or MultiPolygon, or the union of those of a
/// FeatureCollection): inside when inside any of them.
public struct PolygonalRegion: Sendable, Hashable, Codable {
    public let polygons: [GeoPolygon]
    /// The box around every polygon.
    public let boundingBox: GeoBoundingBox

    /// The area of `polygons` (at least one).
    public init(_ polygons: [GeoPolygon]) throws(RegionGeometryError) {
        guard !polygons.isEmpty else { throw RegionGeometryError("A polygonal region needs at least one polygon.") }
        self.polygons = polygons
        boundingBox = GeoBoundingBox(covering: polygons.lazy.flatMap(\.exterior))
    }

    /// Whether `point` is inside one of the polygons.
    public func contains(_ point: GeoCoordinate) -> Bool {
        boundingBox.contains(point) && polygons.contains { $0.contains(point) }
    }

    /// Metres from `point` to the nearest edge: positive inside, negative outside.
    public func signedDistance(from point: GeoCoordinate) -> Double {
        let plane = LocalPlane(at: point)
        let distance = polygons.lazy.map { $0.distanceToBoundary(in: plane) }.min() ?? .infinity
        return contains(point) ? distance : -distance
    }
}

/// A corridor: the positions within `halfWidth` metres of a path (a route to follow). Leaving it
/// is going off course.
public struct CorridorRegion: Sendable, Hashable, Codable {
    /// The path's positions, in order.
    public let path: [GeoCoordinate]
    /// Metres either side of the path.
    public let halfWidth: Double
    public let boundingBox: GeoBoundingBox

    /// The corridor `halfWidth` metres either side of `path` (two positions or more; edges straight
    /// in longitude and latitude, as a GeoJSON LineString's).
    public init(path: [GeoCoordinate], halfWidth: Double) throws(RegionGeometryError) {
        guard path.count >= 2 else { throw RegionGeometryError("A corridor's path needs at least two positions, not \(path.count).") }
        for point in path { try RegionGeometryError.checkValid(point, "A position of the path") }
        try RegionGeometryError.checkEdges(path, "The path")
        guard halfWidth > 0, halfWidth.isFinite else {
            throw RegionGeometryError("A corridor's half-width must be a positive number of metres, not \(halfWidth).")
        }
        self.path = path
        self.halfWidth = halfWidth
        boundingBox = GeoBoundingBox(covering: path).expanded(by: halfWidth)
    }

    /// Metres from `point` to the nearest point of the path.
    public func distanceToPath(from point: GeoCoordinate) -> Double {
        let plane = LocalPlane(at: point)
        var nearest = Double.infinity
        var previous = plane.project(path[0])
        for next in path.dropFirst() {
            let current = plane.project(next)
            nearest = min(nearest, LocalPlane.distanceFromOrigin(previous.x, previous.y, current.x, current.y))
            previous = current
        }
        return nearest
    }

    /// Metres from `point` to the corridor's edge: positive inside, negative outside.
    public func signedDistance(from point: GeoCoordinate) -> Double {
        halfWidth - distanceToPath(from: point)
    }
}

/// Which way a ``CrossingLine`` was crossed, looking along it from its first end to its second.
public enum CrossingDirection: String, Sendable, Hashable, Codable {
    /// From its left side to its right.
    case leftToRight = "left-to-right"
    /// From its right side to its left.
    case rightToLeft = "right-to-left"
}

/// A line to cross (a finish line, a gate): a segment from `from` to `to`, straight in longitude
/// and latitude.
public struct CrossingLine: Sendable, Hashable, Codable {
    public let from: GeoCoordinate
    public let to: GeoCoordinate
    public let boundingBox: GeoBoundingBox

    /// The line from `from` to `to` (distinct positions).
    public init(from: GeoCoordinate, to: GeoCoordinate) throws(RegionGeometryError) {
        try RegionGeometryError.checkValid(from, "The line's first end")
        try RegionGeometryError.checkValid(to, "The line's second end")
        guard from != to else { throw RegionGeometryError("A line's two ends must differ.") }
        try RegionGeometryError.checkEdges([from, to], "The line")
        self.from = from
        self.to = to
        boundingBox = GeoBoundingBox(covering: [from, to])
    }

    /// Metres from the line's infinite extension to `point`: positive on its left (looking from
    /// ``from`` to ``to``), negative on its right.
    public func signedOffset(of point: GeoCoordinate) -> Double {
        let plane = LocalPlane(at: point)
        let a = plane.project(from)
        let b = plane.project(to)
        let dx = b.x - a.x, dy = b.y - a.y
        let length = (dx * dx + dy * dy).squareRoot()
        // Cross product of the line's direction with the vector from `from` to the point (the origin).
        return (dx * (0 - a.y) - dy * (0 - a.x)) / length
    }

    /// Where the straight move from `start` to `end` crosses the line: the fraction of the move
    /// (0...1) and the direction, or `nil` when it does not cross it.
    public func crossing(from start: GeoCoordinate, to end: GeoCoordinate) -> (fraction: Double, direction: CrossingDirection)? {
        let plane = LocalPlane(at: start)
        let p = plane.project(start), q = plane.project(end)
        let a = plane.project(from), b = plane.project(to)
        let rx = q.x - p.x, ry = q.y - p.y
        let sx = b.x - a.x, sy = b.y - a.y
        let denominator = rx * sy - ry * sx
        guard denominator != 0 else { return nil }
        let t = ((a.x - p.x) * sy - (a.y - p.y) * sx) / denominator
        let u = ((a.x - p.x) * ry - (a.y - p.y) * rx) / denominator
        guard (0...1).contains(t), (0...1).contains(u) else { return nil }
        // The move's direction × the line's is positive when the move points to the line's right.
        return (t, denominator > 0 ? .leftToRight : .rightToLeft)
    }
}
