import LocationFacade

/// A clock whose time the test sets and whose sleepers never wake on their own (only
/// cancellation ends a sleep): it lets a test put an event at the very instant of a deadline
/// before the deadline's timer has had a chance to run.
public final class HeldClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Locked(Instant(offset: .zero))

    public init() {}

    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .zero }

    /// Moves the time to `offset` from the start, waking no one.
    public func set(to offset: Duration) {
        current.withLock { $0 = Instant(offset: offset) }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let never = AsyncStream<Never> { _ in }
        for await _ in never {}
        throw CancellationError()
    }
}
