import Foundation
import GPSCore
import LocationCore

/// What the session engine needs of a route point: small and flat, read from a live fix or from a
/// stored row alike.
struct TimelinePoint: Sendable, Hashable, MotionFix {
    /// Its place in the route, from 0.
    var ordinal: Int
    /// The segment it came in: a new one after a jump (live) or as stored. The engine never
    /// counts distance across a change of segment.
    var segment: Int
    /// Seconds since 1970, strictly increasing along a route.
    var time: Double
    var latitude: Double
    var longitude: Double
    var altitude: Double?
    /// The speed the receiver reported, m/s.
    var speed: Double?
    var horizontalAccuracy: Double?

    init(ordinal: Int, segment: Int, location: Location) {
        self.ordinal = ordinal
        self.segment = segment
        time = location.time?.timeIntervalSince1970 ?? location.receivedAt.timeIntervalSince1970
        latitude = location.latitude
        longitude = location.longitude
        altitude = location.altitude
        speed = location.speed
        horizontalAccuracy = location.horizontalAccuracy
    }

    init(_ point: RoutePoint) {
        self.init(ordinal: point.ordinal, segment: point.segment, location: point.location)
    }

    func distance(to other: TimelinePoint) -> Double {
        Geodesy.distance(latitude, longitude, other.latitude, other.longitude)
    }
}

extension TimelinePoint {
    init(ordinal: Int, segment: Int, time: Double, latitude: Double, longitude: Double, altitude: Double?, speed: Double?, horizontalAccuracy: Double?) {
        self.ordinal = ordinal
        self.segment = segment
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.horizontalAccuracy = horizontalAccuracy
    }
}

extension WorkoutEvent: MotionAction {
    /// A pause stops the judging of motion, a resume starts it again.
    public var motionEffect: MotionEffect {
        switch kind {
        case .pause: .pause
        case .resume: .resume
        default: .none
        }
    }

    /// Moves the event to `time`, seconds since 1970.
    public mutating func redate(to time: Double) {
        self.time = Date(timeIntervalSince1970: time)
    }
}
