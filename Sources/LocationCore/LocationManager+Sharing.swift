#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

extension LocationManager {
    /// The manager's source for one more consumer: a `LocationPublisher`, a `RegionMonitor`, a
    /// `WorkoutSession`, anything that takes a ``LocationSource``. One source, many listeners, as
    /// CoreLocation's one manager and its delegates:
    ///
    /// ```swift
    /// let manager = LocationManager(source: GPSDClient())
    /// let publisher = LocationPublisher(manager: manager, outbox: outbox, destinations: [broker])
    /// let monitor = manager.monitor()            // RegionMonitoring: follows the same source
    /// try monitor.add(.circle(center: home, radius: 100), identifier: "home")
    /// ```
    ///
    /// Each shared source's observers get every event of the manager's source from the moment they
    /// were added, in the order it sent them, whether or not this consumer has started it: make
    /// every consumer before the first of them starts the source (a `LocationPublisher` observes
    /// from its making and starts it in `run()`; a monitor's `follow` starts it), and each gets
    /// every fix from the first. Its
    /// `start()` says the consumer wants the source running: the manager starts it with the first
    /// consumer (or request, or stream) that wants it, once, and its `stop()` says it no longer
    /// does: the source stops a grace period after the last one (``Configuration/sourceGracePeriod``).
    /// Releasing a shared source stops it for its consumer. No consumer starts or stops the source
    /// for the others.
    public func sharedSource() -> SharedLocationSource {
        let observers = LocationObservers()
        let id = state.withLock { state in
            state.nextID += 1
            state.listeners[state.nextID] = Listener(observers: observers)
            return state.nextID
        }
        return SharedLocationSource(manager: self, id: id, observers: observers)
    }

    /// Says whether listener `id` wants the source running.
    func listener(_ id: UInt64, wants: Bool) {
        state.withLock { state in
            guard state.listeners[id] != nil, state.listeners[id]?.wantsSource != wants else { return }
            state.listeners[id]?.wantsSource = wants
            updateSource(&state)
        }
        performSourceActions()
    }

    /// Listener `id` is gone.
    func removeListener(_ id: UInt64) {
        state.withLock { state in
            guard state.listeners.removeValue(forKey: id) != nil else { return }
            updateSource(&state)
        }
        performSourceActions()
    }

    /// Hands `event` to every listener, with the lock released, in the order they were added.
    func forwardToListeners(_ event: LocationEvent) {
        let listeners = state.withLock { state in state.listeners.isEmpty ? [] : state.listeners.sorted { $0.key < $1.key }.map(\.value.observers) }
        for observers in listeners { observers.send(event) }
    }
}

/// One consumer's view of a ``LocationManager``'s source (``LocationManager/sharedSource()``): its
/// observers get every event of the manager's source; `start()` and `stop()` say whether this
/// consumer wants the source running, and the manager starts it for the first and stops it after
/// the last.
public final class SharedLocationSource: LocationSource {
    /// The manager whose source this is.
    public let manager: LocationManager
    private let id: UInt64
    private let observers: LocationObservers

    init(manager: LocationManager, id: UInt64, observers: LocationObservers) {
        self.manager = manager
        self.id = id
        self.observers = observers
    }

    deinit {
        manager.removeListener(id)
    }

    public func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
        observers.add(handler)
    }

    /// This consumer wants the source running: the manager starts it if no one else had.
    public func start() {
        manager.listener(id, wants: true)
    }

    /// This consumer no longer wants the source running: the manager stops it a grace period
    /// after no one does. Its observers still get the events while others keep it running.
    public func stop() {
        manager.listener(id, wants: false)
    }

    public func requestLatestFix() {
        manager.source.requestLatestFix()
    }

    public var reportsEpochsInParts: Bool {
        manager.source.reportsEpochsInParts
    }
}
