/// When a moving device counts as standing still: a speed below ``speedThreshold`` for
/// ``idleTime``. ``MotionDetector`` decides by it: a workout session's auto-pause
/// (`AutoPause` is this rule), `LocationManager`'s stationary updates, and anything else that
/// must tell a stop from the wander of a receiver at rest.
///
/// The speed is the one the receiver reports (Doppler speed, which stays near zero at rest while
/// the position wanders a few metres); for a fix without one, it is worked out from the positions
/// around it, in a way that tells drift from motion:
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
/// three stops, the moving time within 2 s and the distance within 11 m of the truth (ten seeds).
///
/// A stop is dated from the last fix before the slow ones, and the motion again from the last
/// slow fix, so neither the wait to be sure nor the drift at rest counts. Because the speed of a
/// fix without one needs the fixes 3 s after it, a decision about it comes 3 s late.
public struct MotionRule: Sendable, Hashable, Codable {
    /// Below this speed (m/s) the device counts as standing still.
    public var speedThreshold: Double
    /// How long the speed must stay below the threshold before the device counts as stopped.
    public var idleTime: Duration

    /// Standing still below `speedThreshold` (m/s) for `idleTime`.
    public init(speedThreshold: Double, idleTime: Duration) {
        self.speedThreshold = speedThreshold
        self.idleTime = idleTime
    }

    /// The rule for a device that is not being exercised with (a vehicle, a boat, a phone):
    /// below 0.5 m/s for 10 s.
    public static let standingStill = MotionRule(speedThreshold: 0.5, idleTime: .seconds(10))
}

extension Duration {
    /// The duration in seconds, as a Double.
    @inlinable
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
