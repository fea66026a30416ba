import Foundation
import LocationCore
import RegionMonitoring
import SimulatorsCore

/// Fixes for the tests, on their own time line (no clock is read): walks, jitter, a swinging boat.
enum Walks {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let greenwich = GeoCoordinate(latitude: 51.4779, longitude: -0.0015)

    /// A fix at `point`, `seconds` after ``start``, claiming `accuracy` metres.
    static func fix(_ point: GeoCoordinate, at seconds: Double, accuracy: Double? = 5) -> Location {
        let time = start.addingTimeInterval(seconds)
        return Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: accuracy, time: time, receivedAt: time)
    }

    /// `point` moved by a random offset uniform in a disk of `radius` metres.
    static func jittered(_ point: GeoCoordinate, radius: Double, _ random: inout SeededRandom) -> GeoCoordinate {
        let distance = radius * Double.random(in: 0...1, using: &random).squareRoot()
        return point.destination(bearing: Double.random(in: 0..<360, using: &random), distance: distance)
    }

    /// A straight walk from `from`, `step` metres a second on `bearing`, for `seconds` fixes.
    static func line(from: GeoCoordinate, bearing: Double, step: Double, seconds: Int) -> [GeoCoordinate] {
        (0..<seconds).map { from.destination(bearing: bearing, distance: Double($0) * step) }
    }
}

extension Array where Element == RegionEvent {
    /// The kinds, in order.
    var kinds: [RegionEvent.Kind] { map(\.kind) }
}
