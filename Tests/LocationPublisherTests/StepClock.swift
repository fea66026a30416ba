import GPSCore

/// A test clock that says who sleeps on it: a test waits until the publisher sleeps (and reads
/// until when), then moves the time to just before that deadline (nothing wakes) and to it (the
/// sleeper wakes). swift-clocks' `TestClock` cannot tell whether a task has gone to sleep yet, so
/// an advance made a moment too early passes the sleep by.
final class StepClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper: Sendable {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State: Sendable {
        var now = Duration.zero
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state = ObservedState(State())

    var now: Instant { Instant(offset: state.withLock { $0.now }) }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due = state.withLock { state -> Bool in
                    if deadline.offset <= state.now { return true }
                    if Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline.offset, continuation: continuation)
                    return false
                }
                if due { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Waits until `count` tasks sleep on the clock; returns their deadlines, earliest first,
    /// as offsets from the clock's start.
    func waitForSleepers(_ count: Int = 1) async -> [Duration] {
        await state.waitUntil { $0.sleepers.count >= count }
        return state.withLock { $0.sleepers.values.map(\.deadline).sorted() }
    }

    /// How many tasks sleep on the clock now.
    var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Sets the time to `offset` from the start and wakes the sleepers due by then.
    func set(to offset: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = offset
            let due = state.sleepers.filter { $0.value.deadline <= offset }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
