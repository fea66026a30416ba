/// A state behind a lock (``Locked``), with waiters for a condition on it: each change made under
/// the lock wakes, after the lock is released, those whose condition it made hold. Tests await a
/// request reaching a `LocationManager`, or a fake Bluetooth device sending its notifications,
/// with it instead of polling.
///
/// A change with no waiter costs one check of an empty dictionary.
package final class ObservedState<State: Sendable>: Sendable {
    private struct Waiter {
        var condition: @Sendable (State) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct Inner {
        var state: State
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let inner: Locked<Inner>

    package init(_ state: State) {
        inner = Locked(Inner(state: state))
    }

    /// Runs `body` with the state, holding the lock; then wakes the waiters whose condition now holds.
    package func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        var ready: [CheckedContinuation<Void, Never>] = []
        defer { for continuation in ready { continuation.resume() } }
        return try inner.withLock { inner throws(Failure) -> Result in
            // Also when `body` throws: what it changed before throwing may be what a waiter waits for.
            defer {
                if !inner.waiters.isEmpty {
                    for (id, waiter) in inner.waiters where waiter.condition(inner.state) {
                        inner.waiters[id] = nil
                        ready.append(waiter.continuation)
                    }
                }
            }
            return try body(&inner.state)
        }
    }

    /// Returns as soon as `condition` holds for the state (at once if it does now), or when the
    /// task is cancelled.
    package func waitUntil(_ condition: @escaping @Sendable (State) -> Bool) async {
        let id = inner.withLock { inner in
            inner.nextID += 1
            return inner.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = inner.withLock { inner in
                    if condition(inner.state) || Task.isCancelled { return true }
                    inner.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            inner.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
