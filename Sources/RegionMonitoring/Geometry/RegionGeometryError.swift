/// A shape that cannot be monitored, and why: thrown by the initializers of ``CircularRegion``,
/// ``GeoPolygon``, ``CorridorRegion`` and ``CrossingLine``.
public struct RegionGeometryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a sentence.
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }

    static func checkValid(_ point: GeoCoordinate, _ what: String) throws(RegionGeometryError) {
        guard point.isValid else {
            throw RegionGeometryError("\(what) (\(point.latitude), \(point.longitude)) is not a position on the Earth: latitude must be within ±90 and longitude within ±180.")
        }
    }

    /// Refuses an edge longer than half the globe in longitude: RFC 7946 §3.1.9 asks a shape that
    /// crosses the antimeridian to be cut in two there, and a straight edge from 179° to -179° is
    /// otherwise one that goes the long way round.
    static func checkEdges(_ points: [GeoCoordinate], _ what: String) throws(RegionGeometryError) {
        for (a, b) in zip(points, points.dropFirst()) where abs(b.longitude - a.longitude) > 180 {
            throw RegionGeometryError(
                "\(what) crosses the antimeridian (an edge from longitude \(a.longitude) to \(b.longitude)): cut it in two at ±180° as RFC 7946 §3.1.9 asks.")
        }
    }
}
