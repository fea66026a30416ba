/// Any `Clock<Duration>`, erased to time elapsed since it was wrapped.
///
/// Swift cannot open an `any Clock<Duration>` into a generic call, and stored clocks must not make
/// every type generic; so public initializers take `some Clock<Duration>` and keep this instead.
package struct ElapsedClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void
    /// Whether the clock follows real time (`ContinuousClock`, `SuspendingClock`): a thread may
    /// then wait for it with a plain timeout. A test clock moves only when told, so a thread waits
    /// for it through ``sleep(until:)`` instead.
    package let followsRealTime: Bool

    package init<C: Clock<Duration>>(_ clock: C) {
        followsRealTime = clock is ContinuousClock || clock is SuspendingClock
        let reference = clock.now
        elapsed = { reference.duration(to: clock.now) }
        sleeper = { deadline in
            try await clock.sleep(until: reference.advanced(by: deadline), tolerance: nil)
        }
    }

    /// Time since the clock was wrapped.
    package var now: Duration {
        elapsed()
    }

    /// Sleeps until `now` reaches `deadline`. Throws `CancellationError` if the task is cancelled.
    package func sleep(until deadline: Duration) async throws {
        try await sleeper(deadline)
    }

    /// Sleeps for `duration`. Throws `CancellationError` if the task is cancelled.
    package func sleep(for duration: Duration) async throws {
        try await sleeper(now + duration)
    }
}
