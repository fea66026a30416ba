import Foundation
import LocationCore

/// A ``WorkoutSession``'s state, as a value: its lifecycle (each state carrying what it owns), the
/// engine that decides its figures, and the rows it has not yet written. Each event is a method
/// that changes the state and returns what the session must do outside its lock (in the style
/// of swift-async-algorithms' `DebounceStateMachine`); none performs I/O or runs a callback.
struct SessionStateMachine: Sendable {
    enum Lifecycle: Sendable {
        case notStarted
        /// Recording: the source's observation and the sample readers.
        case running(Sources)
        case paused(Sources)
        /// `end()` is stopping the sources and saving.
        case ending
        /// `end()` failed: the sources are stopped, what is held is kept.
        case stopped
        case ended
        case discarded
    }

    /// What a recording session owns: its subscription to the location source and the tasks
    /// reading its sample sources.
    struct Sources: Sendable {
        var observation: LocationObservation?
        var readers: [Task<Void, Never>] = []
    }

    /// Statistics to send, and to whom.
    struct Broadcast: Sendable {
        var statistics: WorkoutSession.Statistics
        var watchers: [AsyncStream<WorkoutSession.Statistics>.Continuation]

        func send() {
            for watcher in watchers { watcher.yield(statistics) }
        }
    }

    /// What the writer is doing.
    enum WriterPhase: Sendable, Hashable {
        /// Waiting to be woken (a write due, or the clock's tick).
        case waiting
        /// In a store call.
        case writing
        /// Waiting to try a failed write again, until this time on the session's clock.
        case backingOff(until: Duration)
    }

    private(set) var lifecycle: Lifecycle = .notStarted
    /// What the writer is doing (for tests that drive the clock: they wait for it to settle).
    var writerPhase: WriterPhase = .waiting
    /// Whether the writer has been woken and has not yet taken the wake (so a writer seen
    /// `.waiting` has not yet begun the write it was woken for).
    var writerWakePending = false
    private(set) var engine: SessionEngine
    private(set) var queue: WriteQueue
    private var watchers: [UInt64: AsyncStream<WorkoutSession.Statistics>.Continuation] = [:]
    /// The count of fixes admission had held at the last tick.
    private var heldAtLastTick = 0
    /// When the figures were last sent for a sample (on the session's clock).
    private var lastSampleBroadcast: Duration?
    /// Whether a sample changed the figures since they were last sent.
    private var sampleChangesUnsent = false
    private var nextWatcher: UInt64 = 0

    init(configuration: WorkoutSession.Configuration) {
        engine = SessionEngine(configuration: configuration)
        queue = WriteQueue(maximumPoints: configuration.maximumHeldPoints)
    }

    /// A machine taking over a recovered session: its engine rebuilt, its rows staged.
    init(configuration: WorkoutSession.Configuration, engine: SessionEngine, staging: WorkoutStore.SessionStaging) {
        self.engine = engine
        queue = WriteQueue(maximumPoints: configuration.maximumHeldPoints)
        queue.staging = staging
        queue.nextEventOrdinal = engine.events.count
    }

    /// The sources of a session recording (running or paused), else `nil`.
    var recordingSources: Sources? {
        switch lifecycle {
        case let .running(sources), let .paused(sources): sources
        default: nil
        }
    }

    var state: WorkoutSession.State {
        switch lifecycle {
        case .notStarted: .notStarted
        case .running: .running
        case .paused: .paused
        case .ending: .ending
        case .stopped: .stopped
        case .ended: .ended
        case .discarded: .discarded
        }
    }

    // MARK: - Lifecycle

    /// `start()`: from not started to running (or paused: a resumed session the user had paused).
    mutating func start(paused: Bool) throws(WorkoutSessionError) -> Broadcast {
        guard case .notStarted = lifecycle else { throw .invalidTransition(action: .start, state: state) }
        lifecycle = paused ? .paused(Sources()) : .running(Sources())
        return broadcast()
    }

    /// The sources were started: kept while recording; handed back to be stopped otherwise (the
    /// session ended meanwhile).
    mutating func attach(_ sources: Sources) -> Sources? {
        switch lifecycle {
        case .running: lifecycle = .running(sources)
        case .paused: lifecycle = .paused(sources)
        default: return sources
        }
        return nil
    }

