import Foundation
import LocationCore
import Synchronization
import GPSCore

/// A bounded queue from one producer thread to one async consumer: an import's reader thread
/// sends what it parsed, the task that writes to the store takes it (`ImportPipeline`).
///
/// The producer blocks (on a semaphore) while `capacity` items wait, so a fast parser never
/// runs ahead of a slow store by more than a few batches: memory stays flat. The consumer
/// suspends while the queue is empty. The consumer closes it when it stops taking: every later
/// ``send(_:)`` returns `false`, and ``isClosed`` tells the producer to stop reading at once.
final class HandOff<Item: Sendable>: Sendable {
    private struct State {
        /// At most `capacity` items, so taking the first is cheap.
        var items: [Item] = []
        var consumer: CheckedContinuation<Item?, Never>?
        var finished = false
        var closed = false
    }

    private enum Outcome {
        case handed(CheckedContinuation<Item?, Never>)
        case queued
        case closed
    }

    private let state = Locked(State())
    private let closedFlag = Atomic<Bool>(false)

    /// Whether ``close()`` was called: cheap enough to ask at every event the producer reads.
    var isClosed: Bool {
        closedFlag.load(ordering: .acquiring)
    }
    private let space: DispatchSemaphore

    init(capacity: Int) {
        space = DispatchSemaphore(value: capacity)
    }

    /// Queues `item`, waiting for room. Returns `false` (dropping it) once the consumer closed.
    func send(_ item: Item) -> Bool {
        space.wait()
        let outcome = state.withLock { state -> Outcome in
            if state.closed { return .closed }
            if let consumer = state.consumer {
                state.consumer = nil
                return .handed(consumer)
            }
            state.items.append(item)
            return .queued
        }
        switch outcome {
        case .queued:
            return true
        case let .handed(consumer):
            space.signal()
            consumer.resume(returning: item)
            return true
        case .closed:
            space.signal()
            return false
        }
    }

    /// Marks the end of the items: once those queued are taken, ``next()`` returns `nil`.
    func finish() {
        let waiting = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            state.finished = true
            defer { state.consumer = nil }
            return state.items.isEmpty ? state.consumer : nil
        }
        waiting?.resume(returning: nil)
    }

    /// The next item, or `nil` after ``finish()`` (or ``close()``, or when the task is cancelled).
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
                let ready: Item?? = state.withLock { state in
                    if !state.items.isEmpty {
                        return .some(state.items.removeFirst())
                    }
                    if state.finished || state.closed || Task.isCancelled { return .some(nil) }
                    state.consumer = continuation
                    return nil
                }
                if let ready {
                    if ready != nil { space.signal() }
                    continuation.resume(returning: ready)
                }
            }
        } onCancel: {
            close()
        }
    }

    /// Stops the exchange from the consumer's side: queued items are dropped, a waiting
    /// ``next()`` returns `nil`, and the producer's sends fail from now on.
    func close() {
        closedFlag.store(true, ordering: .releasing)
        let (waiting, dropped) = state.withLock { state -> (CheckedContinuation<Item?, Never>?, Int) in
            state.closed = true
            let dropped = state.items.count
            state.items.removeAll()
            defer { state.consumer = nil }
            return (state.consumer, dropped)
        }
        // Wake a producer blocked for room; it then sees `closed`.
        for _ in 0..<(dropped + 1) { space.signal() }
        waiting?.resume(returning: nil)
    }
}
