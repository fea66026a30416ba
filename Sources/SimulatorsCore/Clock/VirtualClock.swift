import LocationCore
import GPSCore

/// A clock whose time moves only when a test says so, built for replays: a day of 1 Hz fixes
/// plays through a `LocationManager` in well under a second, with the same events in the same
/// order every run.
///
/// Like swift-clocks' `TestClock`, ``advance(by:)`` wakes sleepers in order of their deadlines
/// (in the order they went to sleep for the same deadline), with ``now`` set to each one's
/// deadline as it wakes, and lets the woken task run before it moves on. How long it lets it run
/// depends on the task:
///
/// - The tasks that only keep time by the clock (the replay device's player, a workout session's
///   ticker) are *paced*: the clock counts each from its start to its end. An advance waits for
///   every paced task to sleep on the clock (or end) before it wakes the next sleeper, however
///   long that takes, so none of their sleeps is passed by, and a test finds everything due by
///   the time it advanced to done when `advance` returns. A paced task whose next deadline comes
///   before anything else due runs on without a task switch: its sleep returns at once, with the
///   clock moved to that deadline; and a paced task going to sleep wakes the next one due itself.
///   (After a few hundred wake-ups in a row the advance yields, to let consumers drain.)
/// - Any other task woken (a `LocationManager`'s timeout, a workout session's retry) is let run
///   until it sleeps on the clock again, or, if it does not, for a few yields once it has started.
///
/// One advance runs at a time; an advance called during another waits for it to end.
///
/// ## Every fix to every consumer
///
/// A replay paced by this clock sends its fixes as fast as the test advances it: a day's in well
/// under a second, far faster than any consumer reads. A `LocationManager` on this clock therefore
/// keeps, by default, every fix a stream's consumer has not read yet (its `updates()` and
/// `liveUpdates()` buffer `.all` here, where on a real clock they keep the newest): each consumer
/// reads every fix, in order, run after run, however much work it does between two. With
/// `.newest(1)` which fixes a consumer read depended on how fast it ran: the same 300-fix replay
/// gave 15 to 52 lines across runs. A consumer that starts after a fix came does not get it.
///
/// ```swift
/// let clock = VirtualClock()
/// let device = try ReplayRecording(gpxOrNMEAContentsOf: url).device(clock: clock)
/// let manager = LocationManager(source: device, clock: clock)
/// let fixes = manager.updates()   // every fix, on this clock
/// await clock.advance(by: .seconds(86_400))
/// ```
public final class VirtualClock: Clock, PacingClock, Sendable {
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

