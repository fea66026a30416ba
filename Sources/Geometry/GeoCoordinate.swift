#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GPSCore

/// A position on the Earth in WGS84 degrees: a circle's centre, a polygon's vertex, a point of a
/// route. Distances and bearings between them are GPSCore's `Geodesy` ones, the package's single
/// definition (a haversine on the WGS84 mean radius).
public struct GeoCoordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Degrees north of the equator.
    public var latitude: Double
    /// Degrees east of Greenwich.
    public var longitude: Double

    /// A position at `latitude`, `longitude` (degrees).
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether it is a position on the Earth (finite, latitude within ±90, longitude within ±180).
    public var isValid: Bool { Geodesy.isValid(latitude: latitude, longitude: longitude) }

    /// Great-circle distance in metres to `other`: `Geodesy.distance(_:_:_:_:)`.
    public func distance(to other: GeoCoordinate) -> Double {
        Geodesy.distance(latitude, longitude, other.latitude, other.longitude)
    }

    /// The initial bearing in degrees (0..<360, clockwise from true north) of the great circle to
    /// `other`: `Geodesy.initialBearing(_:_:_:_:)`.
    public func bearing(to other: GeoCoordinate) -> Double {
        Geodesy.initialBearing(latitude, longitude, other.latitude, other.longitude)
    }

    /// The position `distance` metres away along the great circle that leaves this one at
    /// `bearing` degrees from true north, on the same sphere as ``distance(to:)``: the inverse of
    /// ``distance(to:)`` and ``bearing(to:)``.
    ///
    /// ```swift
    /// let anchor = GeoCoordinate(latitude: 50.0, longitude: -4.0).destination(bearing: 90, distance: 30)
    /// ```
    public func destination(bearing: Double, distance: Double) -> GeoCoordinate {
        let radians = Double.pi / 180
        let delta = distance / Geodesy.meanEarthRadius
        let theta = bearing * radians
        let phi1 = latitude * radians
        let lambda1 = longitude * radians
        let sinPhi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
        let phi2 = asin(min(1, max(-1, sinPhi2)))
        let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sinPhi2)
        var longitude2 = lambda2 / radians
        if longitude2 > 180 { longitude2 -= 360 } else if longitude2 < -180 { longitude2 += 360 }
        return GeoCoordinate(latitude: phi2 / radians, longitude: longitude2)
    }

    /// `latitude,longitude` with seven decimals (about a centimetre).
    public var description: String {
        "\(TextBytes.fixed(latitude, decimals: 7)),\(TextBytes.fixed(longitude, decimals: 7))"
    }
}

/// A rectangle in longitude and latitude, for the spatial index and a quick "far from it" test.
public struct GeoBoundingBox: Sendable, Hashable, Codable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    /// The smallest box holding `points` (which must not be empty).
    public init<Points: Sequence<GeoCoordinate>>(covering points: Points) {
        var box = GeoBoundingBox(minLatitude: .infinity, minLongitude: .infinity, maxLatitude: -.infinity, maxLongitude: -.infinity)
        for point in points {
            box.minLatitude = min(box.minLatitude, point.latitude)
            box.maxLatitude = max(box.maxLatitude, point.latitude)
            box.minLongitude = min(box.minLongitude, point.longitude)
            box.maxLongitude = max(box.maxLongitude, point.longitude)
        }
        self = box
    }

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    /// The box grown by `metres` on every side (longitude scaled at its latitude farthest from the
    /// equator), clamped to the Earth.
    public func expanded(by metres: Double) -> GeoBoundingBox {
        let degrees = metres / LocalPlane.metresPerDegree
        let latitude = min(89.9, max(abs(minLatitude), abs(maxLatitude)) + degrees)
        let longitudeDegrees = degrees / cos(latitude * .pi / 180)
        return GeoBoundingBox(
            minLatitude: max(-90, minLatitude - degrees), minLongitude: minLongitude - longitudeDegrees,
            maxLatitude: min(90, maxLatitude + degrees), maxLongitude: maxLongitude + longitudeDegrees)
    }

    /// Whether `point` is in the box (edges included).
    @inline(__always)
    public func contains(_ point: GeoCoordinate) -> Bool {
        point.latitude >= minLatitude && point.latitude <= maxLatitude
            && point.longitude >= minLongitude && point.longitude <= maxLongitude
    }
}
