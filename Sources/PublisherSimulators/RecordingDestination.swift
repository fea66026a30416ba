import GPSCore
import LocationPublisher

/// A destination that keeps what it is given, or fails as a test says: for testing your own code
/// that publishes, without a broker or a server (``PrivateMosquitto`` is the real broker).
///
/// It is a fake, and says so: nothing leaves the process. It acknowledges each message at once
/// unless told to fail (``fail(with:)``), to reject the next one (``rejectNext()``), or to hold
/// deliveries until released (``hold()``, ``release()``).
///
/// ```swift
/// let destination = RecordingDestination()
/// let publisher = LocationPublisher(source: replay, outbox: try .inMemory(), destinations: [destination])
/// // ... run and drain, then:
/// #expect(destination.delivered.map(\.time) == fixes.compactMap(\.time))
/// ```
public final class RecordingDestination: PublishDestination {
    /// What the destination has seen; tests in this package read and set it directly.
    package struct State: Sendable {
        package var attempts = 0
        package var delivered: [PositionMessage] = []
        package var failure: PublishError?
        package var rejectNext = false
        /// While set, a delivery waits (counted in `waiting`) until it is cleared.
        package var holding = false
        package var waiting = 0
    }

    public let name: String
    package let state = ObservedState(State())

    /// A destination called `name` in the publisher's status and outbox.
    public init(name: String = "fake://destination") {
        self.name = name
    }

    /// Every message acknowledged so far, in the order they came.
    public var delivered: [PositionMessage] {
        state.withLock { $0.delivered }
    }

    /// How many deliveries were tried, failed ones included.
    public var attempts: Int {
        state.withLock { $0.attempts }
    }

    /// Fails every delivery from now on with `error` (`nil`: acknowledges again). An
    /// `PublishError.unreachable` keeps the messages queued and backs off.
    public func fail(with error: PublishError?) {
        state.withLock { $0.failure = error }
    }

    /// Rejects the next delivery (as an HTTP 400 would): the publisher drops that message.
    public func rejectNext() {
        state.withLock { $0.rejectNext = true }
    }

    /// Holds every delivery from now on until ``release()``: a slow broker.
    public func hold() {
        state.withLock { $0.holding = true }
    }

    /// Lets the held deliveries go on.
    public func release() {
        state.withLock { $0.holding = false }
    }

    /// Returns once `count` messages were acknowledged (at once if they were).
    public func waitUntil(delivered count: Int) async {
        await state.waitUntil { $0.delivered.count >= count }
    }

    public func deliver(_ message: PositionMessage) async throws {
        if state.withLock({ state in
            if state.holding { state.waiting += 1 }
            return state.holding
        }) {
            await state.waitUntil { !$0.holding }
        }
        let failure = state.withLock { state -> PublishError? in
            state.attempts += 1
            if state.rejectNext {
                state.rejectNext = false
                return .rejected(destination: name, reason: "HTTP 400")
            }
            if let failure = state.failure { return failure }
            state.delivered.append(message)
            return nil
        }
        if let failure { throw failure }
    }
}
