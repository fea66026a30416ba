import GPSCore
import Testing

/// A value a test's helper task or callback changes and the test waits on: each change wakes the
/// waiters whose condition it made hold, so the test awaits the change itself instead of polling
/// for it (``waitUntil(limit:_:sourceLocation:)`` is for state nothing announces). GPSCore's
/// `ObservedState`, which the manager and the fakes publish their state through, with the
/// interface a test's own value needs.
public final class Watched<Value: Sendable>: Sendable {
    private let state: ObservedState<Value>

    public init(_ value: Value) {
        state = ObservedState(value)
    }

    /// The value now.
    public var value: Value { state.withLock { $0 } }

    /// Changes the value, and wakes the waiters whose condition now holds.
    public func change(_ body: (inout Value) -> Void) {
        state.withLock(body)
    }

    /// Returns as soon as `condition` holds for the value (at once if it does now), or when the
    /// task is cancelled. If it has not held within `limit` of real time, records an issue at the
    /// caller with the value as it is, and returns: a wait that never ends says so where it
    /// waited, not only as the test's time limit. (The limit is far longer than any such wait
    /// takes: it is not how long the test waits.)
    public func waitUntil(
        limit: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable (Value) -> Bool
    ) async {
        await TestSupport.waitUntil(state, limit: limit, sourceLocation: sourceLocation, condition)
    }
}

/// Returns as soon as `condition` holds for `state` (at once if it does now), or when the task is
/// cancelled: a wait on state that the code under test publishes through `ObservedState` (a
/// workout session's state machine), woken by the change itself. As ``Watched/waitUntil(limit:sourceLocation:_:)``,
/// it records an issue at the caller if the condition has not held within `limit` of real time.
package func waitUntil<Value: Sendable>(
    _ state: ObservedState<Value>, limit: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @escaping @Sendable (Value) -> Bool
) async {
    let held = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await state.waitUntil(condition)
            return true
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
    if !held && !Task.isCancelled {
        // Not the state itself: a session's machine prints as many pages as it holds fixes.
        Issue.record("the condition never held (waited \(limit))", sourceLocation: sourceLocation)
    }
}
