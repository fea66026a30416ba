import Foundation
import LocationCore

/// A ``WorkoutSession``'s state, as a value: its lifecycle, each state carrying what it owns (the
/// writer's phase and a pending wake, the sample throttle), the engine that decides its figures,
/// and the rows it has not yet written. Each event is a method that changes the state and returns
/// the ``Effects`` the session must run once it has let go of its lock (in the style of
/// swift-async-algorithms' `DebounceStateMachine`): no method performs I/O, runs a callback or
/// reads a clock; the times it needs are given.
struct SessionStateMachine: Sendable {
    enum Lifecycle: Sendable {
        case notStarted
        /// Recording, running or paused by the user.
        case recording(Recording)
        /// `end()` is stopping the sources and saving.
        case ending(Writer)
        /// `end()` failed: the sources are stopped, what is held is kept.
        case stopped(Writer)
        case ended
        case discarded
    }

    /// What a recording session owns.
    struct Recording: Sendable {
        var isPaused: Bool
        /// Its subscription to the location source, once started; whether it started its sample sources.
        var sources = Sources()
        var writer = Writer()
        var throttle = SampleThrottle()
        /// The count of fixes admission had held at the last tick.
        var heldAtLastTick = 0
    }

    /// What a session started, to stop when it ends.
    struct Sources: Sendable {
        var observation: LocationObservation?
        var readsSamples = false
    }

    /// The writer, as the machine knows it.
    struct Writer: Sendable {
        var phase = Phase.waiting
        /// Woken and not yet taken the wake (so a writer seen `.waiting` has not yet begun the
        /// write it was woken for).
        var wakePending = false

        enum Phase: Sendable, Hashable {
            /// Waiting to be woken (a write due, or the clock's tick).
            case waiting
            /// In a store call.
            case writing
            /// Waiting to try a failed write again, until this time on the session's clock.
            case backingOff(until: Duration)
        }

        /// Settled: not in a store call, not woken, and not due to try again by `now`.
        func isSettled(now: Duration) -> Bool {
            switch phase {
            case .waiting: !wakePending
            case .writing: false
            case let .backingOff(until): until > now
            }
        }
    }

    /// The figures a sample changes are sent at most every ``sampleBroadcastInterval``.
    struct SampleThrottle: Sendable {
        /// When the figures were last sent for a sample (on the session's clock).
        var lastBroadcast: Duration?
        /// Whether a sample changed the figures since they were last sent.
        var unsent = false
    }

    /// Statistics to send, and to whom: the session sends them in `generation` order, dropping
    /// one older than what it already sent (which carried its changes too).
    struct Broadcast: Sendable {
        var generation: UInt64
        var statistics: WorkoutSession.Statistics
        var watchers: [AsyncStream<WorkoutSession.Statistics>.Continuation]
    }

    /// What the session does once it has let go of its lock.
    struct Effects: Sendable {
        /// Figures to send.
        var broadcast: Broadcast?
        /// Wake the writer: a write is due.
        var wakeWriter = false
        /// Waiters of ``WorkoutSession/settled()`` to resume: the writer has settled.
        var settled: [CheckedContinuation<Void, Never>] = []
        /// Watchers to finish: the session is over.
        var finished: [AsyncStream<WorkoutSession.Statistics>.Continuation] = []
    }

    private(set) var lifecycle: Lifecycle = .notStarted
    /// The engine has settled everything (``settle(at:)``): a sample delivered late, as its source
    /// stopped, is not taken.
    private var inputClosed = false
    private(set) var engine: SessionEngine
    private(set) var queue: WriteQueue
    private var watchers: [UInt64: AsyncStream<WorkoutSession.Statistics>.Continuation] = [:]
    private var nextWatcher: UInt64 = 0
    private var generation: UInt64 = 0
    private var settledWaiters: [CheckedContinuation<Void, Never>] = []

    /// The circumference the wheel sensors measure with, metres.
    private let wheelCircumference: Double

    init(configuration: WorkoutSession.Configuration) {
        engine = SessionEngine(configuration: configuration)
        queue = WriteQueue(maximumPoints: configuration.maximumHeldPoints)
        wheelCircumference = configuration.wheelCircumference.metres
    }

    /// A machine taking over a recovered session: its engine rebuilt, its rows staged.
    init(configuration: WorkoutSession.Configuration, engine: SessionEngine, staging: WorkoutStore.SessionStaging) {
        wheelCircumference = configuration.wheelCircumference.metres
        self.engine = engine
        queue = WriteQueue(maximumPoints: configuration.maximumHeldPoints)
        queue.staging = staging
        queue.nextEventOrdinal = engine.events.count
    }

