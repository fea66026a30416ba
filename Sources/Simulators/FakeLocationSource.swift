import Foundation
import LocationFacade
import Synchronization

/// A ``LocationSource`` you drive by hand, for unit tests of code that consumes locations.
///
/// Events go to the observers synchronously, on the thread that calls ``send(_:)``, so a test
/// knows exactly what its code has seen. Every location it delivers is marked simulated.
///
/// ```swift
/// let source = FakeLocationSource()
/// let manager = LocationManager(source: source, clock: clock)
/// async let fix = manager.requestLocation(timeout: .seconds(5))
/// await source.waitUntilStarted()
/// source.send(.location(Location(latitude: 1, longitude: 2)))
/// ```
public final class FakeLocationSource: LocationSource {
    /// What ``start()`` does.
    public enum StartBehavior: Sendable, Hashable {
        /// Reports `.connected`, then `.watching`, as a healthy gpsd would.
        case watches
        /// Reports `.connecting` and then `error`, as an unreachable gpsd would.
        case fails(LocationError)
        /// Reports `.connecting` and nothing more, as a connect that hangs would.
        case hangs
    }

    private struct State {
        var behavior: StartBehavior
        var latestFix: Location?
        var isStarted = false
        var startCount = 0
        var stopCount = 0
        var pollCount = 0
        var startWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let observers = LocationObservers()
    private let state: Mutex<State>

    /// Creates a source that behaves as `startBehavior` says when started, and answers
    /// ``requestLatestFix()`` with `latestFix` (no answer when `nil`).
    public init(startBehavior: StartBehavior = .watches, latestFix: Location? = nil) {
        state = Mutex(State(behavior: startBehavior, latestFix: latestFix))
    }

    /// What the next ``start()`` does.
    public var startBehavior: StartBehavior {
        get { state.withLock { $0.behavior } }
        set { state.withLock { $0.behavior = newValue } }
    }

    /// The answer to ``requestLatestFix()``; `nil` for none.
    public var latestFix: Location? {
        get { state.withLock { $0.latestFix } }
        set { state.withLock { $0.latestFix = newValue } }
    }

    /// Whether it is started.
    public var isStarted: Bool { state.withLock { $0.isStarted } }
    /// How many times ``start()`` started it.
    public var startCount: Int { state.withLock { $0.startCount } }
    /// How many times ``stop()`` stopped it.
    public var stopCount: Int { state.withLock { $0.stopCount } }
    /// How many times ``requestLatestFix()`` was called.
    public var pollCount: Int { state.withLock { $0.pollCount } }

    public func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
        observers.add(handler)
    }

    public func start() {
        let (behavior, waiters): (StartBehavior?, [CheckedContinuation<Void, Never>]) = state.withLock { state in
            guard !state.isStarted else { return (nil, []) }
            state.isStarted = true
            state.startCount += 1
            defer { state.startWaiters = [] }
            return (state.behavior, state.startWaiters)
        }
        guard let behavior else { return }
        switch behavior {
        case .watches:
            observers.send(.connectionChanged(.connecting(attempt: 1)))
            observers.send(.connectionChanged(.connected))
            observers.send(.connectionChanged(.watching))
        case let .fails(error):
            observers.send(.connectionChanged(.connecting(attempt: 1)))
            observers.send(.error(error))
        case .hangs:
            observers.send(.connectionChanged(.connecting(attempt: 1)))
        }
        for waiter in waiters { waiter.resume() }
    }

    public func stop() {
        let wasStarted = state.withLock { state in
            defer { state.isStarted = false }
            if state.isStarted { state.stopCount += 1 }
            return state.isStarted
        }
        if wasStarted { observers.send(.connectionChanged(.stopped)) }
    }

    public func requestLatestFix() {
        let fix = state.withLock { state in
            state.pollCount += 1
            return state.isStarted ? state.latestFix : nil
        }
        if var fix {
            fix.isSimulated = true
            observers.send(.cachedLocation(fix))
        }
    }

    /// Delivers `event` to the observers now, marking any location in it simulated.
    public func send(_ event: LocationEvent) {
        switch event {
        case var .location(location):
            location.isSimulated = true
            observers.send(.location(location))
        case var .cachedLocation(location):
            location.isSimulated = true
            observers.send(.cachedLocation(location))
        default:
            observers.send(event)
        }
    }

    /// Returns once the source is started (at once if it is).
    public func waitUntilStarted() async {
        await withCheckedContinuation { continuation in
            let started = state.withLock { state in
                if !state.isStarted { state.startWaiters.append(continuation) }
                return state.isStarted
            }
            if started { continuation.resume() }
        }
    }
}
