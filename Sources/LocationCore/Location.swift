#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif
import GPSCore

/// One position fix: what gpsd's TPV report carries, in the terms a CoreLocation user expects.
///
/// Every measurement that the receiver did not report is `nil`, never NaN. Units are SI:
/// degrees (WGS84) for positions and courses, metres, metres per second.
///
/// ```swift
/// let fix = try await manager.requestLocation(timeout: .seconds(10))
/// print(fix.latitude, fix.longitude, fix.horizontalAccuracy ?? .nan)
/// ```
///
/// ## JSON
/// `Location` encodes to one flat object whose key names are stable (they are the names
/// `locate watch --json` and `locate once --format json` print). Absent values are left out.
///
/// | key | meaning | gpsd TPV field |
/// |---|---|---|
/// | `latitude`, `longitude` | WGS84 degrees | `lat`, `lon` |
/// | `altitude` | metres above mean sea level | `altMSL` |
/// | `altitude_hae` | metres above the WGS84 ellipsoid | `altHAE` |
/// | `h_accuracy` | horizontal error estimate, metres | `eph` (else `epx`, `epy` combined) |
/// | `v_accuracy` | vertical error estimate, metres | `epv` |
/// | `speed`, `speed_accuracy` | metres per second | `speed`, `eps` |
/// | `course`, `course_accuracy` | degrees from true north | `track`, `epd` |
/// | `climb` | vertical speed, metres per second | `climb` |
/// | `time` | the fix's own (GPS) time, RFC 3339 UTC | `time` |
/// | `received` | when the fix was received: now minus its age (see ``receivedAt``), RFC 3339 UTC | (none) |
/// | `mode` | `"none"`, `"2d"` or `"3d"` | `mode` |
/// | `status` | `"gps"`, `"dgps"`, `"rtk_fixed"`, ... (see ``FixStatus``) | `status` |
/// | `device` | the receiver's path, such as `/dev/ttyUSB0` | `device` |
/// | `simulated` | `true` when a fake produced it or the receiver says so | `status` 8 |
public struct Location: Sendable, Hashable {
    /// Degrees north of the equator, WGS84.
    public var latitude: Double
    /// Degrees east of Greenwich, WGS84.
    public var longitude: Double
    /// Metres above mean sea level (gpsd's `altMSL`); `nil` in a 2D fix.
    public var altitude: Double?
    /// Metres above the WGS84 ellipsoid (gpsd's `altHAE`); `nil` in a 2D fix.
    public var ellipsoidalAltitude: Double?
    /// Estimated horizontal error in metres.
    public var horizontalAccuracy: Double?
    /// Estimated vertical error in metres.
    public var verticalAccuracy: Double?
    /// Speed over ground in metres per second.
    public var speed: Double?
    /// Estimated speed error in metres per second.
    public var speedAccuracy: Double?
    /// Course over ground in degrees clockwise from true north.
    public var course: Double?
    /// Estimated course error in degrees.
    public var courseAccuracy: Double?
    /// Vertical speed in metres per second, positive upwards; `nil` in a 2D fix.
    public var climb: Double?
    /// The time of the fix as the receiver reports it (GPS time, in UTC). Replayed logs carry old dates.
    public var time: Date?
    /// When the fix was received: for a fix read as gpsd sent it, the moment this process read it;
    /// for a fix someone held (gpsd's answer to `?POLL;`, a manager's latest), that moment less
    /// how long it was held, so never the time it was asked for. On this machine's clock; for a
    /// replay, on the recording's (its fixes are received at their own times). ``age(at:)`` is the
    /// time since, as CoreLocation users read `-timestamp.timeIntervalSinceNow`.
    ///
    /// A fix gpsd held whose age cannot be told (gpsd's clock is not known to keep true time, see
    /// `LocationEvent.cachedLocation(_:age:)`) carries its own GPS ``time`` here, or the Unix
    /// epoch if it has none: no ``LocationManager`` request takes such a fix as recent.
    public var receivedAt: Date
    /// 2D or 3D.
    public var mode: FixMode
    /// The kind of solution, where gpsd reports one.
    public var status: FixStatus?
    /// The receiver that produced the fix, such as `/dev/ttyUSB0`.
    public var device: String?
    /// `true` when the fix did not come from a real receiver: a fake in `Simulators` made it,
    /// or the receiver itself reported a simulated fix.
    public var isSimulated: Bool

