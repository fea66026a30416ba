#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import Logging

/// What a request or stream accepts.
struct Criteria: Sendable {
    var minimumMode: FixMode
    var desiredAccuracy: Double?

    func accepts(_ location: Location) -> Bool {
        guard location.mode >= minimumMode else { return false }
        guard let desiredAccuracy else { return true }
        guard let accuracy = location.horizontalAccuracy else { return false }
        return accuracy <= desiredAccuracy
    }
}

/// A fix and when the manager received it, as time elapsed on its clock.
struct TimedFix: Sendable {
    var location: Location
    var receivedAt: Duration
}

/// One waiting `requestLocation` call: a small state machine whose only states are "waiting" (in
/// `ManagerState.requests`, continuation stored) and "finished" (removed, continuation taken out
/// under the lock and resumed once, outside it).
struct PendingRequest: Sendable {
    var continuation: CheckedContinuation<Location, any Error>
    var criteria: Criteria
    var maximumAge: Duration?
    var timeout: Duration
    var deadline: Duration
    var best: Location?
    /// The deadline's timer, set just after the request is stored (it is created outside the lock).
    var timer: Task<Void, Never>?
}

struct StreamWaiter: Sendable {
    var continuation: AsyncThrowingStream<Location, any Error>.Continuation
    var criteria: Criteria
    var distanceFilter: Double?
    var lastDelivered: Location?
}

/// What the manager asks of its source, in the order it decided: applied one at a time, outside
/// the lock, by whichever caller finds them pending (``LocationManager/performSourceActions()``).
enum SourceAction: Sendable {
    case start
    case stop
    case requestLatestFix
}

struct ManagerState: Sendable {
    var nextID: UInt64 = 0
    var requests: [UInt64: PendingRequest] = [:]
    var streams: [UInt64: StreamWaiter] = [:]
    /// Whether the manager wants the source running.
    var sourceWanted = false
    /// Starts, stops and polls decided and not yet applied, oldest first.
    var sourceActions: [SourceAction] = []
    /// Whether a caller is applying `sourceActions` now (the others leave it to that one).
    var applyingSourceActions = false
    /// Whether the source has connected since the manager last started it: an unreachable source
    /// fails waiters at once only before that.
    var connectedSinceStart = false
    /// The last error the source reported since it was started, for a request that times out.
    var lastError: LocationError?
    var latest: TimedFix?
    var observation: LocationObservation?
}

/// A continuation taken out of the state, to resume once the lock is released.
private struct Completion {
    var continuation: CheckedContinuation<Location, any Error>
    var timer: Task<Void, Never>?
    var result: Result<Location, any Error>

    func resume() {
        timer?.cancel()
        continuation.resume(with: result)
    }
}

extension LocationManager {
    /// How many `requestLocation` calls are waiting: every stored continuation. Tests check that
    /// it returns to zero (no continuation leaked).
    package var waitingRequestCount: Int {
        state.withLock { $0.requests.count }
    }

