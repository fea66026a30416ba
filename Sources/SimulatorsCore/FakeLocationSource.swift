#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore

/// A `LocationSource` you drive by hand, for unit tests of code that consumes locations.
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
        var latestFixAge: Duration = .zero
        var isStarted = false
        var startCount = 0
        var stopCount = 0
        var pollCount = 0
        /// What ``waitUntilStarted()`` and ``waitUntilStopped()`` wait on: set once the events of
        /// a start or a stop have been sent.
        var isAnnouncedStarted = false
    }

    private let observers = LocationObservers()
    private let state: ObservedState<State>

    /// Creates a source that behaves as `startBehavior` says when started, and answers
    /// ``requestLatestFix()`` with `latestFix`, received `latestFixAge` ago (no answer when `nil`).
    /// With `reportsEpochsInParts`, it stands for gpsd, which may report an epoch in parts.
    public init(
        startBehavior: StartBehavior = .watches, latestFix: Location? = nil, latestFixAge: Duration = .zero,
        reportsEpochsInParts: Bool = false
    ) {
        state = ObservedState(State(behavior: startBehavior, latestFix: latestFix, latestFixAge: latestFixAge))
        self.reportsEpochsInParts = reportsEpochsInParts
    }

    /// Whether it stands for a source that may report an epoch in several reports, as gpsd does.
    public let reportsEpochsInParts: Bool

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

    /// How long ago the source says it received ``latestFix``.
    public var latestFixAge: Duration {
        get { state.withLock { $0.latestFixAge } }
        set { state.withLock { $0.latestFixAge = newValue } }
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
        let behavior: StartBehavior? = state.withLock { state in
            guard !state.isStarted else { return nil }
            state.isStarted = true
            state.startCount += 1
            return state.behavior
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
        state.withLock { $0.isAnnouncedStarted = true }
    }

    public func stop() {
        let wasStarted = state.withLock { state in
            guard state.isStarted else { return false }
            state.isStarted = false
            state.stopCount += 1
            return true
        }
        guard wasStarted else { return }
        observers.send(.connectionChanged(.stopped))
        state.withLock { $0.isAnnouncedStarted = false }
    }

    public func requestLatestFix() {
        let (fix, age) = state.withLock { state in
            state.pollCount += 1
            return (state.isStarted ? state.latestFix : nil, state.latestFixAge)
        }
        if var fix {
            fix.isSimulated = true
            observers.send(.cachedLocation(fix, age: age))
        }
    }

    /// Delivers `event` to the observers now, marking any location in it simulated.
    public func send(_ event: LocationEvent) {
        switch event {
        case var .location(location):
            location.isSimulated = true
            observers.send(.location(location))
        case .cachedLocation(var location, let age):
            location.isSimulated = true
            observers.send(.cachedLocation(location, age: age))
        default:
            observers.send(event)
        }
    }

    /// Returns once the source is started (at once if it is).
    public func waitUntilStarted() async {
        await waitUntil(started: true)
    }

    /// Returns once the source is stopped (at once if it is).
    public func waitUntilStopped() async {
        await waitUntil(started: false)
    }

    /// Returns once ``requestLatestFix()`` has been called `count` times in all (at once if it
    /// has).
    public func waitUntil(polls count: Int) async {
        await state.waitUntil { $0.pollCount >= count }
    }

    private func waitUntil(started: Bool) async {
        await state.waitUntil { $0.isAnnouncedStarted == started }
    }
}
