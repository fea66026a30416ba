#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
struct PendingRequest {
    var continuation: CheckedContinuation<Location, any Error>
    var criteria: Criteria
    var maximumAge: Duration?
    var timeout: Duration
    var deadline: Duration
    var best: Location?
    var timer: Task<Void, Never>?
}

struct StreamWaiter {
    var continuation: AsyncThrowingStream<Location, any Error>.Continuation
    var criteria: Criteria
    var distanceFilter: Double?
    var lastDelivered: Location?
}

struct ManagerState {
    var nextID: UInt64 = 0
    var requests: [UInt64: PendingRequest] = [:]
    var streams: [UInt64: StreamWaiter] = [:]
    /// Whether the manager wants the source running; the control queue applies each change in order.
    var sourceWanted = false
    /// Whether the source has connected since the manager last started it: an unreachable source
    /// fails waiters at once only before that.
    var connectedSinceStart = false
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
        let immediate: Result<Location, any Error>? = state.withLock { state in
            if Task.isCancelled { return .failure(CancellationError()) }
            if timeout <= .zero { return .failure(LocationError.timedOut(after: timeout, best: nil)) }
            if let maximumAge, let latest = state.latest, now - latest.receivedAt <= maximumAge, criteria.accepts(latest.location) {
                return .success(latest.location)
            }
            let deadline = now + timeout
            let timer = Task { [weak self, clock] in
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    return  // the request finished first
                }
                self?.expire(id)
            }
            state.requests[id] = PendingRequest(
                continuation: continuation, criteria: criteria, maximumAge: maximumAge,
                timeout: timeout, deadline: deadline, timer: timer)
            updateSource(&state)
            if maximumAge != nil {
                let source = self.source
                control.async { source.requestLatestFix() }
            }
            return nil
        }
        if let immediate {
            continuation.resume(with: immediate)
        } else {
            logger.debug("location request waiting", metadata: [
                "request.id": "\(id)", "request.timeout": "\(timeout)", "fix.mode": "\(criteria.minimumMode)",
            ])
        }
    }

    /// Finishes request `id` with `result`, unless it has finished already.
    func complete(_ id: UInt64, with result: Result<Location, any Error>) {
        let completion: Completion? = state.withLock { state in
            guard let request = state.requests.removeValue(forKey: id) else { return nil }
            updateSource(&state)
            return Completion(continuation: request.continuation, timer: request.timer, result: result)
        }
        completion?.resume()
    }

    /// The deadline of request `id` has come.
    private func expire(_ id: UInt64) {
        let completion: Completion? = state.withLock { state in
            guard let request = state.requests.removeValue(forKey: id) else { return nil }
            updateSource(&state)
            let error = LocationError.timedOut(after: request.timeout, best: request.best)
            return Completion(continuation: request.continuation, timer: nil, result: .failure(error))
        }
        if let completion {
            logger.debug("location request timed out", metadata: ["request.id": "\(id)"])
            completion.resume()
        }
    }

    func removeStream(_ id: UInt64) {
        state.withLock { state in
            guard state.streams.removeValue(forKey: id) != nil else { return }
            updateSource(&state)
        }
    }

    /// Starts or stops the source when whether anyone waits has changed. Called with the lock held,
    /// so the control queue receives the starts and stops in the order they were decided.
    func updateSource(_ state: inout ManagerState) {
        let wanted = !state.requests.isEmpty || !state.streams.isEmpty
        guard wanted != state.sourceWanted else { return }
        state.sourceWanted = wanted
        let source = self.source
        if wanted {
            state.connectedSinceStart = false
            control.async { source.start() }
        } else {
            control.async { source.stop() }
        }
        logger.debug(wanted ? "starting the location source" : "stopping the location source")
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
        state.withLock { state in
            if state.latest.map({ receivedAt >= $0.receivedAt }) ?? true {
                state.latest = TimedFix(location: location, receivedAt: receivedAt)
            }
            for id in Array(state.requests.keys) {
                let request = state.requests[id]!
                if now >= request.deadline {
                    // The deadline has come and its timer not yet run: this fix is too late.
                    state.requests[id] = nil
                    let error = LocationError.timedOut(after: request.timeout, best: request.best)
                    completions.append(Completion(continuation: request.continuation, timer: request.timer, result: .failure(error)))
                } else if request.criteria.accepts(location),
                          cachedAge == nil || request.maximumAge.map({ now - receivedAt <= $0 }) == true {
                    state.requests[id] = nil
                    completions.append(Completion(continuation: request.continuation, timer: request.timer, result: .success(location)))
                } else {
                    state.requests[id]!.best = Self.better(request.best, location)
                }
            }
            if cachedAge == nil {
                for id in Array(state.streams.keys) {
                    let stream = state.streams[id]!
                    guard stream.criteria.accepts(location) else { continue }
                    if let filter = stream.distanceFilter, let last = stream.lastDelivered, last.distance(to: location) < filter {
                        continue
                    }
                    state.streams[id]!.lastDelivered = location
                    stream.continuation.yield(location)
                }
            }
            if !completions.isEmpty { updateSource(&state) }
        }
        for completion in completions { completion.resume() }
    }

    /// The source reported an error. Unreachable before it ever connected fails every waiter at
    /// once; anything else (a lost connection, malformed data) is left to the source's reconnects
    /// and the waiters' deadlines.
    private func failed(_ error: LocationError) {
        guard case .unreachable = error else {
            logger.debug("location source error", metadata: ["error": "\(error)"])
            return
        }
        let (completions, streams): ([Completion], [AsyncThrowingStream<Location, any Error>.Continuation]) = state.withLock { state in
            guard !state.connectedSinceStart else { return ([], []) }
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
            logger.debug("location source unreachable", metadata: ["error": "\(error)"])
        }
        for completion in completions { completion.resume() }
        for stream in streams { stream.finish(throwing: error) }
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