    /// What the session started while recording, else `nil`.
    var recordingSources: Sources? {
        if case let .recording(recording) = lifecycle { recording.sources } else { nil }
    }

    var state: WorkoutSession.State {
        switch lifecycle {
        case .notStarted: .notStarted
        case let .recording(recording): recording.isPaused ? .paused : .running
        case .ending: .ending
        case .stopped: .stopped
        case .ended: .ended
        case .discarded: .discarded
        }
    }

    /// The writer, in the states that have one.
    private var writer: Writer? {
        get {
            switch lifecycle {
            case let .recording(recording): recording.writer
            case let .ending(writer), let .stopped(writer): writer
            default: nil
            }
        }
        set {
            guard let newValue else { return }
            switch lifecycle {
            case var .recording(recording):
                recording.writer = newValue
                lifecycle = .recording(recording)
            case .ending: lifecycle = .ending(newValue)
            case .stopped: lifecycle = .stopped(newValue)
            default: break
            }
        }
    }

    // MARK: - Lifecycle

    /// `start()`: from not started to recording (paused: a resumed session the user had paused).
    /// Indoors the time line begins (or a resumed one resumes) at `time`, the session's clock's.
    mutating func start(paused: Bool, at time: Double?) throws(WorkoutSessionError) -> Effects {
        guard case .notStarted = lifecycle else { throw .invalidTransition(action: .start, state: state) }
        lifecycle = .recording(Recording(isPaused: paused))
        if let time { queue.add(engine.begin(at: time)) }
        return Effects(broadcast: broadcast(), wakeWriter: !queue.events.isEmpty && wake())
    }

    /// The sources were started: kept while recording; handed back to be stopped otherwise (the
    /// session ended meanwhile).
    mutating func attach(_ sources: Sources) -> Sources? {
        guard case var .recording(recording) = lifecycle else { return sources }
        recording.sources = sources
        lifecycle = .recording(recording)
        return nil
    }

    /// A user's action: pause, resume, lap or mark, indoors at `time` on the session's clock (else
    /// at the last fix). An event is written at once.
    mutating func act(_ action: WorkoutSession.Action, name: String? = nil, at time: Double? = nil) throws(WorkoutSessionError) -> Effects {
        guard case var .recording(recording) = lifecycle else { throw .invalidTransition(action: action, state: state) }
        if let time { engine.advanceClock(to: time) }
        switch action {
        case .pause where !recording.isPaused:
            recording.isPaused = true
            queue.add(engine.act(.pause))
        case .resume where recording.isPaused:
            recording.isPaused = false
            queue.add(engine.act(.resume))
        case .lap:
            queue.add(engine.act(.lap))
        case .mark:
            queue.add(engine.act(.marker, name: name))
        default:
            throw .invalidTransition(action: action, state: state)
        }
        lifecycle = .recording(recording)
        return Effects(broadcast: broadcast(), wakeWriter: wake())
    }

    /// `end()` begins: recording stops, and `end()` writes from here (the writer is busy until it
    /// waits to try again, or the session has ended or stopped). Returns the sources to stop.
    mutating func beginEnding() throws(WorkoutSessionError) -> Sources {
        switch lifecycle {
        case let .recording(recording):
            lifecycle = .ending(Writer(phase: .writing))
            return recording.sources
        case .stopped:
            lifecycle = .ending(Writer(phase: .writing))
            return Sources()
        default:
            throw .invalidTransition(action: .end, state: state)
        }
    }

    /// The sources are stopped: the engine settles what it holds, for the last write; indoors
    /// its time line ends at `time` on the session's clock.
    mutating func settle(at time: Double? = nil) -> Effects {
        if let time { engine.advanceClock(to: time) }
        inputClosed = true
        queue.add(engine.finish())
        return Effects(broadcast: broadcast())
    }

    /// The session is saved: its watchers and waiters are let go.
    mutating func ended() -> Effects {
        lifecycle = .ended
        return letGo()
    }

    /// `end()` could not save: the session is stopped, everything kept; its writer is settled.
    mutating func endFailed() -> Effects {
        guard case .ending = lifecycle else { return Effects() }
        lifecycle = .stopped(Writer())
        defer { settledWaiters = [] }
        return Effects(broadcast: broadcast(), settled: settledWaiters)
    }

    /// `discard()`: returns the sources to stop, and the watchers and waiters to let go.
    mutating func discard() throws(WorkoutSessionError) -> (Sources, Effects) {
        let sources: Sources
        switch lifecycle {
        case .notStarted, .stopped: sources = Sources()
        case let .recording(recording): sources = recording.sources
        default: throw .invalidTransition(action: .discard, state: state)
        }
        lifecycle = .discarded
        queue.clear()
        return (sources, letGo())
    }

