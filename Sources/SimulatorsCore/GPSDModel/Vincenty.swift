#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Distances on the WGS84 ellipsoid by Vincenty's inverse formula (T. Vincenty, "Direct and
/// inverse solutions of geodesics on the ellipsoid", Survey Review, 1975), iterated as gpsd 3.22
/// iterates it (to 1e-12 radians, at most 100 times), so that the speeds the fakes work out from
/// positions are the ones gpsd reports to the millimetre per second.
///
/// Only the fakes use it, to be gpsd; the package's own distances are `Geodesy.distance` (GPSCore).
enum Vincenty {
    /// WGS84's semi-major and semi-minor axes (metres) and flattening.
    static let semiMajorAxis = 6_378_137.0
    static let semiMinorAxis = 6_356_752.314245
    static let flattening = 1 / 298.257223563

    /// The distance in metres between two positions (degrees); 0 for the same point, NaN when the
    /// iteration does not converge (nearly antipodal points) or a coordinate is NaN.
    static func distance(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let radians = 0.0174532925199432957692369076848861271
        let f = flattening
        let a = semiMajorAxis, b = semiMinorAxis
        let lambda0 = (longitude2 - longitude1) * radians
        // Reduced latitudes.
        let u1 = atan((1 - f) * tan(latitude1 * radians))
        let u2 = atan((1 - f) * tan(latitude2 * radians))
        let (sinU1, cosU1, sinU2, cosU2) = (sin(u1), cos(u1), sin(u2), cos(u2))

        var lambda = lambda0
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cosSquaredAlpha = 0.0, cos2SigmaM = 0.0
        var iterations = 100
        repeat {
            let (sinLambda, cosLambda) = (sin(lambda), cos(lambda))
            let crossed = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = ((cosU2 * sinLambda) * (cosU2 * sinLambda) + crossed * crossed).squareRoot()
            if sinSigma == 0 { return 0 }  // the same point
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cosSquaredAlpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cosSigma - 2 * sinU1 * sinU2 / cosSquaredAlpha
            if !cos2SigmaM.isFinite { cos2SigmaM = 0 }  // both on the equator
            let c = f / 16 * cosSquaredAlpha * (4 + f * (4 - 3 * cosSquaredAlpha))
            let previous = lambda
            lambda = lambda0 + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (2 * cos2SigmaM * cos2SigmaM - 1)))
            if !(abs(lambda - previous) > 1e-12) { break }  // converged (or NaN)
            iterations -= 1
            if iterations == 0 { return .nan }
        } while true

        let uSquared = cosSquaredAlpha * (a * a - b * b) / (b * b)
        let bigA = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
        let bigB = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
        let deltaSigma = bigB * sinSigma * (cos2SigmaM + bigB / 4
            * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - bigB / 6 * cos2SigmaM
                * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        return b * bigA * (sigma - deltaSigma)
    }
}
