import Foundation
import GPSCore
import LocationCore

/// A workout recorded on the device, as `HKWorkoutSession` with `HKLiveWorkoutBuilder` records
/// one on a watch: started, paused and resumed, split into laps, with auto-pause and live figures,
/// written to the store as it goes and saved whole, in one transaction, when it ends.
///
/// ```swift
/// let session = WorkoutSession(store: store, source: GPSDClient(host: "127.0.0.1", port: 2947),
///                              configuration: .init(activityType: .running, autoPause: .defaults(for: .running)))
/// try session.start()
/// for await figures in session.statistics() { show(figures) }   // until the session ends
/// let workout = try await session.end()
/// ```
///
/// ## How it decides
/// Its times are the fixes' own (a user's pause or lap is dated at the last fix), so a session
/// recorded from a replay gives the same workout at any replay speed, and on any clock. Each fix
/// goes through three stages, in one value that knows no clock and no store (so a session
/// recovered after a crash gets the figures it had live):
/// 1. **Admission** (``InputIssue``): a fix without a time is placed by when it arrived, or
///    dropped before the first timed one; a fix not after the last is dropped; a GPS week
///    rollover is corrected; a jump faster than the activity (``FixRules``) starts a new segment
///    instead of adding distance; an inaccurate fix is kept but not counted. Each rule's count is
///    live in ``Statistics/inputIssues`` and saved in the workout's metadata.
/// 2. **Auto-pause** (``AutoPause``), by the reported speed or, without one, a speed worked out
///    from the positions that tells drift from motion.
/// 3. **The time line**: active time, distance, elevation, segments and laps, decided in one place
///    for the live figures, recovery, ``WorkoutStore/laps(of:)``, ``WorkoutStore/splits(of:every:)``
///    and the GPX export.
///
/// ## Writing
/// What it records is written to the store as it comes (at most about a second behind, by the
/// fixes' times and by `clock`), out of sight until ``end()``: after a crash it is an
/// ``InterruptedSession``. One task writes. A write that fails (the store locked by another
/// process, a full disk) is tried again with a growing wait, and nothing is lost meanwhile: the
/// rows stay held in memory (up to ``Configuration/maximumHeldPoints``), and
/// ``Statistics/storage`` says how writing stands. ``end()`` waits up to
/// ``Configuration/endTimeout`` for a failing store.
public final class WorkoutSession: Sendable {
    /// How it records.
    public let configuration: Configuration
    let store: WorkoutStore
    private let source: any LocationSource
    private let sampleSources: [any SampleSource]
    /// Times the writing of what is held when nothing new comes, the retries of failed writes and
    /// how long end() waits; the session's own times are the fixes'.
    let clock: ElapsedClock
    /// The id of the workout it records (kept by a resumed session).
    public let id: UUID
    let machine: Locked<SessionStateMachine>
    /// Wakes the writer: a write is due, or a second has passed.
    let wakes: AsyncStream<Void>.Continuation
    private let wakeStream: Locked<AsyncStream<Void>?>
    /// The writer and the clock's ticker, while recording.
    private let tasks = Locked<(writer: Task<Void, Never>?, ticker: Task<Void, Never>?)>((nil, nil))

