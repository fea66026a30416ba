#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// Anything that produces locations: `GPSDClient` (gpsd), `GeoClueLocationSource` (GeoClue), and every fake in `Simulators`.
///
/// ``LocationManager`` works over any source. A source reports what happens as ``LocationEvent``s
/// to its observers, in order, from one thread or task at a time; observers must return quickly.
///
/// To write your own source, keep a ``LocationObservers`` and call its `send(_:)`.
public protocol LocationSource: AnyObject, Sendable {
    /// Registers `handler` for every event from now on, until the returned observation is
    /// cancelled or released.
    func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation

    /// Starts producing events (for gpsd: connect and watch). Does not block; calling it while
    /// started does nothing.
    func start()

    /// Stops producing events (for gpsd: stop watching and disconnect, and stop reconnecting).
    /// Does not block; calling it while stopped does nothing.
    func stop()

    /// Asks for the latest fix the source already has (for gpsd: `?POLL;`). The answer, if there is
    /// one, arrives as ``LocationEvent/cachedLocation(_:age:)``, with its age when the source can
    /// tell it. Asked while not connected, it is sent once the connection is up.
    func requestLatestFix()

    /// Whether the source may report one epoch (one time of the receiver's) in parts, each report
    /// knowing more: gpsd does, until it has learnt which sentence ends a receiver's epoch. A
    /// ``LocationManager`` one-shot then waits a moment for the rest of an epoch whose first report
    /// lacks what its mode gives (``LocationManager/Configuration/epochWait``). `false` by
    /// default: each fix is all the source will say of its time.
    var reportsEpochsInParts: Bool { get }
}

extension LocationSource {
    /// `false`: each fix is all the source will say of its time.
    public var reportsEpochsInParts: Bool { false }
}

/// Something a ``LocationSource`` reports.
public enum LocationEvent: Sendable, Hashable {
    /// A new fix, 2D or 3D, as it arrived.
    case location(Location)
    /// A report without a usable position: no fix yet, or the fix was lost.
    case noFix(device: String?, time: Date?)
    /// The latest fix the source already had when asked by ``LocationSource/requestLatestFix()``,
    /// and its age: how long before the answer the source received it, or `nil` when that cannot
    /// be told. It is not a new fix; its ``Location/receivedAt`` is the answer's time less `age`.
    ///
    /// `GPSDClient` takes the age from gpsd's answer to `?POLL;`: the answer's `time` is gpsd's
    /// host clock, the fix's `time` the receiver's GPS time, and their difference is the fix's age
    /// when gpsd's host clock keeps true time (as where gpsd feeds chrony). When it is not known
    /// to (see `GPSDClient.Configuration.hostClock`), the age is `nil`, and ``LocationManager``'s
    /// `maximumAge` never takes the fix: it waits for a new one. A replay's fixes are dated on its
    /// own clock, so a replay (or the fake gpsd playing one) reports the age they have on it.
    case cachedLocation(Location, age: Duration?)
    /// A satellite report.
    case satellites(SatelliteReport)
    /// The list of receivers changed (one appeared, went away, or was identified).
    case devices([GPSDevice])
    /// The connection changed state.
    case connectionChanged(ConnectionState)
    /// Something went wrong; the source goes on (reconnecting if it must) unless it was stopped.
    case error(LocationError)
}

/// Where a source's connection stands.
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Not started, or stopped.
    case stopped
    /// Trying to connect; `attempt` counts from 1 since the last successful connection.
    case connecting(attempt: Int)
    /// Connected and the watch request sent; reports have not been confirmed yet.
    case connected
    /// The server confirmed the watch: reports flow.
    case watching
    /// The connection failed or was lost; the next attempt starts after `after`.
    case waitingToReconnect(after: Duration, attempt: Int)

    public var description: String {
        switch self {
        case .stopped: "stopped"
        case let .connecting(attempt): "connecting (attempt \(attempt))"
        case .connected: "connected"
        case .watching: "watching"
        case let .waitingToReconnect(delay, attempt):
            "reconnecting in \(LocationError.format(delay)) (attempt \(attempt))"
        }
    }
}

/// A registration made by ``LocationSource/addObserver(_:)``. Events stop when it is cancelled or
/// released, like Combine's `AnyCancellable`.
public final class LocationObservation: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    /// Creates an observation that runs `onCancel` once, when cancelled or released.
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
    }

    /// Stops the events. Calling it again does nothing.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit {
        cancel()
    }
}

/// The observer list of a ``LocationSource``: add observers, send events to all of them.
///
/// ```swift
/// final class MySource: LocationSource {
///     private let observers = LocationObservers()
///     func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
///         observers.add(handler)
///     }
///     func start() { observers.send(.connectionChanged(.watching)) }   // then each fix: .location(fix)
///     func stop() { observers.send(.connectionChanged(.stopped)) }
///     func requestLatestFix() {}                                      // none kept
/// }
/// ```
public final class LocationObservers: Sendable {
    private struct Entry: Sendable {
        let id: UInt64
        let handler: @Sendable (LocationEvent) -> Void
    }

    private struct State: Sendable {
        var nextID: UInt64 = 0
        var entries: [Entry] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Adds `handler`; it receives every event sent after this call until the observation ends.
    public func add(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
        let id = state.withLock { state in
            state.nextID += 1
            state.entries.append(Entry(id: state.nextID, handler: handler))
            return state.nextID
        }
        return LocationObservation { [weak self] in
            self?.state.withLock { state in state.entries.removeAll { $0.id == id } }
        }
    }

    /// Sends `event` to every current observer, in the order they were added.
    public func send(_ event: LocationEvent) {
        let entries = state.withLock { $0.entries }
        for entry in entries {
            entry.handler(event)
        }
    }

    /// Whether anyone is observing.
    public var isEmpty: Bool {
        state.withLock { $0.entries.isEmpty }
    }
}