    /// A user's action: pause, resume, lap or mark.
    mutating func act(_ action: WorkoutSession.Action, name: String? = nil) throws(WorkoutSessionError) -> Broadcast {
        switch (action, lifecycle) {
        case let (.pause, .running(sources)):
            lifecycle = .paused(sources)
            record(engine.act(.pause))
        case let (.resume, .paused(sources)):
            lifecycle = .running(sources)
            record(engine.act(.resume))
        case (.lap, .running), (.lap, .paused):
            record(engine.act(.lap))
        case (.mark, .running), (.mark, .paused):
            record(engine.act(.marker, name: name))
        default:
            throw .invalidTransition(action: action, state: state)
        }
        return broadcast()
    }

    /// `end()` begins: recording stops. Returns the sources to stop.
    mutating func beginEnding() throws(WorkoutSessionError) -> Sources {
        switch lifecycle {
        case let .running(sources), let .paused(sources):
            lifecycle = .ending
            return sources
        case .stopped:
            lifecycle = .ending
            return Sources()
        default:
            throw .invalidTransition(action: .end, state: state)
        }
    }

    /// The sources are stopped: the engine settles what it holds, for the last write.
    mutating func settle() -> Broadcast {
        record(engine.finish())
        return broadcast()
    }

    /// The session is saved. Returns the watchers to finish.
    mutating func ended() -> [AsyncStream<WorkoutSession.Statistics>.Continuation] {
        lifecycle = .ended
        defer { watchers = [:] }
        return Array(watchers.values)
    }

    /// `end()` could not save: the session is stopped, everything kept.
    mutating func endFailed() -> Broadcast {
        lifecycle = .stopped
        return broadcast()
    }

    /// `discard()`: returns the sources to stop and the watchers to finish.
    mutating func discard() throws(WorkoutSessionError) -> (Sources, [AsyncStream<WorkoutSession.Statistics>.Continuation]) {
        let sources: Sources
        switch lifecycle {
        case .notStarted, .stopped: sources = Sources()
        case let .running(running), let .paused(running): sources = running
        default: throw .invalidTransition(action: .discard, state: state)
        }
        lifecycle = .discarded
        queue.clear()
        defer { watchers = [:] }
        return (sources, Array(watchers.values))
    }

    // MARK: - Input

    /// A fix from the source. `nil`: not recording.
    mutating func take(_ fix: Location) -> Broadcast? {
        switch lifecycle {
        case .running, .paused: break
        default: return nil
        }
        guard !queue.isFull else {
            engine.note(.backlogFull)
            return broadcast()
        }
        record(engine.take(fix))
        return broadcast()
    }

    /// A sample from a sample source, at `now` on the session's clock; taken while ending too
    /// (the sources are stopping). `nil`: not recording, or nothing to send yet: the figures a
    /// sample changes are sent at most every ``sampleBroadcastInterval`` (the first of each type
    /// at once), and what waits goes with the next fix, change or tick. A sensor may send a
    /// thousand measurements a second; a reader woken for each would cost more than the rest.
    mutating func take(_ sample: QuantitySample, at now: Duration) -> Broadcast? {
        switch lifecycle {
        case .running, .paused, .ending: break
        default: return nil
        }
        guard !queue.isFull else {
            engine.note(.backlogFull)
            return sampleBroadcast(at: now, firstOfItsType: false)
        }
        guard engine.take(sample) else { return sampleBroadcast(at: now, firstOfItsType: false) }
        queue.samples.append(sample)
        return sampleBroadcast(at: now, firstOfItsType: engine.samples[sample.type]?.count == 1)
    }

    /// How often, at most, the figures a sample changes are sent.
    static let sampleBroadcastInterval = Duration.milliseconds(200)

    private mutating func sampleBroadcast(at now: Duration, firstOfItsType: Bool) -> Broadcast? {
        if !firstOfItsType, let last = lastSampleBroadcast, now - last < Self.sampleBroadcastInterval {
            sampleChangesUnsent = true
            return nil
        }
        lastSampleBroadcast = now
        return broadcast()
    }

