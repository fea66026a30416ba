import GPSCore

/// The answer to one request to the bus's thread (a call's reply, a match's confirmation), and
/// the one task waiting for it: finished once, by whichever comes first (the answer, an error,
/// the connection's end, the task's cancellation), and resumed once.
///
/// The answer goes through the lock, not through the continuation: the waiting task reads it
/// under the same lock the bus's thread wrote it under, which ThreadSanitizer can see.
final class Pending<Value: Sendable>: Sendable {
    private struct State: Sendable {
        var result: Result<Value, any Error>?
        var continuation: CheckedContinuation<Void, Never>?
        /// Whether the task's cancellation finished it (before any answer).
        var cancelled = false
    }

    private let state = Locked(State())

    /// Finishes with `result`, unless already finished; resumes the waiting task.
    func finish(_ result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }

    /// Whether the waiting task gave up (was cancelled) before the answer came: what the request
    /// made on the bus is then the requester's to undo.
    var wasCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    /// Runs `start` (which queues the request), then waits for the answer. Throws what the
    /// request finished with, or `CancellationError` when the task is cancelled first.
    func wait(_ start: () -> Void) async throws -> Value {
        start()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let finished = state.withLock { state in
                    if state.result != nil { return true }
                    state.continuation = continuation
                    return false
                }
                if finished { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard state.result == nil else { return nil }
                state.result = .failure(CancellationError())
                state.cancelled = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume()
        }
        return try state.withLock { $0.result! }.get()
    }
}
