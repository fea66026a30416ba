import LocationCore

/// The limits a session holds its fixes to: how fast the activity can go, and how inaccurate a
/// fix may be and still count. Defaults per activity: ``defaults(for:)``.
///
/// A fix further from the last accurate fix than `maximumSpeed` allows in the time between them,
/// with a margin for the two fixes' errors (twice the larger horizontal accuracy, at least
/// ``jumpMargin``), is a **jump**: the route starts a new segment there and the step adds no
/// distance (``InputIssue/jump``). A gap without fixes followed by a plausible move is not a jump:
/// 200 m after a minute without a fix is counted, as a runner covers it.
///
/// A fix whose horizontal accuracy is worse than `maximumHorizontalAccuracy` is kept as a route
/// point but counts for neither distance, elevation nor auto-pause (``InputIssue/inaccurate``). A fix
/// without an accuracy counts.
public struct FixRules: Sendable, Hashable, Codable {
    /// The fastest the activity goes, metres per second.
    public var maximumSpeed: Double
    /// The worst horizontal accuracy (metres, gpsd's `eph`) that still counts.
    public var maximumHorizontalAccuracy: Double

    /// The least margin, metres, a jump must exceed beyond what ``maximumSpeed`` allows.
    public static let jumpMargin = 20.0

    /// Limits of your own.
    public init(maximumSpeed: Double, maximumHorizontalAccuracy: Double) {
        self.maximumSpeed = maximumSpeed
        self.maximumHorizontalAccuracy = maximumHorizontalAccuracy
    }

    /// The defaults: a horizontal accuracy of 100 m at worst (gpsd works a receiver's accuracy
    /// out as about 19 m times its HDOP when the receiver gives none: 100 m is an HDOP of about
    /// 5, where a fix is poor; older receivers report 50-60 m for good ones), and the fastest speed of each
    /// activity, a little above what its best athletes reach: running 12 m/s, walking and hiking
    /// 7 m/s, cycling 30 m/s, cross-country skiing 15 m/s, downhill skiing 45 m/s, skating 20 m/s,
    /// swimming 4 m/s, rowing and paddling 8 m/s, anything else 100 m/s.
    public static func defaults(for activity: WorkoutActivityType) -> FixRules {
        let speed: Double = switch activity {
        case .running: 12
        case .walking, .hiking: 7
        case .cycling: 30
        case .crossCountrySkiing: 15
        case .downhillSkiing: 45
        case .skating: 20
        case .swimming: 4
        case .rowing, .paddling: 8
        case .other: 100
        }
        return FixRules(maximumSpeed: speed, maximumHorizontalAccuracy: 100)
    }

    /// Whether a fix with this accuracy counts.
    func isAccurate(_ horizontalAccuracy: Double?) -> Bool {
        horizontalAccuracy.map { $0 <= maximumHorizontalAccuracy } ?? true
    }
}

/// Auto-pause: when the athlete stands still, the workout's motion pauses (no distance, no moving
/// time) and resumes when they move again, as a sports watch does. It is LocationCore's
/// `MotionRule`, which `MotionDetector` decides by: read it for how standing still is told from drift.
public typealias AutoPause = MotionRule

extension MotionRule {
    /// The defaults per activity: running 0.8 m/s (a slow walk) for 5 s; walking and hiking
    /// 0.4 m/s for 10 s; cycling 1.5 m/s for 5 s; skiing and skating 1.0 m/s for 5 s; in the
    /// water 0.2 m/s for 15 s; anything else 0.5 m/s for 10 s.
    public static func defaults(for activity: WorkoutActivityType) -> AutoPause {
        switch activity {
        case .running: AutoPause(speedThreshold: 0.8, idleTime: .seconds(5))
        case .walking, .hiking: AutoPause(speedThreshold: 0.4, idleTime: .seconds(10))
        case .cycling: AutoPause(speedThreshold: 1.5, idleTime: .seconds(5))
        case .crossCountrySkiing, .downhillSkiing, .skating: AutoPause(speedThreshold: 1.0, idleTime: .seconds(5))
        case .swimming, .rowing, .paddling: AutoPause(speedThreshold: 0.2, idleTime: .seconds(15))
        case .other: AutoPause(speedThreshold: 0.5, idleTime: .seconds(10))
        }
    }
}

