#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// The time as a location source's fixes tell it: the latest fix's time, plus the time gone by
/// since it came. For dating what comes beside the fixes (a heart-rate strap's measurements) on
/// the fixes' timeline.
///
/// A GPS receiver's time is right where the system clock may not be (a Raspberry Pi has no
/// real-time clock, and starts at the date of its last shutdown until the network sets it); a
/// replay's fixes carry the times they were recorded at. Samples dated by the system clock would
/// then fall outside the workout their fixes make.
///
/// ```swift
/// let time = FixTime(following: gps)
/// let strap = BluetoothSensor(address: "C0:FF:EE:00:00:01", now: time.now)
/// ```
///
/// Before the first fix with a time it reads `fallback` (the system clock by default). It
/// observes `source` until ``cancel()``, or until it is released.
public final class FixTime: Sendable {
    private struct Anchor {
        var fixTime: Date
        var cameAt: Duration
    }

    private struct State {
        var anchor: Anchor?
        /// The latest time ``now()`` gave: it never goes back, though a fix may come a little
        /// earlier than the time since the one before says.
        var given: Date?
    }

    // GPSCore's pthread lock, which ThreadSanitizer sees (Synchronization.Mutex it does not): two
    // sensors read the time on their buses' threads at once.
    private let state = Locked(State())
    private let clock: ElapsedClock
    private let rate: Double
    private let fallback: @Sendable () -> Date
    private let observation = Locked<LocationObservation?>(nil)

    /// The time of `source`'s fixes: `rate` seconds of fix time go by per second of `clock` (a
    /// replay played 10 times as fast: 10).
    public init(
        following source: any LocationSource, rate: Double = 1, clock: some Clock<Duration> = ContinuousClock(),
        fallback: @escaping @Sendable () -> Date = { Date() }
    ) {
        precondition(rate > 0 && rate.isFinite, "FixTime: the rate must be a positive number, not \(rate)")
        self.clock = ElapsedClock(clock)
        self.rate = rate
        self.fallback = fallback
        let observed = source.addObserver { [weak self] event in
            guard case let .location(location) = event, let time = location.time else { return }
            self?.fixCame(dated: time)
        }
        observation.withLock { $0 = observed }
    }

    /// A time without a location source: `start` (the system clock's date now, by default), run
    /// on at `clock`'s pace. For an indoor workout and its sensors, whose samples and session are
    /// dated alike, and on a test clock alike.
    ///
    /// ```swift
    /// let time = FixTime(clock: clock)
    /// let trainer = BluetoothSensor(address: "C0:FF:EE:00:00:05", clock: clock, now: time.now)
    /// ```
    public init(startingAt start: Date = Date(), clock: some Clock<Duration> = ContinuousClock()) {
        self.clock = ElapsedClock(clock)
        rate = 1
        fallback = { start }
        let anchor = Anchor(fixTime: start, cameAt: self.clock.now)
        state.withLock { $0.anchor = anchor }
    }

    private func fixCame(dated time: Date) {
        let cameAt = clock.now
        state.withLock { state in
            // A fix dated at or before the latest (a repeat) does not move the time back.
            if let current = state.anchor, time <= current.fixTime { return }
            state.anchor = Anchor(fixTime: time, cameAt: cameAt)
        }
    }

    deinit {
        cancel()
    }

    /// The time now: the latest fix's, and the time since it came; never before a time it gave.
    @Sendable public func now() -> Date {
        let elapsed = clock.now
        let fallback = state.withLock { $0.anchor == nil } ? self.fallback() : nil
        return state.withLock { state in
            guard let anchor = state.anchor else { return fallback ?? Date() }
            let time = max(Self.date(anchor, at: elapsed, rate: rate), state.given ?? .distantPast)
            state.given = time
            return time
        }
    }

    /// Whether a fix with a time has come.
    public var hasFix: Bool {
        state.withLock { $0.anchor != nil }
    }

    /// Stops observing the source: the time goes on from the latest fix.
    public func cancel() {
        observation.withLock { observation in
            observation?.cancel()
            observation = nil
        }
    }

    private static func date(_ anchor: Anchor, at elapsed: Duration, rate: Double) -> Date {
        let since = elapsed - anchor.cameAt
        let seconds = Double(since.components.seconds) + Double(since.components.attoseconds) * 1e-18
        return anchor.fixTime.addingTimeInterval(seconds * rate)
    }
}