    /// Creates a fix. Pass only what is known; the rest stays `nil`.
    public init(
        latitude: Double,
        longitude: Double,
        altitude: Double? = nil,
        ellipsoidalAltitude: Double? = nil,
        horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        speedAccuracy: Double? = nil,
        course: Double? = nil,
        courseAccuracy: Double? = nil,
        climb: Double? = nil,
        time: Date? = nil,
        receivedAt: Date = Date(),
        mode: FixMode = .fix3D,
        status: FixStatus? = nil,
        device: String? = nil,
        isSimulated: Bool = false
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.ellipsoidalAltitude = ellipsoidalAltitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.climb = climb
        self.time = time
        self.receivedAt = receivedAt
        self.mode = mode
        self.status = status
        self.device = device
        self.isSimulated = isSimulated
    }
}

extension Location {
    /// Great-circle distance in metres to `other`, on a sphere of the WGS84 mean radius
    /// (6,371,008.8 m): `Geodesy.distance(_:_:_:_:)` (GPSCore).
    public func distance(to other: Location) -> Double {
        Geodesy.distance(latitude, longitude, other.latitude, other.longitude)
    }

    /// Great-circle distance in metres between two WGS84 positions.
    @available(*, deprecated, renamed: "Geodesy.distance(_:_:_:_:)")
    public static func haversineDistance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        Geodesy.distance(lat1, lon1, lat2, lon2)
    }

    /// The WGS84 mean radius R1, in metres.
    @available(*, deprecated, renamed: "Geodesy.meanEarthRadius")
    public static var meanEarthRadius: Double { Geodesy.meanEarthRadius }

    /// How old the fix is at `now`: the time since ``receivedAt`` (never negative: a fix received
    /// after `now`, by a clock set back meanwhile, is new). Not the time since the fix's GPS
    /// ``time``, which a receiver sends a moment late and a replay sends years late.
    ///
    /// ```swift
    /// let fix = try await manager.requestLocation(timeout: .seconds(10), maximumAge: .seconds(30))
    /// print(fix.age())   // at most 30 s, and 0 s for a fix that came after the call
    /// ```
    ///
    /// For a replay, pass the time on the recording's clock (a `FixTime` following the replay).
    public func age(at now: Date = Date()) -> Duration {
        let seconds = now.timeIntervalSince(receivedAt)
        return seconds > 0 ? .seconds(seconds) : .zero
    }

    /// Whether the fix carries the measurements its mode gives: a horizontal accuracy in 2D; an
    /// altitude, a horizontal and a vertical accuracy in 3D. gpsd sends no end-of-epoch marker,
    /// and the first reports of an epoch often lack them (a TPV made from the RMC sentence alone,
    /// before the GGA and GSA of the same second); a one-shot request from such a source waits a
    /// moment for a complete fix of the same time (see ``LocationManager/Configuration/epochWait``).
    public var isComplete: Bool {
        switch mode {
        case .noFix: true
        case .fix2D: horizontalAccuracy != nil
        case .fix3D: horizontalAccuracy != nil && verticalAccuracy != nil && (altitude != nil || ellipsoidalAltitude != nil)
        }
    }

    /// Whether the position is one on the Earth: finite, latitude within -90...90 and longitude
    /// within -180...180. A receiver (or a hostile peer) can report one that is not.
    public var hasValidCoordinates: Bool {
        Geodesy.isValid(latitude: latitude, longitude: longitude)
    }
}

extension Location: CustomStringConvertible {
    /// One line a person can read: time, position, mode, accuracy, altitude, speed and course.
    public var description: String {
        var parts: [String] = []
        parts.append(time.map { RFC3339.string(from: $0) } ?? "-")
        parts.append("\(TextBytes.fixed(latitude, decimals: 7)) \(TextBytes.fixed(longitude, decimals: 7))")
        parts.append(mode.description)
        if let horizontalAccuracy { parts.append("±\(TextBytes.fixed(horizontalAccuracy, decimals: 1))m") }
        if let altitude { parts.append("alt \(TextBytes.fixed(altitude, decimals: 1))m") }
        if let speed { parts.append("\(TextBytes.fixed(speed, decimals: 2))m/s") }
        if let course { parts.append("\(TextBytes.fixed(course, decimals: 1))°") }
        if let status, status != .simulated { parts.append(status.description) }
        if isSimulated || status == .simulated { parts.append("(simulated)") }
        return parts.joined(separator: " ")
    }
}