    func register(
        _ id: UInt64,
        _ continuation: CheckedContinuation<Location, any Error>,
        criteria: Criteria,
        timeout: Duration,
        maximumAge: Duration?
    ) {
        let now = clock.now
        let deadline = now + timeout
        let immediate: Result<Location, any Error>? = state.withLock { state in
            if Task.isCancelled { return .failure(CancellationError()) }
            if timeout <= .zero { return .failure(LocationError.timedOut(after: timeout, best: nil)) }
            if let maximumAge, let latest = state.latest, now - latest.receivedAt <= maximumAge, criteria.accepts(latest.location) {
                return .success(latest.location)
            }
            state.requests[id] = PendingRequest(
                continuation: continuation, criteria: criteria, maximumAge: maximumAge,
                timeout: timeout, deadline: deadline)
            updateSource(&state)
            if maximumAge != nil { state.sourceActions.append(.requestLatestFix) }
            return nil
        }
        if let immediate {
            continuation.resume(with: immediate)
            return
        }
        logger.debug("location request waiting", metadata: [
            "request.id": "\(id)", "request.timeout": "\(timeout)", "fix.mode": "\(criteria.minimumMode)",
        ])
        // The timer is created outside the lock; if the request finished meanwhile, it is not needed.
        let timer = Task { [weak self, clock] in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return  // the request finished first
            }
            self?.expire(id)
        }
        let stored = state.withLock { state in
            guard state.requests[id] != nil else { return false }
            state.requests[id]?.timer = timer
            return true
        }
        if !stored { timer.cancel() }
        performSourceActions()
    }

    /// Finishes request `id` with `result`, unless it has finished already.
    func complete(_ id: UInt64, with result: Result<Location, any Error>) {
        let completion: Completion? = state.withLock { state in
            guard let request = state.requests.removeValue(forKey: id) else { return nil }
            updateSource(&state)
            return Completion(continuation: request.continuation, timer: request.timer, result: result)
        }
        completion?.resume()
        performSourceActions()
    }

    /// The deadline of request `id` has come.
    private func expire(_ id: UInt64) {
        let completion: Completion? = state.withLock { state in
            guard let request = state.requests.removeValue(forKey: id) else { return nil }
            updateSource(&state)
            let error = LocationError.timedOut(after: request.timeout, best: request.best, lastError: state.lastError)
            return Completion(continuation: request.continuation, timer: nil, result: .failure(error))
        }
        if let completion {
            logger.debug("location request timed out", metadata: ["request.id": "\(id)"])
            completion.resume()
        }
        performSourceActions()
    }

    func removeStream(_ id: UInt64) {
        state.withLock { state in
            guard state.streams.removeValue(forKey: id) != nil else { return }
            updateSource(&state)
        }
        performSourceActions()
    }

    /// Decides a start or stop of the source when whether anyone waits has changed. Called with
    /// the lock held; the decision joins the pending actions, applied in order once it is released.
    func updateSource(_ state: inout ManagerState) {
        let wanted = !state.requests.isEmpty || !state.streams.isEmpty
        guard wanted != state.sourceWanted else { return }
        state.sourceWanted = wanted
        if wanted {
            state.connectedSinceStart = false
            state.lastError = nil
        }
        state.sourceActions.append(wanted ? .start : .stop)
        logger.debug(wanted ? "starting the location source" : "stopping the location source")
    }

    /// Applies the pending starts, stops and polls in the order they were decided, with the lock
    /// released (a source may report events from inside them). One caller applies them at a time;
    /// another finding it busy leaves its actions to it.
    func performSourceActions() {
        let applying = state.withLock { state in
            guard !state.applyingSourceActions, !state.sourceActions.isEmpty else { return false }
            state.applyingSourceActions = true
            return true
        }
        guard applying else { return }
        while let action = state.withLock({ state -> SourceAction? in
            guard !state.sourceActions.isEmpty else {
                state.applyingSourceActions = false
                return nil
            }
            return state.sourceActions.removeFirst()
        }) {
            switch action {
            case .start: source.start()
            case .stop: source.stop()
            case .requestLatestFix: source.requestLatestFix()
            }
        }
    }

    // MARK: - Events from the source

    func handle(_ event: LocationEvent) {
        switch event {
        case let .location(location):
            received(location, cachedAge: nil)
        case let .cachedLocation(location, age):
            received(location, cachedAge: age)
        case .connectionChanged(.connected), .connectionChanged(.watching):
            state.withLock { $0.connectedSinceStart = true }
        case let .error(error):
            failed(error)
        case .noFix, .satellites, .devices, .connectionChanged:
            break
        }
    }

    /// A fix arrived: live, or the source's cached one (received `cachedAge` ago).
    private func received(_ location: Location, cachedAge: Duration?) {
        let now = clock.now
        let receivedAt = now - (cachedAge ?? .zero)
        var completions: [Completion] = []
        var deliveries: [AsyncThrowingStream<Location, any Error>.Continuation] = []
        state.withLock { state in
            if state.latest.map({ receivedAt >= $0.receivedAt }) ?? true {
                state.latest = TimedFix(location: location, receivedAt: receivedAt)
            }
            for (id, request) in state.requests {
                if now >= request.deadline {
                    // The deadline has come and its timer not yet run: this fix is too late.
                    state.requests[id] = nil
                    let error = LocationError.timedOut(after: request.timeout, best: request.best, lastError: state.lastError)
                    completions.append(Completion(continuation: request.continuation, timer: request.timer, result: .failure(error)))
                } else if request.criteria.accepts(location),
                          cachedAge == nil || request.maximumAge.map({ now - receivedAt <= $0 }) == true {
                    state.requests[id] = nil
                    completions.append(Completion(continuation: request.continuation, timer: request.timer, result: .success(location)))
                } else {
                    state.requests[id]?.best = Self.better(request.best, location)
                }
            }
            if cachedAge == nil {
                for (id, stream) in state.streams where stream.criteria.accepts(location) {
                    if let filter = stream.distanceFilter, let last = stream.lastDelivered, last.distance(to: location) < filter {
                        continue
                    }
                    state.streams[id]?.lastDelivered = location
                    deliveries.append(stream.continuation)
                }
            }
            if !completions.isEmpty { updateSource(&state) }
        }
        // Sources report from one thread at a time, so yielding after the lock keeps each stream's order.
        for stream in deliveries { stream.yield(location) }
        for completion in completions { completion.resume() }
        performSourceActions()
    }

    /// The source reported an error. A source that is not authorized fails every waiter at once,
    /// and so does one unreachable or unavailable before it ever connected; anything else (a lost
    /// connection, malformed data, authorization still awaited) is left to the source's
    /// reconnects and the waiters' deadlines, and a request that times out names it.
    private func failed(_ error: LocationError) {
        let (completions, streams): ([Completion], [AsyncThrowingStream<Location, any Error>.Continuation]) = state.withLock { state in
            state.lastError = error
            let fatal = switch error {
            case .notAuthorized: true
            case .unreachable, .serviceUnavailable: !state.connectedSinceStart
            default: false
            }
            guard fatal else { return ([], []) }
            let completions = state.requests.values.map {
                Completion(continuation: $0.continuation, timer: $0.timer, result: .failure(error))
            }
            let streams = state.streams.values.map(\.continuation)
            state.requests.removeAll()
            state.streams.removeAll()
            updateSource(&state)
            return (completions, streams)
        }
        if !completions.isEmpty || !streams.isEmpty {
            logger.debug("location source unreachable or refused", metadata: ["error": "\(error)"])
        } else {
            logger.debug("location source error", metadata: ["error": "\(error)"])
        }
        for completion in completions { completion.resume() }
        for stream in streams { stream.finish(throwing: error) }
        performSourceActions()
    }

    /// The better of two fixes for a timed-out request: the more accurate, then the newer.
    static func better(_ current: Location?, _ candidate: Location) -> Location {
        guard let current else { return candidate }
        switch (current.horizontalAccuracy, candidate.horizontalAccuracy) {
        case let (old?, new?): return new <= old ? candidate : current
        case (nil, _?): return candidate
        case (_?, nil): return current
        case (nil, nil): return candidate
        }
    }
}
