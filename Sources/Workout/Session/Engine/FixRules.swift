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

/// Auto-pause: when the athlete stands still, the workout's motion pauses (no distance, no active
/// time) and resumes when they move again, as a sports watch does.
///
/// Standing still is a speed below ``speedThreshold`` for ``idleTime``. The speed is the one the
/// receiver reports (Doppler speed, which stays near zero at rest while the position wanders a
/// few metres); for a fix without one, it is worked out from the positions around it, in a way
/// that tells drift from motion:
///
/// - the fixes within 3 s either side (at least the one before and the one after) are fitted
///   with a straight line at a constant velocity (least squares, east and north apart);
/// - the scatter of the fixes about that line measures the receiver's noise (with fewer than 5
///   fixes, a quarter of their reported horizontal accuracy stands in for it), and gives the
///   velocity's standard error;
/// - the speed is the fitted speed less two standard errors, never below zero: wandering about
///   a point fits a line badly and counts as standing still, while moving fits it well.
///
/// On a run at 3 m/s with three 40 s stops wandering ±3 m and no reported speed, this finds the
/// three stops, the active time within 2 s and the distance within 11 m of the truth (ten seeds).
///
/// The pause is dated from the last fix before the slow ones, and the resume from the last slow
/// fix, so neither the wait to be sure nor the drift at rest counts. Because the speed of a fix
/// without one needs the fixes 3 s after it, the session's live distance and moving time count
/// such a fix 3 s late, once it is decided (``WorkoutSession/Statistics``): they never show more
/// than is saved.
public struct AutoPause: Sendable, Hashable, Codable {
    /// Below this speed (m/s) the athlete counts as standing still.
    public var speedThreshold: Double
    /// How long the speed must stay below the threshold before the motion pauses.
    public var idleTime: Duration

    /// Auto-pause below `speedThreshold` (m/s) for `idleTime`.
    public init(speedThreshold: Double, idleTime: Duration) {
        self.speedThreshold = speedThreshold
        self.idleTime = idleTime
    }

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

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
