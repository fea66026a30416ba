import Dispatch
import GPSCore

/// A bounded queue from one producer thread to one consumer that waits for it synchronously: a
/// GPX replay's parser thread hands over points as the replay plays them, so a file of any length
/// is played in constant memory.
///
/// The producer blocks while `capacity` items wait; the consumer blocks while none does. Either
/// side may end the exchange: the producer with ``finish(throwing:)``, the consumer with
/// ``close()``, after which the producer's ``send(_:)`` returns `false` so it can stop reading.
final class BlockingHandOff<Item: Sendable>: Sendable {
    private struct State: Sendable {
        /// At most `capacity` items: taking the first moves the few behind it, never more.
        var items: [Item] = []
        var finished = false
        var failure: ReplayRecording.ReadError?
        var closed = false

        var count: Int { items.count }
    }

    private let state = Locked(State())
    private let space: DispatchSemaphore
    private let available = DispatchSemaphore(value: 0)

    /// The items held now (never more than the capacity).
    var heldItems: Int {
        state.withLock { $0.items.count }
    }

    init(capacity: Int) {
        space = DispatchSemaphore(value: capacity)
    }

    /// Queues `item`, waiting for room. Returns `false` (dropping it) once the consumer closed.
    func send(_ item: Item) -> Bool {
        space.wait()
        let accepted = state.withLock { state in
            guard !state.closed else { return false }
            state.items.append(item)
            return true
        }
        if accepted { available.signal() } else { space.signal() }
        return accepted
    }

    /// Ends the items: once those queued are taken, ``next()`` returns `nil`, or throws `failure`.
    func finish(throwing failure: ReplayRecording.ReadError? = nil) {
        state.withLock { state in
            state.finished = true
            state.failure = failure
        }
        available.signal()
    }

    /// The next item, waiting for the producer; `nil` after the last.
    func next() throws(ReplayRecording.ReadError) -> Item? {
        while true {
            available.wait()
            let taken: Result<Item?, ReplayRecording.ReadError>? = state.withLock { state in
                if !state.items.isEmpty {
                    return .success(state.items.removeFirst())
                }
                guard state.finished || state.closed else { return nil }
                if let failure = state.failure { return .failure(failure) }
                return .success(nil)
            }
            guard let taken else { continue }
            switch taken {
            case let .success(item?):
                space.signal()
                return item
            case .success(nil):
                available.signal()  // the end stays the end for a later call
                return nil
            case let .failure(error):
                available.signal()
                throw error
            }
        }
    }

    /// Stops the exchange from the consumer's side: queued items are dropped and the producer's
    /// sends fail from now on (one blocked for room is woken).
    func close() {
        let dropped = state.withLock { state in
            state.closed = true
            defer { state.items.removeAll() }
            return state.count
        }
        for _ in 0...dropped { space.signal() }
        available.signal()
    }
}
