#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import Logging

/// A continuation taken out of the state, to resume once the lock is released.
struct Completion {
    var continuation: CheckedContinuation<Location, any Error>
    var timers: [Task<Void, Never>]
    var result: Result<Location, any Error>

    init(_ request: PendingRequest, _ result: Result<Location, any Error>) {
        continuation = request.continuation
        timers = [request.timer, request.epochTimer].compactMap { $0 }
        self.result = result
    }

    func resume() {
        for timer in timers { timer.cancel() }
        continuation.resume(with: result)
    }
}

/// What a fix does to a waiting request.
enum Offer: Equatable {
    /// The request returns this fix.
    case answer(Location)
    /// The request now holds the fix, waiting for the rest of its epoch: a new wait begins.
    case holds
    /// Nothing to return yet (the fix does not qualify, or replaced the held one of its epoch).
    case keepsWaiting
}

extension PendingRequest {
    /// Offers `fix` to the request, which takes it when it `qualifies` (meets the criteria, and is
    /// young enough when it is one the source held), as ``LocationManager/requestLocation(timeout:maximumAge:minimumMode:desiredAccuracy:)``
    /// says: a complete fix at once; an incomplete one held until the rest of its epoch comes,
    /// the receiver's next epoch begins, or `epochWait` after it came (never after the deadline).
    mutating func offer(_ fix: TimedFix, qualifies: Bool, now: Duration, epochWait: Duration) -> Offer {
        let location = fix.location
        if qualifies && location.isComplete { return .answer(location) }
        if let held {
            if Self.sameEpoch(held.fix.location, location) {
                if qualifies { self.held?.fix = fix }  // a later report of the same epoch knows more
                return .keepsWaiting
            }
            // The receiver has moved on to another epoch: the held one is all there will be.
            if held.fix.location.device == location.device { return .answer(held.fix.location) }
            return .keepsWaiting  // another receiver's fix
        }
        guard qualifies else { return .keepsWaiting }
        let until = min(fix.receivedAt + epochWait, deadline)
        if until <= now { return .answer(location) }
        held = HeldFix(fix: fix, until: until)
        return .holds
    }

    /// The receiver of a held fix reported it has none: the held fix is its epoch's last word.
    func lostFix(of device: String?) -> Location? {
        guard let held, held.fix.location.device == device else { return nil }
        return held.fix.location
    }

    /// Two reports of one epoch: the same receiver, the same GPS time.
    static func sameEpoch(_ a: Location, _ b: Location) -> Bool {
        guard let time = a.time else { return false }
        return time == b.time && a.device == b.device
    }
}

extension LocationManager {
    /// How many `requestLocation` calls are waiting: every stored continuation. Tests check that
    /// it returns to zero (no continuation leaked).
    package var waitingRequestCount: Int {
        state.withLock { $0.requests.count }
    }

    /// Returns once `count` `requestLocation` calls are waiting (at once if they are now), or
    /// when the task is cancelled: for a test, the event that its requests have reached the
    /// manager, where it polled ``waitingRequestCount``.
    package func waitUntil(waitingRequests count: Int) async {
        await state.waitUntil { $0.requests.count == count }
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
        let epochWait = self.epochWait
        let (immediate, heldUntil): (Result<Location, any Error>?, Duration?) = state.withLock { state in
            if Task.isCancelled { return (.failure(CancellationError()), nil) }
            if timeout <= .zero { return (.failure(LocationError.timedOut(after: timeout, best: nil)), nil) }
            var request = PendingRequest(
                continuation: continuation, criteria: criteria, maximumAge: maximumAge, timeout: timeout, deadline: deadline)
            if let maximumAge, let latest = state.latest, now - latest.receivedAt <= maximumAge {
                let offer = request.offer(latest, qualifies: criteria.accepts(latest.location), now: now, epochWait: epochWait)
                if case let .answer(location) = offer { return (.success(location), nil) }
            }
            state.requests[id] = request
            updateSource(&state)
            if maximumAge != nil { state.sourceActions.append(.requestLatestFix) }
            return (nil, request.held?.until)
        }
        if let immediate {
            continuation.resume(with: immediate)
            return
        }
        logger.debug("location request waiting", metadata: [
            "request.id": "\(id)", "request.timeout": "\(timeout)", "fix.mode": "\(criteria.minimumMode)",
        ])
        startTimer(for: id, until: deadline, epoch: false)
        if let heldUntil { startTimer(for: id, until: heldUntil, epoch: true) }
        performSourceActions()
    }

