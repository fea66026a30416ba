import Foundation

/// The one writer: what a session records goes to the store from here, and only from here.
extension WorkoutSession {
    /// The wait before trying again after `attempts` failed writes: 0.25 s, doubling, at most 5 s.
    static func backoff(after attempts: Int) -> Duration {
        .milliseconds(min(5_000, 250 << min(max(attempts - 1, 0), 5)))
    }

    /// Writes what is held, one transaction per attempt; a failed write keeps every row and is
    /// tried again after ``backoff(after:)`` on the session's clock. Without a `deadline` (the
    /// background writer) it returns after one successful write, or when its task is cancelled;
    /// with one (`end()`), it writes until nothing is held, or returns the last error when another
    /// attempt could not end by the deadline (on the session's clock): an attempt may wait as
    /// long as the last one took (SQLite waits up to its busy timeout for a lock), so none is
    /// started that would run past it.
    func writeHeld(until deadline: Duration?) async -> WorkoutStoreError? {
        defer {
            if deadline == nil {
                let now = clock.now
                run(machine.withLock { $0.writerWaits(now: now) })
            }
        }
        var lastAttempt = Duration.zero
        while true {
            guard let (batch, issues) = machine.withLock({ $0.beginWrite() }) else { return nil }
            let started = clock.now
            do {
                let staging = try await store.appendToSession(batch, id: id, configuration: configuration, inputIssues: issues)
                run(machine.withLock { $0.written(batch, staging: staging) })
                if deadline == nil { return nil }
            } catch {
                switch error {
                case let .invalidSample(_, index, _), let .conflictingSample(_, index, _, _, _, _):
                    // Admission keeps these out; should one get through, it alone is dropped.
                    machine.withLock { $0.dropSample(at: index) }
                    continue
                default:
                    break
                }
                lastAttempt = clock.now - started
                if Task.isCancelled, deadline == nil { return error }
                guard await backOff(after: error, lastAttempt: lastAttempt, deadline: deadline) else { return error }
            }
        }
    }

    /// After a failed attempt: counts it (at the system clock's time: ``StorageState`` says since
    /// when writing fails), and waits on the session's clock before the next, as
    /// ``backoff(after:)`` says. Returns whether to try again: not when no attempt may follow (one
    /// as long as the last would end past `deadline`), or the wait was cancelled.
    private func backOff(after error: WorkoutStoreError, lastAttempt: Duration, deadline: Duration?) async -> Bool {
        let failedAt = Date()
        let attempts = machine.withLock { machine in
            let effects = machine.writeFailed(error, at: failedAt)
            return (effects, machine.failedAttempts)
        }
        run(attempts.0)
        guard let wait = pause(after: attempts.1, lastAttempt: lastAttempt, deadline: deadline) else { return false }
        let now = clock.now
        let until = now + wait
        run(machine.withLock { $0.backOff(until: until, now: now, byEnd: deadline != nil) })
        return (try? await clock.sleep(until: until)) != nil  // cancelled: no more tries
    }

    /// How long to wait before trying again, or `nil` when another attempt, as long as the last,
    /// would end past `deadline`.
    private func pause(after attempts: Int, lastAttempt: Duration, deadline: Duration?) -> Duration? {
        let wait = Self.backoff(after: attempts)
        guard let deadline else { return wait }
        let left = deadline - clock.now - lastAttempt
        return left > .zero ? min(wait, left) : nil
    }

    /// Writes everything held and publishes the session as a workout, trying a failing store
    /// again until `deadline` (``Configuration/endTimeout`` after `end()` began, `began`).
    func save(began: Duration, deadline: Duration) async throws(WorkoutSessionError) -> WorkoutRecord {
        if let error = await writeHeld(until: deadline) {
            throw .notSaved(error: error, waited: clock.now - began, unwritten: machine.withLock { $0.statistics.unwritten })
        }
        let (engine, staging) = machine.withLock { ($0.engine, $0.queue.staging) }
        guard let staging, let start = engine.timeline.start else { throw .nothingRecorded }
        let publication = SessionSettlement(
            id: id, configuration: configuration, events: engine.events, inputIssues: engine.admission.counts, start: start,
            end: engine.isIndoor ? engine.now : nil)
        // From a store call to a wait to try again and back: the writer is settled only while it
        // waits for the clock, until end() has saved (ended) or given up (stopped).
        while true {
            machine.withLock { $0.beginPublishing() }
            let started = clock.now
            do {
                return try await store.publishSession(staging, publication)
            } catch {
                let lastAttempt = clock.now - started
                guard !Task.isCancelled, await backOff(after: error, lastAttempt: lastAttempt, deadline: deadline) else {
                    throw .notSaved(error: error, waited: clock.now - began, unwritten: 0)
                }
            }
        }
    }
}