    /// A session over `source`'s fixes and the samples of `samples` (heart rate, cadence,
    /// power...). `clock` times the writing of what is held when nothing new comes (within about a
    /// second), the retries of a failing store and ``Configuration/endTimeout``; a test gives it
    /// the clock its fake sources run on.
    public convenience init(
        store: WorkoutStore, source: any LocationSource, samples: [any SampleSource] = [], configuration: Configuration,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            id: UUID(), store: store, source: source, samples: samples, configuration: configuration, clock: clock,
            machine: SessionStateMachine(configuration: configuration))
    }

    /// A session with one sample source, for heart rate: as ``init(store:source:samples:configuration:clock:)``.
    public convenience init(
        store: WorkoutStore, source: any LocationSource, heartRate: (any SampleSource)?, configuration: Configuration,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.init(store: store, source: source, samples: heartRate.map { [$0] } ?? [], configuration: configuration, clock: clock)
    }

    init(
        id: UUID, store: WorkoutStore, source: any LocationSource, samples: [any SampleSource], configuration: Configuration,
        clock: any Clock<Duration>, machine: SessionStateMachine
    ) {
        self.id = id
        self.store = store
        self.source = source
        self.sampleSources = samples
        self.configuration = configuration
        self.clock = ElapsedClock(clock)
        self.machine = Locked(machine)
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakes = continuation
        wakeStream = Locked(stream)
    }

    /// Where the session stands.
    public var state: State { machine.withLock { $0.state } }

    /// The events so far (pauses, auto-pauses, laps, markers), in order.
    public var events: [WorkoutEvent] { machine.withLock { $0.engine.events } }

    /// The route points held in memory, not yet written to the store.
    var heldPoints: Int { machine.withLock { $0.queue.points.count } }

    /// Whether everything that came is written (points, samples and events), none held by admission.
    var isAllWritten: Bool { machine.withLock { $0.queue.isEmpty && !$0.engine.admission.isHolding } }

    /// Whether the writer is settled: not in a store call, and not due to try again by the
    /// session's clock. A test driving the clock waits for this after each step.
    var isWriterSettled: Bool {
        let now = clock.now
        return machine.withLock { machine in
            switch machine.writerPhase {
            case .waiting: !machine.writerWakePending
            case .writing: false
            case let .backingOff(until): until > now
            }
        }
    }

    /// Starts recording: the sources are started and each fix and sample they report is taken.
    /// Throws ``WorkoutSessionError/invalidTransition(action:state:)`` unless the session is new.
    public func start() throws(WorkoutSessionError) {
        try begin(paused: false)
    }

    func begin(paused: Bool) throws(WorkoutSessionError) {
        try machine.withLock { machine throws(WorkoutSessionError) in try machine.start(paused: paused).send() }
        startWriting()
        let observation = source.addObserver { [weak self] event in
            guard let self, case let .location(fix) = event else { return }
            take(fix)
        }
        // The sample sources first: one that follows the fixes (a sensor's replay, a fake) must
        // be listening before the first fix can come, or it misses it.
        var readers: [Task<Void, Never>] = []
        for sampleSource in sampleSources {
            let samples = sampleSource.start()
            readers.append(Task { [weak self] in
                for await sample in samples { self?.take(sample) }
            })
        }
        source.start()
        let sources = SessionStateMachine.Sources(observation: observation, readers: readers)
        // end() or discard() may have come meanwhile: then what was started here stops at once.
        if let leftover = machine.withLock({ $0.attach(sources) }) { stop(leftover) }
    }

    /// Pauses the session (a `pause` event at the last fix's time): no distance and no active time
    /// until ``resume()``; the fixes meanwhile are kept as route points.
    public func pause() throws(WorkoutSessionError) {
        try act(.pause)
    }

    /// Resumes a paused session: the last fix seen while paused starts the new stretch.
    public func resume() throws(WorkoutSessionError) {
        try act(.resume)
    }

    /// Ends the current lap and starts the next (a `lap` event, trigger `manual`).
    public func lap() throws(WorkoutSessionError) {
        try act(.lap)
    }

    /// Marks the current place with `name` (a `marker` event).
    public func mark(_ name: String) throws(WorkoutSessionError) {
        try act(.mark, name: name)
    }

    private func act(_ action: Action, name: String? = nil) throws(WorkoutSessionError) {
        try machine.withLock { machine throws(WorkoutSessionError) in try machine.act(action, name: name).send() }
        // An event is written as soon as auto-pause releases it (a pause at once; a lap pressed
        // while slowing once the slow stretch is decided): it may be the last thing before a crash.
        wakeWriter()
    }

    /// Ends the session and saves it in one transaction: the workout with its totals (distance,
    /// elapsed and active time, elevation gain and loss), its route (a segment per stretch between
    /// pauses), its samples and its events, and the counts of its ``InputIssue``s in its metadata.
    /// While it saves, the session is ``State-swift.enum/ending``: a second `end()` or a
    /// `discard()` is refused.
    ///
    /// It first writes what it holds, then publishes; a failing store is tried again for up to
    /// ``Configuration/endTimeout``. Past that it throws ``WorkoutSessionError/notSaved(error:waited:unwritten:)``
    /// and the session is ``State-swift.enum/stopped``: nothing is lost, `end()` may be called
    /// again, and what was written is recoverable. Throws ``WorkoutSessionError/nothingRecorded``
    /// when no fix came (the session is then stopped, to discard), and
    /// ``WorkoutSessionError/cancelled`` (changing nothing) in a cancelled task while recording.
    /// It first stops the sources it started, and waits up to 2 s for a sample source's stream to end.
    public func end() async throws(WorkoutSessionError) -> WorkoutRecord {
        let sources = try machine.withLock { machine throws(WorkoutSessionError) in
            if Task.isCancelled, machine.state == .running || machine.state == .paused { throw .cancelled }
            return try machine.beginEnding()
        }
        // The wait for the store counts from here: the writer may be in a store call now.
        let began = clock.now
        stop(sources)
        await stopReading(sources.readers)
        update { $0.settle() }
        await stopWriting()
        do throws(WorkoutSessionError) {
            let workout = try await save(began: began, deadline: began + configuration.endTimeout)
            let watchers = machine.withLock { $0.ended() }
            for watcher in watchers { watcher.finish() }
            return workout
        } catch {
            update { $0.endFailed() }
            throw error
        }
    }

    /// Ends the session without saving anything: what it had written is deleted. Throws
    /// ``WorkoutSessionError/store(_:)`` when the store fails to delete it (it is then an
    /// interrupted session once this process ends).
    public func discard() async throws(WorkoutSessionError) {
        let (sources, watchers) = try machine.withLock { machine throws(WorkoutSessionError) in try machine.discard() }
        stop(sources)
        await stopReading(sources.readers)
        await stopWriting()
        for watcher in watchers { watcher.finish() }
        do {
            try await store.discardSession(owner: WorkoutStore.sessionOwner(id))
        } catch {
            throw .store(error)
        }
    }

    /// The live figures: the current ones at once, then after each fix and change, and after
    /// samples at most five times a second of the session's clock (the first of each type at
    /// once; what waits goes with the next fix, change or second), until the session ends. `buffering` says what a slow reader gets: the newest `n` (by default
    /// the newest one: a screen redrawn now and then shows the latest), or `.all` (a reader that
    /// must see each update, such as a log of every second).
    public func statistics(buffering: LocationManager.UpdateBuffering = .newest(1)) -> AsyncStream<Statistics> {
        let policy: AsyncStream<Statistics>.Continuation.BufferingPolicy = switch buffering {
        case let .newest(count): .bufferingNewest(max(1, count))
        case .all: .unbounded
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Statistics.self, bufferingPolicy: policy)
        // The first figures go out under the lock, as every later figure does: in order.
        let key: UInt64? = machine.withLock { machine in
            guard let (key, current) = machine.addWatcher(continuation) else { return nil }
            continuation.yield(current)
            return key
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.machine.withLock { $0.removeWatcher(key) }
        }
        return stream
    }

    /// The figures now.
    public var currentStatistics: Statistics {
        machine.withLock { $0.statistics }
    }

    // MARK: - Input

    private func take(_ fix: Location) {
        let due = machine.withLock { machine in
            machine.take(fix)?.send()
            return machine.isWriteDue
        }
        if due { wakeWriter() }
    }

    private func take(_ sample: QuantitySample) {
        let due = machine.withLock { machine in
            machine.take(sample, at: clock.now)?.send()
            return machine.isWriteDue
        }
        if due { wakeWriter() }
    }

    /// Changes the state and sends the figures the change returns, under the lock, so watchers
    /// get them in the order the changes were made. (Yielding to an `AsyncStream` runs no code of
    /// its reader: it only hands the value over.)
    func update(_ change: (inout SessionStateMachine) -> SessionStateMachine.Broadcast?) {
        machine.withLock { machine in change(&machine)?.send() }
    }

    /// Stops what this session started (a source it never started may be someone else's).
    private func stop(_ sources: SessionStateMachine.Sources) {
        if let observation = sources.observation {
            observation.cancel()
            source.stop()
        }
        if !sources.readers.isEmpty {
            for sampleSource in sampleSources { sampleSource.stop() }
        }
    }

    /// Waits for the sample readers to take what their sources sent before they stopped; a
    /// source whose stream does not end within ``sampleSourceGrace`` of the session's clock is
    /// read no further.
    private func stopReading(_ readers: [Task<Void, Never>]) async {
        guard !readers.isEmpty else { return }
        let cutoff = Task { [clock] in
            guard (try? await clock.sleep(for: Self.sampleSourceGrace)) != nil else { return }
            for reader in readers { reader.cancel() }
        }
        for reader in readers { await reader.value }
        cutoff.cancel()
    }

    /// How long ``end()`` and ``discard()`` wait for a sample source's stream to end once stopped.
    static let sampleSourceGrace = Duration.seconds(2)

    // MARK: - The writer's tasks

    /// Wakes the writer: it writes what is held (at once, or when its wait to try again ends).
    func wakeWriter() {
        machine.withLock { $0.writerWakePending = true }
        wakes.yield()
    }

    /// Starts the writer and the ticker that wakes it every second of the clock while anything
    /// is held.
    private func startWriting() {
        guard let stream = wakeStream.withLock({ stream in defer { stream = nil }; return stream }) else { return }
        let writer = Task { [weak self] in
            for await _ in stream {
                guard let self else { return }
                _ = await writeHeld(until: nil)
            }
        }
        // The ticker only sleeps on the clock and wakes the writer: a test clock may step it with
        // the fixes it plays (see `ElapsedClock.pacedTask`).
        let ticker = clock.pacedTask { [weak self] clock in
            while (try? await clock.sleep(for: .seconds(1))) != nil {
                guard let self else { return }
                update { $0.tick() }
                let due = machine.withLock { machine in
                    if !machine.queue.isEmpty { machine.writerWakePending = true }
                    return !machine.queue.isEmpty
                }
                if due { wakes.yield() }
            }
        }
        tasks.withLock { $0 = (writer, ticker) }
        // end() or discard() may have stopped the writing meanwhile: these must not outlive it.
        let recording = machine.withLock { machine in machine.state == .running || machine.state == .paused }
        if !recording {
            writer.cancel()
            ticker.cancel()
        }
    }

    deinit {
        // A session let go without end() or discard(): what it started stops (its rows stay, an
        // interrupted session once this process ends).
        let (writer, ticker) = tasks.withLock { $0 }
        writer?.cancel()
        ticker?.cancel()
        wakes.finish()
        if let sources = machine.withLock({ $0.recordingSources }) { stop(sources) }
    }

    /// Stops the writer task (cancelling a wait between retries): end() and discard() write on
    /// their own from here.
    private func stopWriting() async {
        let (writer, ticker) = tasks.withLock { tasks in defer { tasks = (nil, nil) }; return tasks }
        ticker?.cancel()
        wakes.finish()
        writer?.cancel()
        await writer?.value
    }
}
