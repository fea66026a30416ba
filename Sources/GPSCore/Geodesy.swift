#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Distances on the Earth: the one haversine of the package, used by `Location`, the track
/// statistics, sessions and the fakes alike.
public enum Geodesy {
    /// The WGS84 mean radius R1, in metres: the sphere distances are measured on.
    public static let meanEarthRadius = 6_371_008.8

    /// Great-circle distance in metres between two WGS84 positions (degrees), haversine formula
    /// `2R·asin(√(sin²(Δφ/2) + cos φ₁·cos φ₂·sin²(Δλ/2)))` on ``meanEarthRadius``. Its error
    /// against the ellipsoid is under 0.5 %.
    ///
    /// ```swift
    /// Geodesy.distance(51.4779, -0.0015, 51.4826, -0.0077)   // 676.4 m
    /// ```
    @inlinable
    public static func distance(
        _ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double
    ) -> Double {
        let radians = Double.pi / 180
        let phi1 = latitude1 * radians
        let phi2 = latitude2 * radians
        let sinHalfDeltaPhi = sin((latitude2 - latitude1) * radians / 2)
        let sinHalfDeltaLambda = sin((longitude2 - longitude1) * radians / 2)
        let h = sinHalfDeltaPhi * sinHalfDeltaPhi + cos(phi1) * cos(phi2) * sinHalfDeltaLambda * sinHalfDeltaLambda
        return 2 * meanEarthRadius * asin(min(1, h.squareRoot()))
    }

    /// The initial bearing in degrees clockwise from true north (0..<360) of the great circle from
    /// the first WGS84 position to the second (degrees), on the same sphere as
    /// ``distance(_:_:_:_:)``: `atan2(sin Δλ·cos φ₂, cos φ₁·sin φ₂ − sin φ₁·cos φ₂·cos Δλ)`.
    /// The course a receiver reports when moving from one to the other; 0 for the same point.
    ///
    /// ```swift
    /// Geodesy.initialBearing(51.4779, -0.0015, 51.4826, -0.0077)   // 320.6°
    /// ```
    @inlinable
    public static func initialBearing(
        _ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double
    ) -> Double {
        let radians = Double.pi / 180
        let phi1 = latitude1 * radians
        let phi2 = latitude2 * radians
        let deltaLambda = (longitude2 - longitude1) * radians
        let y = sin(deltaLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(deltaLambda)
        let degrees = atan2(y, x) / radians
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// Whether `latitude` and `longitude` are a position on the Earth: finite, latitude within
    /// -90...90 and longitude within -180...180 degrees.
    @inlinable
    public static func isValid(latitude: Double, longitude: Double) -> Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}