    /// Starts request `id`'s deadline timer, or the timer of its wait for the rest of an epoch.
    /// Created outside the lock; if the request finished meanwhile, it is not needed. It keeps
    /// time by the manager's clock alone, so on a virtual clock it is paced with it: an advance to
    /// its time finds the request answered when it returns.
    func startTimer(for id: UInt64, until time: Duration, epoch: Bool) {
        let timer = clock.pacedTask { [weak self] clock in
            do {
                try await clock.sleep(until: time)
            } catch {
                return  // the request finished first
            }
            if epoch { self?.epochWaitEnded(id) } else { self?.expire(id) }
        }
        let stored = state.withLock { state in
            guard state.requests[id] != nil else { return false }
            if epoch { state.requests[id]?.epochTimer = timer } else { state.requests[id]?.timer = timer }
            return true
        }
        if !stored { timer.cancel() }
    }

    /// Finishes request `id` with `result`, unless it has finished already.
    func complete(_ id: UInt64, with result: Result<Location, any Error>) {
        let completion: Completion? = state.withLock { state in
            guard let request = state.requests.removeValue(forKey: id) else { return nil }
            updateSource(&state)
            return Completion(request, result)
        }
        completion?.resume()
        performSourceActions()
    }

    /// The deadline of request `id` has come: it returns the fix it holds, if any, else times out.
    private func expire(_ id: UInt64) {
        let completion: Completion? = state.withLock { state in
            guard let request = state.requests.removeValue(forKey: id) else { return nil }
            updateSource(&state)
            return Completion(request, Self.deadlineResult(request, lastError: state.source.lastError))
        }
        if let completion {
            logger.debug("location request reached its deadline", metadata: ["request.id": "\(id)"])
            completion.resume()
        }
        performSourceActions()
    }

    /// The wait for the rest of request `id`'s epoch has ended: it returns the fix it holds.
    private func epochWaitEnded(_ id: UInt64) {
        let now = clock.now
        let completion: Completion? = state.withLock { state in
            guard let request = state.requests[id], let held = request.held, now >= held.until else { return nil }
            state.requests[id] = nil
            updateSource(&state)
            return Completion(request, .success(held.fix.location))
        }
        completion?.resume()
        performSourceActions()
    }

    /// What a request returns at its deadline: the fix it holds, or a timeout with the best seen.
    static func deadlineResult(_ request: PendingRequest, lastError: LocationError?) -> Result<Location, any Error> {
        if let held = request.held { return .success(held.fix.location) }
        return .failure(LocationError.timedOut(after: request.timeout, best: request.best, lastError: lastError))
    }

    /// Offers a fix to every waiting request (with the lock held): live, or the source's held one
    /// (`cached`). Returns the requests it finishes and the epoch waits it begins.
    func offer(
        _ fix: TimedFix, cached: Bool, now: Duration, to state: inout ManagerState
    ) -> (completions: [Completion], waits: [(UInt64, Duration)]) {
        var completions: [Completion] = []
        var waits: [(UInt64, Duration)] = []
        for (id, var request) in state.requests {
            if now >= request.deadline {
                // The deadline has come and its timer not yet run: this fix is too late.
                state.requests[id] = nil
                completions.append(Completion(request, Self.deadlineResult(request, lastError: state.source.lastError)))
                continue
            }
            let young = !cached || request.maximumAge.map { now - fix.receivedAt <= $0 } == true
            let qualifies = young && request.criteria.accepts(fix.location)
            switch request.offer(fix, qualifies: qualifies, now: now, epochWait: epochWait) {
            case let .answer(location):
                state.requests[id] = nil
                completions.append(Completion(request, .success(location)))
            case .holds:
                waits.append((id, request.held!.until))
                state.requests[id] = request
            case .keepsWaiting:
                request.best = Self.better(request.best, fix.location)
                state.requests[id] = request
            }
        }
        return (completions, waits)
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
