import GPSCore

/// A value a test's helper task or callback changes and the test waits on: each change wakes the
/// waiters whose condition it made hold, so the test awaits the change itself instead of polling
/// for it (``waitUntil(limit:_:sourceLocation:)`` is for state nothing announces).
public final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        var condition: @Sendable (Value) -> Bool
        var continuation: CheckedContinuation<Value, Never>
    }

    private struct Inner {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    // GPSCore's pthread lock, which ThreadSanitizer sees (Synchronization.Mutex it does not).
    private let inner: Locked<Inner>

    public init(_ value: Value) {
        inner = Locked(Inner(value: value))
    }

    /// The value now.
    public var value: Value { inner.withLock { $0.value } }

    /// Changes the value, and wakes the waiters whose condition now holds.
    public func change(_ body: (inout Value) -> Void) {
        var ready: [(CheckedContinuation<Value, Never>, Value)] = []
        inner.withLock { inner in
            body(&inner.value)
            for (id, waiter) in inner.waiters where waiter.condition(inner.value) {
                inner.waiters[id] = nil
                ready.append((waiter.continuation, inner.value))
            }
        }
        for (continuation, value) in ready { continuation.resume(returning: value) }
    }

    /// Returns the value as soon as `condition` holds for it (at once if it does now), or, as it
    /// is, when the task is cancelled (a test's time limit).
    @discardableResult
    public func waitUntil(_ condition: @escaping @Sendable (Value) -> Bool) async -> Value {
        let id = inner.withLock { inner in
            inner.nextID += 1
            return inner.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Value? = inner.withLock { inner in
                    if condition(inner.value) || Task.isCancelled { return inner.value }
                    inner.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let (waiter, value) = inner.withLock { ($0.waiters.removeValue(forKey: id), $0.value) }
            waiter?.continuation.resume(returning: value)
        }
    }
}
