#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GPSCore

/// A plane tangent to the sphere at one position (an equirectangular projection scaled at its
/// latitude), in metres: x east, y north. Distances from that position to edges near it are
/// measured here. A lon/lat-straight edge (RFC 7946 §3.1.1) is straight in it too, since the map
/// is linear in longitude and latitude; its error is the change of the longitude scale across the
/// edge, well under a metre for edges of a few kilometres at mid latitudes, and the distances
/// that decide anything (a fix's accuracy, a region's hysteresis) are tens of metres.
package struct LocalPlane: Sendable {
    /// Metres per degree of latitude on the WGS84 mean sphere.
    package static let metresPerDegree = Geodesy.meanEarthRadius * .pi / 180

    package let origin: GeoCoordinate
    package let metresPerDegreeLongitude: Double

    package init(at origin: GeoCoordinate) {
        self.origin = origin
        metresPerDegreeLongitude = Self.metresPerDegree * cos(origin.latitude * .pi / 180)
    }

    /// The point's (x, y) in metres from the origin.
    @inline(__always)
    package func project(_ point: GeoCoordinate) -> (x: Double, y: Double) {
        ((point.longitude - origin.longitude) * metresPerDegreeLongitude, (point.latitude - origin.latitude) * Self.metresPerDegree)
    }

    /// The position of plane point (x, y).
    package func unproject(x: Double, y: Double) -> GeoCoordinate {
        GeoCoordinate(latitude: origin.latitude + y / Self.metresPerDegree, longitude: origin.longitude + x / metresPerDegreeLongitude)
    }

    /// Distance in metres from the origin to the edge from `a` to `b`.
    @inline(__always)
    package func distanceToSegment(_ a: GeoCoordinate, _ b: GeoCoordinate) -> Double {
        let (ax, ay) = project(a)
        let (bx, by) = project(b)
        return Self.distanceFromOrigin(ax, ay, bx, by)
    }

    /// Distance from (0, 0) to the segment (ax, ay)–(bx, by).
    @inline(__always)
    package static func distanceFromOrigin(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
        projectOrigin(ax, ay, bx, by).distance
    }

    /// The point of the segment (ax, ay)–(bx, by) nearest (0, 0): its fraction `t` of the way from
    /// the first end (0...1) and its distance from (0, 0). The one projection onto an edge of the
    /// package: a corridor's distance and a course's match are both this.
    @inline(__always)
    package static func projectOrigin(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> (t: Double, distance: Double) {
        let dx = bx - ax
        let dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? -(ax * dx + ay * dy) / lengthSquared : 0
        t = min(1, max(0, t))
        let px = ax + t * dx
        let py = ay + t * dy
        return (t, (px * px + py * py).squareRoot())
    }
}
