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

/// Records what a `LocationSource` reports, and lets a test wait until it has seen enough,
/// without sleeping.
///
/// ```swift
/// let recorder = LocationEventRecorder(observing: client)
/// client.start()
/// let events = await recorder.waitUntil { $0.locations.count == 10 }
/// ```
public final class LocationEventRecorder: Sendable {
    /// What the recorder has seen so far.
    public struct Log: Sendable, Hashable {
        /// Every event, in order.
        public private(set) var events: [LocationEvent] = []
        /// The live fixes, in order.
        public private(set) var locations: [Location] = []
        /// The answers to `requestLatestFix()`, in order.
        public private(set) var cachedLocations: [Location] = []
        /// The errors, in order.
        public private(set) var errors: [LocationError] = []
        /// The connection states, in order.
        public private(set) var states: [ConnectionState] = []

        mutating func append(_ event: LocationEvent) {
            events.append(event)
            switch event {
            case let .location(location): locations.append(location)
            case let .cachedLocation(location, _): cachedLocations.append(location)
            case let .error(error): errors.append(error)
            case let .connectionChanged(state): states.append(state)
            default: break
            }
        }
    }

    private struct Waiter {
        var condition: @Sendable (Log) -> Bool
        var continuation: CheckedContinuation<Log, Never>
    }

    private struct State {
        var log = Log()
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    private let observation: Locked<LocationObservation?> = Locked(nil)

    /// Starts recording `source`'s events.
    public init(observing source: any LocationSource) {
        let observation = source.addObserver { [weak self] event in
            self?.record(event)
        }
        self.observation.withLock { $0 = observation }
    }

    /// Everything recorded so far.
    public var log: Log {
        state.withLock { $0.log }
    }

    /// Stops recording.
    public func cancel() {
        observation.withLock { $0 }?.cancel()
    }

    /// Returns the log as soon as `condition` holds for it (at once if it already does), or when
    /// the task is cancelled.
    @discardableResult
    public func waitUntil(_ condition: @escaping @Sendable (Log) -> Bool) async -> Log {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Log? = state.withLock { state in
                    if condition(state.log) || Task.isCancelled { return state.log }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let (waiter, log) = state.withLock { ($0.waiters.removeValue(forKey: id), $0.log) }
            waiter?.continuation.resume(returning: log)
        }
    }

    private func record(_ event: LocationEvent) {
        var ready: [(CheckedContinuation<Log, Never>, Log)] = []
        state.withLock { state in
            state.log.append(event)
            for (id, waiter) in state.waiters where waiter.condition(state.log) {
                state.waiters[id] = nil
                ready.append((waiter.continuation, state.log))
            }
        }
        for (continuation, log) in ready { continuation.resume(returning: log) }
    }
}
