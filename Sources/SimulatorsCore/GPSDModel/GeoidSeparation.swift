#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The geoid's height above the WGS84 ellipsoid as gpsd 3.22 gives it for a receiver that does
/// not say (GGA without its separation field, or none at all): EGM2008 on a 5-degree grid
/// (``grid``, read from gpsd by `scripts/make-geoid-table`), interpolated bilinearly between the
/// four grid points around the position, as gpsd's `wgs84_separation` does. It can be off by
/// several metres from the model itself; the fakes use it to report the heights gpsd reports.
enum GeoidSeparation {
    /// Degrees between grid points.
    static let span = 5

    /// Metres of the geoid above the ellipsoid at a position (degrees); 0 off the grid.
    static func at(latitude: Double, longitude: Double) -> Double {
        guard latitude.isFinite, longitude.isFinite else { return 0 }
        let row = Int(((90 + latitude) / Double(span)).rounded(.down))
        let column = Int(((180 + longitude) / Double(span)).rounded(.down))
        guard grid.indices.contains(row), grid[row].indices.contains(column) else { return 0 }
        let nextRow = min(row + 1, grid.count - 1)
        let nextColumn = min(column + 1, grid[row].count - 1)
        return interpolate(
            x1: column * span - 180, y1: row * span - 90, x2: nextColumn * span - 180, y2: nextRow * span - 90,
            x: longitude, y: latitude,
            z11: Int(grid[row][column]), z12: Int(grid[row][nextColumn]),
            z21: Int(grid[nextRow][column]), z22: Int(grid[nextRow][nextColumn])) / 100
    }

    /// Bilinear interpolation of `z` at (`x`, `y`) between the corners (`x1`, `y1`) and
    /// (`x2`, `y2`), in gpsd's order of operations (its results are compared to the centimetre).
    /// At the grid's last row or column (90 N, 180 E) the corners coincide, and gpsd interpolates
    /// along the other side between `z11` and `z22`, which there lie on one line.
    private static func interpolate(
        x1: Int, y1: Int, x2: Int, y2: Int, x: Double, y: Double, z11: Int, z12: Int, z21: Int, z22: Int
    ) -> Double {
        let (xx1, x2x) = (x - Double(x1), Double(x2) - x)
        let (yy1, y2y) = (y - Double(y1), Double(y2) - y)
        if y1 == y2 {
            if x1 == x2 { return Double(z11) }
            return (Double(z22) * xx1 + Double(z11) * x2x) / Double(x2 - x1)
        }
        if x1 == x2 { return (Double(z22) * yy1 + Double(z11) * y2y) / Double(y2 - y1) }
        let area = (y2 - y1) * (x2 - x1)
        return (Double(z22) * yy1 * xx1 + Double(z12) * y2y * xx1 + Double(z21) * yy1 * x2x + Double(z11) * y2y * x2x)
            / Double(area)
    }
}
