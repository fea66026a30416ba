#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import Logging

extension LocationManager {
    /// How many streams are open: tests wait for it to drop, as the grace period begins then.
    package var streamCount: Int {
        state.withLock { $0.streams.count }
    }

    /// Returns once `count` streams are open (at once if they are now), or when the task is
    /// cancelled: for a test, the event that its streams have reached the manager, or that the
    /// last one has ended and the grace period begun.
    package func waitUntil(streams count: Int) async {
        await state.waitUntil { $0.streams.count == count }
    }

    /// Registers a stream (starting the source if it is the first waiter) and, for a stream of
    /// updates, the timer that says when no usable fix comes. Returns its id.
    func addStream(_ sink: UpdateSink, criteria: Criteria, distanceFilter: Double?) -> UInt64 {
        let now = clock.now
        let id = state.withLock { state in
            state.nextID += 1
            state.streams[state.nextID] = StreamWaiter(
                sink: sink, criteria: criteria, distanceFilter: distanceFilter, lastUsableAt: now)
            updateSource(&state)
            return state.nextID
        }
        if case .updates = sink {
            let timer = watchAvailability(of: id)
            let stored = state.withLock { state in
                guard state.streams[id] != nil else { return false }
                state.streams[id]?.availabilityTimer = timer
                return true
            }
            if !stored { timer.cancel() }
        }
        performSourceActions()
        logger.debug("location stream started", metadata: ["request.id": "\(id)"])
        return id
    }

    func removeStream(_ id: UInt64) {
        let timer: Task<Void, Never>?? = state.withLock { state in
            guard let stream = state.streams.removeValue(forKey: id) else { return .none }
            updateSource(&state)
            return .some(stream.availabilityTimer)
        }
        if case let .some(timer?) = timer { timer.cancel() }
        performSourceActions()
    }

    /// Queues a live fix for every stream it is for (with the lock held): one that meets a stream's
    /// criteria counts as usable for it, and is delivered unless it is within the stream's distance
    /// filter of the last one delivered.
    func deliver(_ location: Location, now: Duration, in state: inout ManagerState) {
        for (id, stream) in state.streams where stream.criteria.accepts(location) {
            state.streams[id]?.lastUsableAt = now
            state.streams[id]?.saidUnavailable = false
            if let filter = stream.distanceFilter, let last = stream.lastDelivered, last.distance(to: location) < filter {
                continue
            }
            state.streams[id]?.lastDelivered = location
            state.deliveries.append(.location(stream.sink, location, isStationary: state.motion.isStationary))
        }
    }

    /// Hands the queued deliveries to their streams, in order, with the lock released. One caller
    /// does it at a time (the source's thread, or an availability timer); another finding it busy
    /// leaves its deliveries to it, so that each stream gets its elements in the order decided.
    func deliverToStreams() {
        guard state.withLock({ $0.deliveries.beginTurn() }) else { return }
        while let batch = state.withLock({ $0.deliveries.nextBatch() }) {
            for delivery in batch { delivery.perform() }
        }
    }

    /// The task that tells stream `id` when no usable fix has come for ``Configuration/unavailableAfter``.
    /// It keeps time by the manager's clock alone (paced on a virtual clock): it sleeps until the
    /// last usable fix is that old, says so once, and sleeps again.
    private func watchAvailability(of id: UInt64) -> Task<Void, Never> {
        let timeout = configuration.unavailableAfter
        return clock.pacedTask { [weak self] clock in
            // The first wake-up is set by the stream's start, not by when this task first runs.
            guard var wake = self?.checkAvailability(of: id, timeout: timeout) else { return }
            while true {
                do {
                    try await clock.sleep(until: wake)
                } catch {
                    return  // the stream ended
                }
                guard let next = self?.checkAvailability(of: id, timeout: timeout) else { return }
                wake = next
            }
        }
    }

    /// Says to stream `id` that no usable fix has come, if none has for `timeout` and it has not
    /// said so yet. Returns when to look again, or `nil` once the stream is gone.
    private func checkAvailability(of id: UInt64, timeout: Duration) -> Duration? {
        let now = clock.now
        let next: Duration? = state.withLock { state in
            guard let stream = state.streams[id] else { return nil }
            let due = stream.lastUsableAt + timeout
            if now < due { return due }
            if !stream.saidUnavailable {
                state.streams[id]?.saidUnavailable = true
                state.deliveries.append(.unavailable(stream.sink))
            }
            return now + timeout
        }
        deliverToStreams()
        return next
    }
}
