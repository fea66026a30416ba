import Foundation
import LocationCore

extension WorkoutSession {
    /// Resumes a session interrupted by a crash (``WorkoutStore/interruptedSessions()``) as this
    /// process's own, recording from `source` and `samples` into what it had written: the same
    /// workout id, its points, events, laps and samples kept, its figures counted on from where
    /// they were. Returns the session **started**: there is no ``start()`` to call.
    ///
    /// It records as it was configured (the store keeps its ``Configuration``: auto-pause,
    /// auto-laps, fix rules); a `configuration` given here replaces that one for the whole
    /// session, the part recorded before included. The time it was down is a pause: a `pause`
    /// event at its last fix and a `resume` at the first new one, which starts a stretch of its
    /// own (no distance across the gap). A session the user had paused resumes
    /// ``State-swift.enum/paused``; otherwise ``State-swift.enum/running``.
    ///
    /// Throws ``WorkoutSessionError/notInterrupted`` when the session was ended, discarded or
    /// resumed meanwhile (by another process too), and ``WorkoutSessionError/store(_:)``.
    ///
    /// An indoor session resumes from the time now on the session's clock (`now`): the gap's
    /// `resume` is dated there, and its location source, if one is given, is not started.
    public static func resume(
        _ interrupted: InterruptedSession, store: WorkoutStore, source: (any LocationSource)?, samples: [any SampleSource] = [],
        configuration: Configuration? = nil, clock: some Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(WorkoutSessionError) -> WorkoutSession {
        let contents: WorkoutStore.SessionContents?
        do {
            contents = try await store.takeOver(interrupted, configuration: configuration)
        } catch {
            throw .store(error)
        }
        guard var contents else { throw .notInterrupted }
        if let configuration {
            contents.configuration = configuration
            contents.configuration?.activityType = contents.record.activityType
        }
        let recording = contents.effectiveConfiguration
        var engine = contents.rebuiltEngine()
        // The events as the engine decides them again (a new configuration makes its auto-laps and
        // auto-pauses anew), so the ones it adds are numbered after them.
        do {
            try await store.replaceSessionEvents(contents.staging, with: engine.events)
        } catch {
            throw .store(error)
        }
        let paused = engine.detector.isPaused
        let gap = engine.pauseForGap()
        var machine = SessionStateMachine(configuration: recording, engine: engine, staging: contents.staging)
        machine.queueForWriting(gap)
        let session = WorkoutSession(
            id: interrupted.id, store: store, source: source, samples: samples, configuration: recording, clock: clock, machine: machine,
            now: now)
        try session.begin(paused: paused)
        // The gap's pause is written at once.
        session.run(session.machine.withLock { $0.wakeForWriting() })
        return session
    }

    /// As ``resume(_:store:source:samples:configuration:clock:)``, with one sample source.
    public static func resume(
        _ interrupted: InterruptedSession, store: WorkoutStore, source: any LocationSource, heartRate: (any SampleSource)?,
        configuration: Configuration? = nil, clock: some Clock<Duration> = ContinuousClock()
    ) async throws(WorkoutSessionError) -> WorkoutSession {
        try await resume(
            interrupted, store: store, source: source, samples: heartRate.map { [$0] } ?? [], configuration: configuration, clock: clock)
    }
}