    /// A second went by on the session's clock: a fix admission has held since the last tick,
    /// waiting for the next, is taken (a receiver that lost its fix sends no next; the reports of
    /// one fix come within a second). `nil` when nothing changed.
    mutating func tick() -> Broadcast? {
        switch lifecycle {
        case .running, .paused: break
        default: return nil
        }
        let held = engine.admission.heldCount
        defer { heldAtLastTick = held }
        guard engine.admission.isHolding, held == heldAtLastTick, !queue.isFull else {
            return sampleChangesUnsent ? broadcast() : nil
        }
        record(engine.flushHeldFix())
        return broadcast()
    }

    private mutating func record(_ output: SessionEngine.Output) {
        queue.add(output)
    }

    /// Queues what a recovered session's engine decided before it started (the gap's pause).
    mutating func queueForWriting(_ output: SessionEngine.Output) {
        queue.add(output)
    }

    // MARK: - Writing

    /// What the writer should write now: everything held, with the session's start to stage it.
    /// `nil` when nothing is held, or nothing can be staged yet (no fix).
    func batchToWrite() -> WriteQueue.Batch? {
        queue.batch(start: engine.timeline.start)
    }

    /// Whether a write is due: an event is held, or a second's worth of fixes (by their times).
    var isWriteDue: Bool {
        queue.isDue(now: engine.now)
    }

    /// The writer wrote `batch`.
    mutating func written(_ batch: WriteQueue.Batch, staging: WorkoutStore.SessionStaging) -> Broadcast? {
        let wasOK = queue.storage.isOK
        queue.remove(batch)
        queue.staging = staging
        queue.storage = .ok
        return wasOK ? nil : broadcast()
    }

    /// The writer failed with `error`: one more failed attempt since writing last worked.
    mutating func writeFailed(_ error: WorkoutStoreError) -> Broadcast {
        let (since, attempts): (Date, Int) = switch queue.storage {
        case .ok: (Date(), 1)
        case let .retrying(since, attempts, _), let .failing(since, attempts, _): (since, attempts + 1)
        }
        queue.storage = queue.isFull
            ? .failing(since: since, attempts: attempts, error: error)
            : .retrying(since: since, attempts: attempts, error: error)
        return broadcast()
    }

    /// How many writes have failed since writing last worked.
    var failedAttempts: Int {
        switch queue.storage {
        case .ok: 0
        case let .retrying(_, attempts, _), let .failing(_, attempts, _): attempts
        }
    }

    /// Drops the held sample at `index` of `batch`, which the store refuses.
    mutating func dropSample(at index: Int) {
        if index < queue.samples.count { queue.samples.remove(at: index) }
        engine.note(.invalidSample)
    }

    // MARK: - Statistics

    /// Adds a watcher; returns its key and the current figures, or `nil` once the session is over.
    mutating func addWatcher(_ continuation: AsyncStream<WorkoutSession.Statistics>.Continuation) -> (UInt64, WorkoutSession.Statistics)? {
        switch lifecycle {
        case .ended, .discarded: return nil
        default: break
        }
        nextWatcher += 1
        watchers[nextWatcher] = continuation
        return (nextWatcher, statistics)
    }

    mutating func removeWatcher(_ key: UInt64) {
        watchers[key] = nil
    }

    /// The figures now, for every watcher: they carry any a sample changed that were not sent.
    private mutating func broadcast() -> Broadcast {
        sampleChangesUnsent = false
        return Broadcast(statistics: statistics, watchers: Array(watchers.values))
    }

    var statistics: WorkoutSession.Statistics {
        let figures = engine.liveFigures
        let speed = engine.currentSpeed
        return WorkoutSession.Statistics(
            state: state, isMotionPaused: engine.detector.motion == .stopped || engine.timeline.isMotionPaused,
            elapsedTime: figures.elapsedTime, duration: figures.duration, movingTime: figures.movingTime,
            distance: figures.distance, currentSpeed: speed,
            currentPace: speed.flatMap { $0 >= 0.3 ? 1000 / $0 : nil },
            averagePace: figures.distance > 0 ? figures.movingTime / (figures.distance / 1000) : nil,
            elevationGain: figures.elevationGain, lap: engine.timeline.lap,
            lapDistance: figures.lapDistance, lapDuration: figures.lapDuration, lapMovingTime: figures.lapMovingTime,
            samples: engine.samples, lapSamples: engine.lapSamples, inputIssues: engine.admission.counts,
            storage: queue.storage, unwritten: queue.points.count + queue.samples.count)
    }
}
