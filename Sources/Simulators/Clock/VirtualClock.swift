import LocationFacade
import GPSCore

/// A clock whose time moves only when a test says so, built for replays: a day of 1 Hz fixes
/// plays through a `LocationManager` in well under a second, with the same events in the same
/// order every run.
///
/// Like swift-clocks' `TestClock`, ``advance(by:)`` wakes sleepers in order of their deadlines,
/// with ``now`` set to each one's deadline as it wakes. Unlike it, it does not hop through twenty
/// detached tasks after each wake-up: it lets the woken task run until it sleeps again (or for a
/// few yields if it does not), and the simulators in this module schedule their steps on the
/// clock directly, without a task switch per fix.
///
/// ```swift
/// let clock = VirtualClock()
/// let device = try ReplayLocationSource(gpsdLog: url, clock: clock)
/// let manager = LocationManager(source: device, clock: clock)
/// let fixes = manager.updates(buffering: .all)
/// await clock.advance(by: .seconds(86_400))
/// ```
public final class VirtualClock: Clock, Sendable {
    /// A point on the virtual time line: time elapsed since the clock's start.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private enum Waiter {
        case sleeper(CheckedContinuation<Void, any Error>)
        case action(@Sendable () -> Void)
    }

    private struct Entry {
        var deadline: Duration
        var order: UInt64
        var waiter: Waiter
    }

    private struct State {
        var now: Duration
        var entries: [UInt64: Entry] = [:]
        var queue = DeadlineQueue()
        var nextOrder: UInt64 = 0
        var sleeps: UInt64 = 0
    }

    private let state: Locked<State>

    /// A clock standing at `start`.
    public init(start: Duration = .zero) {
        state = Locked(State(now: start))
    }

    public var now: Instant {
        Instant(offset: state.withLock { $0.now })
    }

    public var minimumResolution: Duration { .zero }

    /// Suspends until the clock reaches `deadline` (returns at once if it has).
    /// Throws `CancellationError` if the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let order: UInt64? = state.withLock { state in
            guard deadline.offset > state.now else { return nil }
            state.nextOrder += 1
            return state.nextOrder
        }
        guard let order else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.entries[order] = Entry(deadline: deadline.offset, order: order, waiter: .sleeper(continuation))
                    state.queue.insert(deadline.offset, order)
                    state.sleeps += 1
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let entry = state.withLock { $0.entries.removeValue(forKey: order) }
            if case let .sleeper(continuation)? = entry?.waiter { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `action` when the clock reaches `deadline`, from within ``advance(to:)``, in deadline
    /// order with the sleepers. Returns a token that ``cancel(_:)`` takes.
    package func schedule(at deadline: Instant, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.nextOrder += 1
            state.entries[state.nextOrder] = Entry(deadline: deadline.offset, order: state.nextOrder, waiter: .action(action))
            state.queue.insert(deadline.offset, state.nextOrder)
            return state.nextOrder
        }
    }

    /// Cancels a scheduled action that has not run.
    package func cancel(_ token: UInt64) {
        state.withLock { _ = $0.entries.removeValue(forKey: token) }
    }

    /// Moves the clock forward by `duration`, waking everything due on the way, in order.
    public func advance(by duration: Duration = .zero) async {
        await advance(to: Instant(offset: state.withLock { $0.now } + duration))
    }

    /// Moves the clock to `deadline`, waking everything due on the way, in order.
    public func advance(to deadline: Instant) async {
        var woken = 0
        while true {
            let next: (Waiter, UInt64)? = state.withLock { state in
                while let (due, order) = state.queue.first, due <= deadline.offset {
                    state.queue.removeFirst()
                    guard let entry = state.entries.removeValue(forKey: order) else { continue }  // cancelled
                    state.now = max(state.now, due)
                    return (entry.waiter, state.sleeps)
                }
                state.now = max(state.now, deadline.offset)
                return nil
            }
            guard let (waiter, sleepsBefore) = next else { break }
            switch waiter {
            case let .action(action):
                action()
            case let .sleeper(continuation):
                continuation.resume()
                // Let the woken task run until it sleeps again (or, if it ends, for a few yields).
                var yields = 0
                while yields < 16, state.withLock({ $0.sleeps == sleepsBefore }) {
                    await Task.yield()
                    yields += 1
                }
            }
            woken += 1
            if woken % 256 == 0 { await Task.yield() }  // let consumers drain
        }
        await Task.yield()
    }

    /// Advances until nothing is scheduled any more (never returns if something always reschedules).
    public func run() async {
        while let next = state.withLock({ $0.queue.first?.0 }) {
            await advance(to: Instant(offset: next))
        }
    }
}

/// A binary min-heap of (deadline, order): the earliest deadline first, then the earliest scheduled.
private struct DeadlineQueue {
    private var heap: [(Duration, UInt64)] = []

    var first: (Duration, UInt64)? { heap.first }

    mutating func insert(_ deadline: Duration, _ order: UInt64) {
        heap.append((deadline, order))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, Self.less(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.less(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }

    private static func less(_ a: (Duration, UInt64), _ b: (Duration, UInt64)) -> Bool {
        a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
    }
}