    private mutating func letGo() -> Effects {
        defer {
            watchers = [:]
            settledWaiters = []
        }
        return Effects(settled: settledWaiters, finished: Array(watchers.values))
    }

    // MARK: - Input

    /// A fix from the source, while recording.
    mutating func take(_ fix: Location) -> Effects {
        guard case .recording = lifecycle else { return Effects() }
        if queue.isFull {
            engine.note(.backlogFull)
        } else {
            queue.add(engine.take(fix))
        }
        return Effects(broadcast: broadcast(), wakeWriter: isWriteDue && wake())
    }

    /// A sample from a sample source, at `now` on the session's clock; taken while ending too
    /// (the sources are stopping). The figures a sample changes are sent at most every
    /// ``sampleBroadcastInterval`` (the first of each type at once), and what waits goes with the
    /// next fix, change or tick: a sensor may send a thousand measurements a second, and a reader
    /// woken for each would cost more than the rest.
    mutating func take(_ sample: QuantitySample, at now: Duration) -> Effects {
        switch lifecycle {
        case .recording: break
        case .ending where !inputClosed: break
        default: return Effects()
        }
        var changed = false
        if queue.isFull {
            engine.note(.backlogFull)
        } else {
            let (taken, output) = engine.take(sample)
            if taken { queue.samples.append(sample) }
            // A reading may decide a stop (indoors, in a tunnel) or let a held fix through: sent at once.
            queue.add(output)
            changed = (taken && engine.samples[sample.type]?.count == 1) || !output.isEmpty
        }
        return Effects(broadcast: sampleBroadcast(at: now, firstOfItsType: changed), wakeWriter: isWriteDue && wake())
    }

    /// How often, at most, the figures a sample changes are sent.
    static let sampleBroadcastInterval = Duration.milliseconds(200)

    private mutating func sampleBroadcast(at now: Duration, firstOfItsType: Bool) -> Broadcast? {
        guard case var .recording(recording) = lifecycle else { return broadcast() }
        if !firstOfItsType, let last = recording.throttle.lastBroadcast, now - last < Self.sampleBroadcastInterval {
            recording.throttle.unsent = true
            lifecycle = .recording(recording)
            return nil
        }
        recording.throttle = SampleThrottle(lastBroadcast: now, unsent: false)
        lifecycle = .recording(recording)
        return broadcast()
    }

    /// A second went by on the session's clock: a fix admission has held since the last tick,
    /// waiting for the next, is taken (a receiver that lost its fix sends no next; the reports of
    /// one fix come within a second); figures a sample changed go out; the writer writes what is held.
    mutating func tick(at time: Double? = nil) -> Effects {
        guard case var .recording(recording) = lifecycle else { return Effects() }
        // Indoors the elapsed time and duration run with the session's clock.
        let before = engine.now
        if let time { engine.advanceClock(to: time) }
        let held = engine.admission.heldCount
        var changed = recording.throttle.unsent
        if engine.admission.isHolding, held == recording.heldAtLastTick, !queue.isFull {
            queue.add(engine.flushHeldFix())
            changed = true
        }
        recording.heldAtLastTick = held
        lifecycle = .recording(recording)
        if engine.now != before { changed = true }
        return Effects(broadcast: changed ? broadcast() : nil, wakeWriter: !queue.isEmpty && wake())
    }

    /// Queues what a recovered session's engine decided before it started (the gap's pause).
    mutating func queueForWriting(_ output: SessionEngine.Output) {
        queue.add(output)
    }

    // MARK: - Writing

    /// Whether a write is due: an event is held, or a second's worth of fixes (by their times).
    var isWriteDue: Bool {
        queue.isDue(now: engine.now)
    }

    /// Marks the writer woken; `false` when it already was (no second wake is needed).
    private mutating func wake() -> Bool {
        guard var writer, !writer.wakePending else { return false }
        writer.wakePending = true
        self.writer = writer
        return true
    }

    /// A write is wanted (`end()` writes what is held): the writer is marked woken.
    mutating func wakeForWriting() -> Effects {
        Effects(wakeWriter: wake())
    }

    /// The writer starts a write: what to write (everything held, with the session's start to
    /// stage it) and the input issues so far, or `nil` when nothing is held or can be staged yet.
    mutating func beginWrite() -> (batch: WriteQueue.Batch, issues: [InputIssue: Int])? {
        writer?.wakePending = false
        guard let batch = queue.batch(start: engine.timeline.start) else { return nil }
        writer?.phase = .writing
        return (batch, engine.admission.counts)
    }

