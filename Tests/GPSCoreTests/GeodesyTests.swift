import GPSCore
import Testing

@Suite("Geodesy")
struct GeodesyTests {
    @Test func haversineOnTheWGS84MeanRadius() {
        // One degree of a meridian: R·π/180.
        #expect(abs(Geodesy.distance(0, 0, 1, 0) - 111_195.0802) < 0.001)
        // A quarter of the equator.
        #expect(abs(Geodesy.distance(0, 0, 0, 90) - 6_371_008.8 * .pi / 2) < 0.001)
        #expect(Geodesy.distance(51.5, -0.1, 51.5, -0.1) == 0)
        // Antipodes: asin's argument is clamped, no NaN.
        #expect(abs(Geodesy.distance(0, 0, 0, 180) - 6_371_008.8 * .pi) < 0.001)
    }

    @Test func isSymmetric() {
        let there = Geodesy.distance(51.5074, -0.1278, 48.8566, 2.3522)
        let back = Geodesy.distance(48.8566, 2.3522, 51.5074, -0.1278)
        #expect(there == back)
        #expect(abs(there - 343_560) < 100)  // London to Paris on the mean sphere: 343.56 km
    }

    @Test(arguments: [(91.0, 0.0), (-90.5, 0.0), (0.0, 180.5), (999.0, 999.0), (Double.nan, 0.0), (0.0, Double.infinity)])
    func rejectsPositionsOffTheEarth(latitude: Double, longitude: Double) {
        #expect(!Geodesy.isValid(latitude: latitude, longitude: longitude))
    }

    @Test(arguments: [(90.0, 180.0), (-90.0, -180.0), (0.0, 0.0), (51.4779, -0.0015)])
    func acceptsPositionsOnTheEarth(latitude: Double, longitude: Double) {
        #expect(Geodesy.isValid(latitude: latitude, longitude: longitude))
    }
}
