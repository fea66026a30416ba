#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// Deterministic, plausible tracks for tests, fixtures and benchmarks: the same seed always gives
/// the same fixes, bit for bit.
///
/// ```swift
/// let walk = SyntheticTrack.generate(count: 600, seed: 42)   // ten minutes at 1 Hz
/// ```
public enum SyntheticTrack {
    /// Greenwich, the default starting point.
    public static let greenwich = (latitude: 51.477_928, longitude: -0.001_545)

    /// 2024-05-01T10:00:00Z, the default start time.
    public static let defaultStartTime = Date(timeIntervalSince1970: 1_714_557_600)

    /// `count` 3D fixes, `interval` apart from `startTime`, moving at about `speed` m/s with a
    /// course that wanders, over gently rolling ground. Every fix is marked simulated.
    public static func generate(
        count: Int,
        start: (latitude: Double, longitude: Double) = greenwich,
        startTime: Date = defaultStartTime,
        interval: Duration = .seconds(1),
        speed: Double = 3.0,
        seed: UInt64 = 1,
        device: String? = nil
    ) -> [Location] {
        var random = SeededRandom(seed: seed)
        var latitude = start.latitude
        var longitude = start.longitude
        var course = random.uniform(0, 360)
        let step = GPSDScript.seconds(interval)
        var fixes: [Location] = []
        fixes.reserveCapacity(count)
        for index in 0..<count {
            let elapsed = Double(index) * step
            let currentSpeed = max(0, speed * (1 + 0.15 * sin(elapsed / 45)) + random.uniform(-0.2, 0.2))
            let altitude = 30 + 12 * sin(elapsed / 300) + 3 * sin(elapsed / 37)
            let climb = (12 / 300) * cos(elapsed / 300) + (3 / 37) * cos(elapsed / 37)
            fixes.append(Location(
                latitude: (latitude * 1e9).rounded() / 1e9,
                longitude: (longitude * 1e9).rounded() / 1e9,
                altitude: (altitude * 1e3).rounded() / 1e3,
                ellipsoidalAltitude: ((altitude + 45.6) * 1e3).rounded() / 1e3,
                horizontalAccuracy: (random.uniform(2.5, 6) * 1e2).rounded() / 1e2,
                verticalAccuracy: (random.uniform(4, 9) * 1e2).rounded() / 1e2,
                speed: (currentSpeed * 1e3).rounded() / 1e3,
                course: (course * 1e3).rounded() / 1e3,
                climb: (climb * 1e3).rounded() / 1e3,
                time: startTime.addingTimeInterval(elapsed),
                receivedAt: startTime.addingTimeInterval(elapsed),
                mode: .fix3D,
                device: device,
                isSimulated: true))
            let distance = currentSpeed * step
            (latitude, longitude) = destination(latitude, longitude, course: course, distance: distance)
            course = (course + random.uniform(-8, 8)).truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
        }
        return fixes
    }

    /// The point `distance` metres from a position along `course` degrees, on the mean-radius sphere.
    public static func destination(_ latitude: Double, _ longitude: Double, course: Double, distance: Double) -> (Double, Double) {
        let radians = Double.pi / 180
        let angular = distance / Geodesy.meanEarthRadius
        let phi1 = latitude * radians
        let lambda1 = longitude * radians
        let theta = course * radians
        let phi2 = asin(sin(phi1) * cos(angular) + cos(phi1) * sin(angular) * cos(theta))
        let lambda2 = lambda1 + atan2(sin(theta) * sin(angular) * cos(phi1), cos(angular) - sin(phi1) * sin(phi2))
        var longitude2 = lambda2 / radians
        if longitude2 > 180 { longitude2 -= 360 }
        if longitude2 < -180 { longitude2 += 360 }
        return (phi2 / radians, longitude2)
    }
}

/// A small seeded random number generator (SplitMix64): the same seed gives the same sequence on
/// every machine, which `SystemRandomNumberGenerator` does not.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `low..<high`, from the top 53 bits.
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
