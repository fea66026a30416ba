#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore
import WorkoutCore

/// The metres covered between a device's successive total distances (a foot pod's RSC total, a
/// treadmill's or a trainer's FTMS one): a session adds up `.distance` samples, each the metres of
/// its interval, so a total is never handed on as it is.
///
/// A total that goes back is the counter's wrap (its field full: 16,777,215 m for FTMS, 429,496,729.5
/// m for RSC) when the metres past the wrap are few enough for the time, or the machine reset (a
/// treadmill restarted, a foot pod's reset): then its new total is the metres since the reset, if
/// few enough, and nothing otherwise. A jump further than ``maximumSpeed`` allows over the time
/// (at least ``minimumWindow``, so that two notifications a moment apart still count) is no
/// distance either: the count starts again from there. The first total is only where it starts.
package struct TotalDistance: Sendable {
    /// The counter's modulus: the metres at which it wraps to 0.
    package let modulus: Double
    /// The fastest a device of its kind is taken to move, in m/s.
    package let maximumSpeed: Double
    /// The least time a difference is judged over.
    package static let minimumWindow = 2.0

    private var last: (total: Double, receivedAt: Duration, date: Date)?

    /// A counter of totals that wrap at `modulus` metres, from a device moving at most `maximumSpeed`.
    package init(modulus: Double, maximumSpeed: Double) {
        self.modulus = modulus
        self.maximumSpeed = maximumSpeed
    }

    /// FTMS's total distance: a 24-bit count of metres.
    package static func fitnessMachine(maximumSpeed: Double) -> TotalDistance {
        TotalDistance(modulus: 16_777_216, maximumSpeed: maximumSpeed)
    }

    /// RSC's total distance: a 32-bit count of decimetres.
    package static let footPod = TotalDistance(modulus: 429_496_729.6, maximumSpeed: runningSpeed)

    /// The fastest a runner or a treadmill's belt is taken to go: 15 m/s (54 km/h).
    package static let runningSpeed = 15.0
    /// The fastest a trainer or an exercise bike is taken to go: 35 m/s (126 km/h, a simulated descent).
    package static let cyclingSpeed = 35.0

    /// Takes `total` metres, received at `now` (a monotonic clock's reading) and dated `date`: the
    /// distance covered since the last total, over its interval, or `nil` when there is none to
    /// give (the first total, no metres, a reset without a plausible count, a jump).
    package mutating func add(_ total: Double, receivedAt now: Duration, date: Date) -> QuantitySample? {
        defer { last = (total, now, date) }
        guard let last else { return nil }
        let plausible = maximumSpeed * max((now - last.receivedAt).seconds, Self.minimumWindow)
        let covered: Double
        if total >= last.total {
            covered = total - last.total
        } else if modulus - last.total + total <= plausible {
            covered = modulus - last.total + total  // the counter wrapped
        } else {
            covered = total  // reset: the metres since (none if they are too many for the time)
        }
        guard covered > 0, covered <= plausible else { return nil }
        // Metres in the field's resolution, without the binary noise of a difference of tenths.
        let metres = (covered * 10).rounded() / 10
        return QuantitySample(type: .distance, value: metres, start: min(last.date, date), end: date)
    }
}