    /// How many sleepers an advance wakes, or paced tasks run on past a deadline, before it yields.
    private static let wakesBetweenYields = 256
    /// How many times an advance yields, once a woken task that is not paced has started, for it to
    /// sleep again.
    private static let yieldsForOthers = 16

    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
        /// The paced task sleeping, if it is one.
        var pacer: UInt64?
    }

    /// The advance under way.
    private struct Advance {
        /// How far it goes (`nil`: until nothing is left, for ``run()``).
        var limit: Duration?
        /// Wake-ups and run-ons left before it yields.
        var wakesBeforeYield = VirtualClock.wakesBetweenYields
    }

    private struct State {
        var now: Duration
        var sleepers: [UInt64: Sleeper] = [:]
        var queue = DeadlineQueue()
        var nextOrder: UInt64 = 0
        /// How many sleeps of tasks that are not paced have begun: an advance waits for such a task,
        /// once woken, until this moves.
        var sleeps: UInt64 = 0
        /// A sleeper that is not paced, woken by the advance, whose task has not run yet.
        var wokenNotRunning: UInt64?
        var nextPacer: UInt64 = 0
        /// The paced tasks running: started, woken or cancelled, and not yet asleep again or ended.
        var awake: Set<UInt64> = []
        /// The advance, parked until no paced task runs.
        var waitingForPacers: CheckedContinuation<Void, Never>?
        /// Whether an advance has its turn (the others wait in `waitingAdvances`).
        var advancing = false
        var waitingAdvances: [CheckedContinuation<Void, Never>] = []
        /// The advance under way, once it has its turn.
        var advance: Advance?

        /// Removes the sleepers cancelled from the front of the queue, and returns the first left.
        mutating func first() -> (deadline: Duration, order: UInt64)? {
            while let (deadline, order) = queue.first {
                if sleepers[order] != nil { return (deadline, order) }
                queue.removeFirst()
            }
            return nil
        }

        /// Whether paced task `pacer`, going to sleep until `deadline`, runs on at once instead:
        /// an advance to at least `deadline` is parked waiting for the paced tasks, no other runs,
        /// nothing is due before it, and the advance need not yield yet. If so the clock is at
        /// `deadline`, as if the advance had woken it there.
        mutating func runsOn(_ pacer: UInt64, to deadline: Duration) -> Bool {
            guard waitingForPacers != nil, var advance, advance.wakesBeforeYield > 0, advance.limit.map({ deadline <= $0 }) ?? true,
                  awake.count == 1, awake.contains(pacer)
            else { return false }
            if let (due, _) = first(), due <= deadline { return false }
            advance.wakesBeforeYield -= 1
            self.advance = advance
            now = deadline
            return true
        }

        /// Marks paced task `pacer` asleep (or ended). Once no paced task runs, the advance waiting
        /// for them goes on; but if the next sleeper due is paced, it is woken here, as the advance
        /// would wake it, and the advance goes on waiting: one task switch instead of two.
        mutating func rests(_ pacer: UInt64) -> Handoff? {
            awake.remove(pacer)
            guard awake.isEmpty, let waiting = waitingForPacers else { return nil }
            if var advance, advance.wakesBeforeYield > 0, let (due, order) = first(), advance.limit.map({ due <= $0 }) ?? true,
               let next = sleepers[order], let nextPacer = next.pacer {
                queue.removeFirst()
                sleepers[order] = nil
                now = max(now, due)
                advance.wakesBeforeYield -= 1
                self.advance = advance
                awake.insert(nextPacer)
                return .pacer(next.continuation)
            }
            waitingForPacers = nil
            return .advance(waiting)
        }
    }

    /// Who runs once a paced task sleeps or ends.
    private enum Handoff {
        case advance(CheckedContinuation<Void, Never>)
        case pacer(CheckedContinuation<Void, any Error>)

        func resume() {
            switch self {
            case let .advance(continuation): continuation.resume()
            case let .pacer(continuation): continuation.resume()
            }
        }
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
        try await sleep(until: deadline.offset, pacer: nil)
    }

    /// Starts `body` in a new paced task: the clock counts it from now until `body` returns, and an
    /// advance waits for it to sleep through `pace` (or end) before it wakes anyone. `body` must
    /// sleep on the clock through `pace` only, and must not wait between two sleeps for anything
    /// that needs the clock to move.
    package func pacedTask(
        _ body: @escaping @Sendable (_ pace: @escaping @Sendable (Instant) async throws -> Void) async -> Void
    ) -> Task<Void, Never> {
        let pacer = state.withLock { state in
            state.nextPacer += 1
            state.awake.insert(state.nextPacer)
            return state.nextPacer
        }
        return Task { [self] in
            await body { [self] deadline in try await sleep(until: deadline.offset, pacer: pacer) }
            state.withLock { $0.rests(pacer) }?.resume()
        }
    }

    private func sleep(until deadline: Duration, pacer: UInt64?) async throws {
        try Task.checkCancellation()
        let order: UInt64? = state.withLock { state in
            guard deadline > state.now else { return nil }
            if let pacer, state.runsOn(pacer, to: deadline) { return nil }
            state.nextOrder += 1
            return state.nextOrder
        }
        guard let order else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (cancelled, handoff) = state.withLock { state -> (Bool, Handoff?) in
                    if Task.isCancelled { return (true, nil) }
                    state.sleepers[order] = Sleeper(deadline: deadline, continuation: continuation, pacer: pacer)
                    state.queue.insert(deadline, order)
                    guard let pacer else {
                        state.sleeps += 1
                        return (false, nil)
                    }
                    return (false, state.rests(pacer))
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                handoff?.resume()
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                let sleeper = state.sleepers.removeValue(forKey: order)
                if let pacer = sleeper?.pacer { state.awake.insert(pacer) }  // it runs again, to its end or next sleep
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        if pacer == nil {
            state.withLock { state in
                if state.wokenNotRunning == order { state.wokenNotRunning = nil }
            }
        }
    }

    /// Moves the clock forward by `duration`, waking everything due on the way, in order, and
    /// returns once the paced tasks it woke have gone back to sleep (or ended). During another
    /// advance, it first waits for that one to end, and moves on from where it left the clock.
    public func advance(by duration: Duration = .zero) async {
        await takeTurn()
        await advance(through: state.withLock { $0.now } + duration)
    }

    /// Moves the clock to `deadline` (or leaves it where it is, if it is past it), waking
    /// everything due on the way, in order; as ``advance(by:)``.
    public func advance(to deadline: Instant) async {
        await takeTurn()
        await advance(through: deadline.offset)
    }

    /// Advances until nothing is scheduled any more (never returns if something always sleeps again).
    public func run() async {
        await takeTurn()
        await advance(through: nil)
    }

    /// Waits until no other advance is under way.
    private func takeTurn() async {
        await withCheckedContinuation { continuation in
            let mine = state.withLock { state in
                guard state.advancing else {
                    state.advancing = true
                    return true
                }
                state.waitingAdvances.append(continuation)
                return false
            }
            if mine { continuation.resume() }
        }
    }

    /// The advance, once it has its turn: to `limit`, or until nothing is left.
    private func advance(through limit: Duration?) async {
        state.withLock { $0.advance = Advance(limit: limit) }
        enum Next {
            case paced(CheckedContinuation<Void, any Error>)
            case other(CheckedContinuation<Void, any Error>, order: UInt64, sleepsBefore: UInt64)
            case yield
            case done
        }
        while true {
            await pacersAsleep()
            let next: Next = state.withLock { state in
                guard let (due, order) = state.first(), limit.map({ due <= $0 }) ?? true else {
                    if let limit { state.now = max(state.now, limit) }
                    return .done
                }
                if let advance = state.advance, advance.wakesBeforeYield <= 0 {
                    state.advance?.wakesBeforeYield = Self.wakesBetweenYields
                    return .yield
                }
                state.advance?.wakesBeforeYield -= 1
                state.queue.removeFirst()
                let sleeper = state.sleepers.removeValue(forKey: order)!
                state.now = max(state.now, due)
                if let pacer = sleeper.pacer {
                    state.awake.insert(pacer)
                    return .paced(sleeper.continuation)
                }
                state.wokenNotRunning = order
                return .other(sleeper.continuation, order: order, sleepsBefore: state.sleeps)
            }
            switch next {
            case let .paced(continuation):
                // Parked before it runs, so that it may run on, or wake the next paced task itself.
                await pacersAsleep(then: continuation.resume)
            case let .other(continuation, order, sleepsBefore):
                continuation.resume()
                // Let it start, however long that takes, then run until it sleeps again (or, if it
                // does not, for a few yields).
                while state.withLock({ $0.wokenNotRunning == order }) { await Task.yield() }
                var yields = 0
                while yields < Self.yieldsForOthers, state.withLock({ $0.sleeps == sleepsBefore }) {
                    await Task.yield()
                    yields += 1
                }
            case .yield:
                await Task.yield()  // let consumers drain
            case .done:
                let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.advance = nil
                    if state.waitingAdvances.isEmpty {
                        state.advancing = false
                        return nil
                    }
                    return state.waitingAdvances.removeFirst()  // its turn now
                }
                await Task.yield()
                next?.resume()
                return
            }
        }
    }

    /// Parks the advance until no paced task runs, then returns; `wake` (a paced task's wake-up)
    /// runs once it is parked.
    private func pacersAsleep(then wake: (() -> Void)? = nil) async {
        if wake == nil, state.withLock({ $0.awake.isEmpty }) { return }
        await withCheckedContinuation { continuation in
            let asleep = state.withLock { state in
                if state.awake.isEmpty { return true }
                state.waitingForPacers = continuation
                return false
            }
            wake?()
            if asleep { continuation.resume() }
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
