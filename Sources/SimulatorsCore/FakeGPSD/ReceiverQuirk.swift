#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// A way a real receiver's reports go wrong, applied to chosen fixes when a ``GPSDScript`` is made
/// from locations (``GPSDScript/fixes(_:interval:device:satellites:quirks:)``), so a test can play
/// what receivers send in the field instead of a perfect track.
///
/// ```swift
/// let script = GPSDScript.fixes(track, quirks: [
///     .withoutTime(fix: 0),                        // a position before the receiver knows the date
///     .withoutSpeed(fixes: 0...),                  // no Doppler speed in any fix
///     .gpsWeekRollover(fixes: 60..<70),            // dated 1024 weeks early
///     .withoutPosition(fixes: 80..<90),            // mode-1 TPVs: the sky is lost
///     .moved(fixes: 90..., metres: 5_000),         // then a jump of 5 km
/// ])
/// ```
///
/// Fixes are chosen by their index in the locations, from 0; a range reaching past the last fix
/// stops there. A quirk changes what is sent, never when: each report stays due at its index
/// times the interval, as a receiver whose clock or position is wrong still reports on time.
/// Quirks on the same fix apply in the order given.
public struct ReceiverQuirk: Sendable, Hashable {
    /// What goes wrong.
    public enum Kind: Sendable, Hashable {
        /// The TPV has no `time` (nor `ept`): a receiver with a position but not yet the date.
        case withoutTime
        /// The TPV has no `speed`: a receiver that reports no Doppler speed.
        case withoutSpeed
        /// The TPV's `time` is moved by this much (negative: earlier), its position left as it is:
        /// a clock stepping back, or a GPS week rollover (``ReceiverQuirk/gpsWeekRolloverPeriod``).
        case timeShifted(by: Duration)
        /// The position is moved this many metres along `course` (degrees from north): a jump.
        case moved(metres: Double, course: Double)
        /// A TPV without a position (mode 1, its `time` kept): the receiver lost its fix.
        case withoutPosition
        /// Nothing is sent for the fix: the receiver (or gpsd) is silent for that long.
        case silent
    }

    /// What goes wrong.
    public var kind: Kind
    /// The indices of the fixes it applies to.
    public var fixes: Range<Int>

    /// A quirk of `kind` for the fixes at `fixes` (`60..<70`, `60...69`, `100...`).
    public init(_ kind: Kind, fixes: some RangeExpression<Int>) {
        self.kind = kind
        self.fixes = fixes.relative(to: 0..<Int.max)
    }

    /// 1024 weeks (619,315,200 s): how far early a receiver with a 10-bit GPS week number dates
    /// its fixes after a week rollover.
    public static let gpsWeekRolloverPeriod = Duration.seconds(1024 * 7 * 86_400)

    /// No `time` in the fixes at `fixes`. See ``Kind/withoutTime``.
    public static func withoutTime(fixes: some RangeExpression<Int>) -> ReceiverQuirk {
        ReceiverQuirk(.withoutTime, fixes: fixes)
    }

    /// No `time` in fix number `fix`. See ``Kind/withoutTime``.
    public static func withoutTime(fix: Int) -> ReceiverQuirk {
        ReceiverQuirk(.withoutTime, fixes: fix...fix)
    }

    /// No `speed` in the fixes at `fixes` (`0...` for all). See ``Kind/withoutSpeed``.
    public static func withoutSpeed(fixes: some RangeExpression<Int>) -> ReceiverQuirk {
        ReceiverQuirk(.withoutSpeed, fixes: fixes)
    }

    /// The times of the fixes at `fixes` moved by `shift` (`.seconds(-5)`: 5 s earlier). See
    /// ``Kind/timeShifted(by:)``.
    public static func timeShifted(fixes: some RangeExpression<Int>, by shift: Duration) -> ReceiverQuirk {
        ReceiverQuirk(.timeShifted(by: shift), fixes: fixes)
    }

    /// The fixes at `fixes` dated 1024 weeks early, as a receiver with a 10-bit week number
    /// dates them after a rollover.
    public static func gpsWeekRollover(fixes: some RangeExpression<Int>) -> ReceiverQuirk {
        ReceiverQuirk(.timeShifted(by: .zero - gpsWeekRolloverPeriod), fixes: fixes)
    }

    /// The fixes at `fixes` moved `metres` along `course` (degrees from north; east by default).
    /// Move every fix from one index on for a jump that stays. See ``Kind/moved(metres:course:)``.
    public static func moved(fixes: some RangeExpression<Int>, metres: Double, course: Double = 90) -> ReceiverQuirk {
        ReceiverQuirk(.moved(metres: metres, course: course), fixes: fixes)
    }

    /// Mode-1 TPVs (no position, the time kept) instead of the fixes at `fixes`. See
    /// ``Kind/withoutPosition``.
    public static func withoutPosition(fixes: some RangeExpression<Int>) -> ReceiverQuirk {
        ReceiverQuirk(.withoutPosition, fixes: fixes)
    }

    /// Nothing sent instead of the fixes at `fixes`. See ``Kind/silent``.
    public static func silent(fixes: some RangeExpression<Int>) -> ReceiverQuirk {
        ReceiverQuirk(.silent, fixes: fixes)
    }
}

extension ReceiverQuirk {
    /// What is sent for one fix once quirks have applied.
    enum Report {
        case fix(Location)
        case noFix(time: Date?)
        case nothing
    }

    /// What is sent for `location`, the fix at `index`, with `quirks` applied in order.
    static func report(for location: Location, at index: Int, applying quirks: [ReceiverQuirk]) -> Report {
        var location = location
        var hasPosition = true
        for quirk in quirks where quirk.fixes.contains(index) {
            switch quirk.kind {
            case .withoutTime:
                location.time = nil
            case .withoutSpeed:
                location.speed = nil
            case let .timeShifted(shift):
                location.time = location.time?.addingTimeInterval(GPSDScript.seconds(shift))
            case let .moved(metres, course):
                (location.latitude, location.longitude) = SyntheticTrack.destination(
                    location.latitude, location.longitude, course: course, distance: metres)
            case .withoutPosition:
                hasPosition = false
            case .silent:
                return .nothing
            }
        }
        return hasPosition ? .fix(location) : .noFix(time: location.time)
    }
}
