#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import Logging

extension LocationManager {
    /// Decides a start or stop of the source when whether anyone waits has changed
    /// (``SourceMachine/wanted(_:lingers:gracePeriod:now:)``). Called with the lock held; the
    /// decision joins the pending actions, applied in order once it is released.
    func updateSource(_ state: inout ManagerState, lingers: Bool = true) {
        let wanted = !state.requests.isEmpty || !state.streams.isEmpty || state.listeners.values.contains(where: \.wantsSource)
        state.sourceActions.append(contentsOf: state.source.wanted(
            wanted, lingers: lingers, gracePeriod: configuration.sourceGracePeriod, now: clock.now))
    }

    /// Applies the pending starts, stops and polls in the order they were decided, with the lock
    /// released (a source may report events from inside them). One caller applies them at a time;
    /// another finding it busy leaves its actions to it.
    func performSourceActions() {
        guard state.withLock({ $0.sourceActions.beginTurn() }) else { return }
        while let action = state.withLock({ $0.sourceActions.next() }) {
            switch action {
            case .start:
                logger.debug("starting the location source")
                source.start()
            case .stop:
                logger.debug("stopping the location source")
                source.stop()
            case .requestLatestFix: source.requestLatestFix()
            case let .startGraceTimer(token, until): startGraceTimer(token, until: until)
            case let .cancel(task): task.cancel()
            }
        }
    }

    /// Starts the timer that stops a lingering source at the end of its grace period. The timer
    /// keeps time by the manager's clock alone, so on a virtual clock it is paced with it.
    private func startGraceTimer(_ token: UInt64, until end: Duration) {
        let timer = clock.pacedTask { [weak self] clock in
            do {
                try await clock.sleep(until: end)
            } catch {
                return  // wanted again
            }
            self?.graceEnded(token)
        }
        if !state.withLock({ $0.source.graceTimerStarted(timer, token: token) }) { timer.cancel() }
    }

    /// The grace period of lingering source `token` has ended with no one waiting: it stops.
    private func graceEnded(_ token: UInt64) {
        state.withLock { state in
            state.sourceActions.append(contentsOf: state.source.graceEnded(token: token))
        }
        performSourceActions()
    }

    // MARK: - Events from the source

    func handle(_ event: LocationEvent) {
        forwardToListeners(event)
        switch event {
        case let .location(location):
            received(location, cachedAge: nil)
        case let .cachedLocation(location, age):
            // A fix whose age cannot be told is no answer to anyone: not even the manager's latest.
            if let age { received(location, cachedAge: age) }
        case let .noFix(device, _):
            lostFix(of: device)
        case .connectionChanged(.connected), .connectionChanged(.watching):
            state.withLock { $0.source.connectionChanged(connected: true) }
        case .connectionChanged:
            state.withLock { $0.source.connectionChanged(connected: false) }
        case let .error(error):
            failed(error)
        case .satellites, .devices:
            break
        }
    }

    /// A fix arrived: live, or the source's held one (received `cachedAge` ago).
    private func received(_ location: Location, cachedAge: Duration?) {
        let now = clock.now
        let fix = TimedFix(location: location, receivedAt: now - (cachedAge ?? .zero))
        let (completions, waits) = state.withLock { state in
            if state.latest.map({ fix.receivedAt >= $0.receivedAt }) ?? true {
                state.latest = fix
            }
            let offered = offer(fix, cached: cachedAge != nil, now: now, to: &state)
            if cachedAge == nil {
                state.motion.observe(location)
                deliver(location, now: now, in: &state)
            }
            if !offered.completions.isEmpty { updateSource(&state) }
            return offered
        }
        deliverToStreams()
        for completion in completions { completion.resume() }
        for (id, until) in waits { startTimer(for: id, until: until, epoch: true) }
        performSourceActions()
    }

    /// The source reported no fix from `device`: a request holding that receiver's fix returns it.
    private func lostFix(of device: String?) {
        let completions: [Completion] = state.withLock { state in
            var completions: [Completion] = []
            for (id, request) in state.requests {
                guard let location = request.lostFix(of: device) else { continue }
                state.requests[id] = nil
                completions.append(Completion(request, .success(location)))
            }
            if !completions.isEmpty { updateSource(&state) }
            return completions
        }
        for completion in completions { completion.resume() }
        performSourceActions()
    }

    /// The source reported an error. A source that is not authorized fails every waiter at once,
    /// and so does one unreachable or unavailable before it ever connected; anything else (a lost
    /// connection, malformed data, authorization still awaited) is left to the source's
    /// reconnects and the waiters' deadlines, and a request that times out names it.
    private func failed(_ error: LocationError) {
        let (completions, timers, fatal): ([Completion], [Task<Void, Never>], Bool) = state.withLock { state in
            guard state.source.failed(error) else { return ([], [], false) }
            let completions = state.requests.values.map { Completion($0, .failure(error)) }
            let timers = state.streams.values.compactMap(\.availabilityTimer)
            state.deliveries.append(contentsOf: state.streams.values.map { .finish($0.sink, error) })
            state.requests.removeAll()
            state.streams.removeAll()
            updateSource(&state, lingers: false)
            return (completions, timers, true)
        }
        if fatal {
            logger.debug("location source unreachable or refused", metadata: ["error": "\(error)"])
        } else {
            logger.debug("location source error", metadata: ["error": "\(error)"])
        }
        for timer in timers { timer.cancel() }
        for completion in completions { completion.resume() }
        deliverToStreams()
        performSourceActions()
    }
}
