import GPSCore

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
    /// task is cancelled (a test's time limit).
    public func waitUntil(_ condition: @escaping @Sendable (Value) -> Bool) async {
        await state.waitUntil(condition)
    }
}