    /// `end()` publishes the session: it is in a store call.
    mutating func beginPublishing() {
        writer?.phase = .writing
    }

    /// The writer wrote `batch`.
    mutating func written(_ batch: WriteQueue.Batch, staging: WorkoutStore.SessionStaging) -> Effects {
        let wasOK = queue.storage.isOK
        queue.remove(batch)
        queue.staging = staging
        queue.storage = .ok
        return Effects(broadcast: wasOK ? nil : broadcast())
    }

    /// The writer failed with `error`, at `date` on the system clock: one more failed attempt since
    /// writing last worked.
    mutating func writeFailed(_ error: WorkoutStoreError, at date: Date) -> Effects {
        let (since, attempts): (Date, Int) = switch queue.storage {
        case .ok: (date, 1)
        case let .retrying(since, attempts, _), let .failing(since, attempts, _): (since, attempts + 1)
        }
        queue.storage = queue.isFull
            ? .failing(since: since, attempts: attempts, error: error)
            : .retrying(since: since, attempts: attempts, error: error)
        return Effects(broadcast: broadcast())
    }

    /// How many writes have failed since writing last worked.
    var failedAttempts: Int {
        switch queue.storage {
        case .ok: 0
        case let .retrying(_, attempts, _), let .failing(_, attempts, _): attempts
        }
    }

    /// The writer waits to try again until `until` on the session's clock, now `now`: the
    /// background writer while recording, `end()` (`byEnd`) while ending.
    mutating func backOff(until: Duration, now: Duration, byEnd: Bool) -> Effects {
        switch (lifecycle, byEnd) {
        case (.recording, false), (.ending, true): writer?.phase = .backingOff(until: until)
        default: return Effects()
        }
        return settledIfSo(now: now)
    }

    /// The background writer is done for now: it waits to be woken. (Once `end()` has begun, the
    /// background writer, stopping, no longer says how writing stands: `end()` does.)
    mutating func writerWaits(now: Duration) -> Effects {
        guard case var .recording(recording) = lifecycle else { return Effects() }
        recording.writer.phase = .waiting
        lifecycle = .recording(recording)
        return settledIfSo(now: now)
    }

    /// Drops the held sample at `index` of `batch`, which the store refuses.
    mutating func dropSample(at index: Int) {
        if index < queue.samples.count { queue.samples.remove(at: index) }
        engine.note(.invalidSample)
    }

    /// Whether the writer is settled at `now` (a session without a writer is).
    func isWriterSettled(now: Duration) -> Bool {
        writer?.isSettled(now: now) ?? true
    }

    /// Waits for the writer to settle: `false` when it is settled now (resume at once), else the
    /// waiter is kept for the effects that settle it.
    mutating func awaitSettled(_ waiter: CheckedContinuation<Void, Never>, now: Duration) -> Bool {
        guard !isWriterSettled(now: now) else { return false }
        settledWaiters.append(waiter)
        return true
    }

    private mutating func settledIfSo(now: Duration) -> Effects {
        guard isWriterSettled(now: now), !settledWaiters.isEmpty else { return Effects() }
        defer { settledWaiters = [] }
        return Effects(settled: settledWaiters)
    }

    // MARK: - Statistics

    /// Adds a watcher; returns its key and the current figures for every watcher (sent to all, so
    /// that each gets figures in the order they were made), or `nil` once the session is over.
    mutating func addWatcher(_ continuation: AsyncStream<WorkoutSession.Statistics>.Continuation) -> (UInt64, Broadcast)? {
        switch lifecycle {
        case .ended, .discarded: return nil
        default: break
        }
        nextWatcher += 1
        watchers[nextWatcher] = continuation
        return (nextWatcher, broadcast())
    }

    mutating func removeWatcher(_ key: UInt64) {
        watchers[key] = nil
    }

    /// The figures now, for every watcher: they carry any a sample changed that were not sent.
    private mutating func broadcast() -> Broadcast {
        if case var .recording(recording) = lifecycle, recording.throttle.unsent {
            recording.throttle.unsent = false
            lifecycle = .recording(recording)
        }
        generation += 1
        return Broadcast(generation: generation, statistics: statistics, watchers: Array(watchers.values))
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
            distanceSource: engine.timeline.options.distanceSource, sensorCalibration: engine.timeline.calibration,
            calibratedWheelCircumference: engine.timeline.calibration.factor.map { $0 * wheelCircumference },
            storage: queue.storage, unwritten: queue.points.count + queue.samples.count)
    }
}
