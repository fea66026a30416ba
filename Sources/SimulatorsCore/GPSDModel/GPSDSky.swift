#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GPSCore
import LocationCore

/// The satellites gpsd 3.22 holds for a receiver (its `skyview`), as a SKY report gives them.
struct GPSDSky: Sendable, Hashable {
    /// One satellite as gpsd holds it: PRN in gpsd's numbering (0 when gpsd could not place the
    /// receiver's number), the GNSS, the satellite's number in it and the signal as u-blox
    /// numbers them, and what the receiver said of it (`nil`: nothing).
    struct Satellite: Sendable, Hashable {
        var prn = 0
        var gnss = 0
        var number = 0
        var signal = 0
        var elevation: Double?
        var azimuth: Double?
        var signalStrength: Double?
        var used = false
    }

    /// The satellites in view, in the order the receiver listed them.
    var satellites: [Satellite] = []

    /// The satellites a SKY report lists: as many as have a PRN, taken from the front of the list
    /// (gpsd's `json_sky_dump` counts the ones with a PRN, then lists that many places, leaving
    /// out those without: a PRN-less satellite in the middle drops one off the end).
    var reported: [Satellite] {
        let count = satellites.count { $0.prn != 0 }
        return satellites.prefix(count).filter { $0.prn != 0 }
    }

    /// The report a ``GPSDClient`` makes of gpsd's SKY for this sky and `dilutions`: the values
    /// rounded as gpsd writes them (DOPs to two decimals, angles and strengths to one).
    func report(dilutions: GPSDDilutions, device: String?) -> SatelliteReport {
        let listed = reported
        func rounded(_ value: Double?, _ decimals: Int) -> Double? {
            value.flatMap { GPSDRounding.round($0, decimals) }
        }
        return SatelliteReport(
            device: device, time: nil,
            visibleCount: listed.count, usedCount: listed.count { $0.used },
            hdop: rounded(dilutions.horizontal, 2), vdop: rounded(dilutions.vertical, 2), pdop: rounded(dilutions.position, 2),
            tdop: rounded(dilutions.time, 2), gdop: rounded(dilutions.geometric, 2),
            satellites: listed.map { satellite in
                LocationCore.Satellite(
                    prn: satellite.prn,
                    elevation: rounded(satellite.elevation.flatMap { abs($0) <= 90 ? $0 : nil }, 1),
                    azimuth: rounded(satellite.azimuth.flatMap { (0...359).contains(abs($0)) ? $0 : nil }, 1),
                    signalStrength: rounded(satellite.signalStrength.flatMap { $0 >= 0 ? $0 : nil }, 1),
                    used: satellite.used)
            })
    }

    /// Fills in the dilutions the receiver did not give from the directions of the satellites it
    /// used (gpsd's `fill_dop`): XDOP, YDOP, HDOP, VDOP, PDOP, TDOP and GDOP are the square roots
    /// of the diagonal terms (and their sums) of the inverse of GᵀG, G's rows being each used
    /// satellite's direction east, north and up, and 1. Needs four satellites with a usable
    /// direction; a singular geometry gives nothing. Returns whether it computed them.
    @discardableResult
    func fillDilutions(_ dilutions: inout GPSDDilutions) -> Bool {
        let radians = 0.0174532925199432957692369076848861271
        let rows: [[Double]] = satellites.compactMap { satellite in
            guard satellite.used, satellite.prn >= 1,
                  let azimuth = satellite.azimuth, azimuth >= 0, azimuth <= 359,
                  let elevation = satellite.elevation, abs(elevation) <= 90 else { return nil }
            return [
                sin(azimuth * radians) * cos(elevation * radians),
                cos(azimuth * radians) * cos(elevation * radians),
                sin(elevation * radians),
                1,
            ]
        }
        guard rows.count >= 4 else { return false }
        var normal = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
        for i in 0..<4 {
            for j in 0..<4 {
                for row in rows { normal[i][j] += row[i] * row[j] }
            }
        }
        guard let diagonal = Self.inverseDiagonal(normal) else { return false }
        func dop(_ terms: Int...) -> Double? {
            GPSDErrorModel.known(terms.reduce(0.0) { $0 + diagonal[$1] }.squareRoot())
        }
        // The receiver's own values stay.
        dilutions.x = dilutions.x ?? dop(0)
        dilutions.y = dilutions.y ?? dop(1)
        dilutions.horizontal = dilutions.horizontal ?? dop(0, 1)
        dilutions.vertical = dilutions.vertical ?? dop(2)
        dilutions.position = dilutions.position ?? dop(0, 1, 2)
        dilutions.time = dilutions.time ?? dop(3)
        dilutions.geometric = dilutions.geometric ?? dop(0, 1, 2, 3)
        return true
    }

    /// The diagonal of the inverse of a 4×4 matrix, by cofactors: each principal 3×3 minor over
    /// the determinant, expanded along first rows as gpsd's `matrix_invert` does; `nil` when the
    /// determinant is under 1e-4 (a singular geometry, or floating-point fuzz about one).
    static func inverseDiagonal(_ m: [[Double]]) -> [Double]? {
        func minor2(_ r1: Int, _ r2: Int, _ c1: Int, _ c2: Int) -> Double {
            m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]
        }
        func minor3(_ r: (Int, Int, Int), _ c: (Int, Int, Int)) -> Double {
            m[r.0][c.0] * minor2(r.1, r.2, c.1, c.2) - m[r.0][c.1] * minor2(r.1, r.2, c.0, c.2)
                + m[r.0][c.2] * minor2(r.1, r.2, c.0, c.1)
        }
        let determinant = m[0][0] * minor3((1, 2, 3), (1, 2, 3)) - m[0][1] * minor3((1, 2, 3), (0, 2, 3))
            + m[0][2] * minor3((1, 2, 3), (0, 1, 3)) - m[0][3] * minor3((1, 2, 3), (0, 1, 2))
        guard abs(determinant) >= 0.0001 else { return nil }
        return [
            minor3((1, 2, 3), (1, 2, 3)) / determinant,
            minor3((0, 2, 3), (0, 2, 3)) / determinant,
            minor3((0, 1, 3), (0, 1, 3)) / determinant,
            minor3((0, 1, 2), (0, 1, 2)) / determinant,
        ]
    }
}

/// Numbers as gpsd writes them into its JSON (`%.Nf`) and a client reads them back: what a
/// ``GPSDClient`` receives is never more precise than that.
enum GPSDRounding {
    /// `value` written with `decimals` places and read back.
    static func round(_ value: Double, _ decimals: Int) -> Double {
        Double(TextBytes.fixed(value, decimals: decimals)) ?? value
    }
}
