/// Any `Clock<Duration>`, erased to time elapsed since it was wrapped.
///
/// Swift cannot open an `any Clock<Duration>` into a generic call, and stored clocks must not make
/// every type generic; so public initializers take `some Clock<Duration>` and keep this instead.
package struct ElapsedClock: Sendable {
    private typealias Starter = @Sendable (@escaping @Sendable (ElapsedClock) async -> Void) -> Task<Void, Never>

    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void
    /// How a ``PacingClock`` starts a paced task (see ``pacedTask(_:)``); `nil` for other clocks.
    private let starter: Starter?
    /// Whether the clock follows real time (`ContinuousClock`, `SuspendingClock`): a thread may
    /// then wait for it with a plain timeout. A test clock moves only when told, so a thread waits
    /// for it through ``sleep(until:)`` instead.
    package let followsRealTime: Bool

    package init<C: Clock<Duration>>(_ clock: C) {
        followsRealTime = clock is ContinuousClock || clock is SuspendingClock
        let reference = clock.now
        let elapsed: @Sendable () -> Duration = { reference.duration(to: clock.now) }
        self.elapsed = elapsed
        sleeper = { deadline in
            try await clock.sleep(until: reference.advanced(by: deadline), tolerance: nil)
        }
        // A real-time clock paces nothing. Not asking it spares a cast whose first answer for a
        // type scans every protocol conformance record of the program: a start-up cost of every
        // command that keeps time (scripts/bench once-latency).
        starter = followsRealTime ? nil : (clock as? any PacingClock).flatMap { Self.starter(on: $0, from: reference, elapsed: elapsed) }
    }

    private init(elapsed: @escaping @Sendable () -> Duration, sleeper: @escaping @Sendable (Duration) async throws -> Void, starter: Starter?) {
        self.elapsed = elapsed
        self.sleeper = sleeper
        self.starter = starter
        followsRealTime = false
    }

    /// How `clock` starts a paced task: the task's own clock reads the same time and sleeps through
    /// the clock's `pace` for that task.
    private static func starter<P: PacingClock>(
        on clock: P, from reference: some InstantProtocol<Duration>, elapsed: @escaping @Sendable () -> Duration
    ) -> Starter? {
        guard let reference = reference as? P.Instant else { return nil }
        @Sendable func start(_ body: @escaping @Sendable (ElapsedClock) async -> Void) -> Task<Void, Never> {
            clock.pacedTask { pace in
                let sleeper: @Sendable (Duration) async throws -> Void = { deadline in try await pace(reference.advanced(by: deadline)) }
                await body(ElapsedClock(elapsed: elapsed, sleeper: sleeper, starter: start))
            }
        }
        return start
    }

    /// Whether the clock paces the tasks that keep time by it (a ``PacingClock``: the simulators'
    /// `VirtualClock`), so that time moves only as fast as they keep up.
    package var pacesTasks: Bool {
        starter != nil
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

    /// Starts `body` in a new task that keeps time by this clock: it sleeps on the clock it is
    /// given (this one: the same times), works, and sleeps again, waiting on nothing else for long.
    /// On a real clock this is `Task { await body(self) }`. A ``PacingClock`` (a test clock)
    /// counts the task from this call to its end, so that moving the clock waits for it after each
    /// wake-up until it sleeps again: a test that moves the clock finds everything the task had to
    /// do by then done, however busy the machine. The clock `body` is given is for its own task.
    package func pacedTask(_ body: @escaping @Sendable (_ clock: ElapsedClock) async -> Void) -> Task<Void, Never> {
        if let starter { return starter(body) }
        return Task { [self] in await body(self) }
    }
}

/// A clock that steps the tasks keeping time by it one at a time (a test clock such as the
/// simulators' `VirtualClock`): ``ElapsedClock/pacedTask(_:)`` starts such a task through it.
package protocol PacingClock: Clock<Duration> {
    /// Starts `body` in a new task that the clock counts from now to its end. `body` sleeps
    /// through `pace` (and through nothing else); when the clock wakes it, it waits for it to
    /// sleep again, or end, before it moves on.
    func pacedTask(
        _ body: @escaping @Sendable (_ pace: @escaping @Sendable (Instant) async throws -> Void) async -> Void
    ) -> Task<Void, Never>
}
