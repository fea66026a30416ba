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
    /// The fixes' source; `nil` indoors (a source given to an indoor session is not started).
    private let source: (any LocationSource)?
    private let sampleSources: [any SampleSource]
    /// The date on the session's clock, indoors: when the time line begins, when an action
    /// happens, when it ends (outdoors, the fixes' times are the session's).
    private let date: @Sendable () -> Date
    /// Times the writing of what is held when nothing new comes, the retries of failed writes and
    /// how long end() waits; the session's own times are the fixes'.
    let clock: ElapsedClock
    /// The id of the workout it records (kept by a resumed session).
    public let id: UUID
    let machine: ObservedState<SessionStateMachine>
    /// The generation of the last figures sent: figures go out in order, outside the machine's lock.
    private let delivered = Locked<UInt64>(0)
    /// Wakes the writer: a write is due, or a second has passed.
    private let wakes: AsyncStream<Void>.Continuation
    private let wakeStream: Locked<AsyncStream<Void>?>
    /// One task for everything the session runs while recording, in a task group: the writer, the
    /// clock's ticker and a reader per sample source. Cancelling it stops them all.
    private let recording = Locked<Task<Void, Never>?>(nil)
    /// Each sample reader says here when its source's stream has ended.
    private let readerEnds: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)
    /// How many sample sources are read from streams (the others deliver their samples).
    private let readStreams = Locked(0)

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

    /// A session without a location source: indoors (a trainer ride, a treadmill run), whatever
    /// `configuration.locationType` says. Its time line begins at ``start()``, dated by `now`, and
    /// its sample sources' samples make the workout: their distance its distance, their speed
    /// (and cadence and power) what auto-pause judges by. `now` dates the time line on the
    /// session's clock: give the sample sources the same one (a `FixTime(clock:)` without a
    /// source runs from the system clock's date at the pace of `clock`).
    ///
    /// ```swift
    /// let time = FixTime(clock: clock)
    /// let trainer = BluetoothSensor(address: "C0:FF:EE:00:00:05", now: time.now)
    /// let session = WorkoutSession(store: store, samples: [trainer, strap],
    ///                              configuration: .init(activityType: .cycling, locationType: .indoor), clock: clock, now: time.now)
    /// ```
    public convenience init(
        store: WorkoutStore, samples: [any SampleSource], configuration: Configuration,
        clock: some Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        var configuration = configuration
        configuration.locationType = .indoor
        self.init(
            id: UUID(), store: store, source: nil, samples: samples, configuration: configuration, clock: clock,
            machine: SessionStateMachine(configuration: configuration), now: now)
    }

    /// A session with one sample source, for heart rate: as ``init(store:source:samples:configuration:clock:)``.
    public convenience init(
        store: WorkoutStore, source: any LocationSource, heartRate: (any SampleSource)?, configuration: Configuration,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.init(store: store, source: source, samples: heartRate.map { [$0] } ?? [], configuration: configuration, clock: clock)
    }

    init(
        id: UUID, store: WorkoutStore, source: (any LocationSource)?, samples: [any SampleSource], configuration: Configuration,
        clock: any Clock<Duration>, machine: SessionStateMachine, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.id = id
        self.store = store
        // Indoors no fix is taken.
        self.source = configuration.locationType == .indoor ? nil : source
        self.date = now
        self.sampleSources = samples
        self.configuration = configuration
        self.clock = ElapsedClock(clock)
        self.machine = ObservedState(machine)
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakes = continuation
        wakeStream = Locked(stream)
        readerEnds = AsyncStream.makeStream(of: Void.self)
    }

    /// Where the session stands.
    public var state: State { machine.withLock { $0.state } }

    /// The events so far (pauses, auto-pauses, laps, markers), in order.
    public var events: [WorkoutEvent] { machine.withLock { $0.engine.events } }

    /// The route points held in memory, not yet written to the store.
    var heldPoints: Int { machine.withLock { $0.queue.points.count } }

    /// Whether everything that came is written (points, samples and events), none held by admission.
    var isAllWritten: Bool { machine.withLock { $0.queue.isEmpty && !$0.engine.admission.isHolding } }

    /// Returns once the writer has settled: not in a store call, not woken, and not due to try
    /// again by the session's clock (or the session is over). A test moving the session's clock
    /// awaits it after each step, to find what the step made the writer do done.
    func settled() async {
        await withCheckedContinuation { waiter in
            let now = clock.now
            let waits = machine.withLock { $0.awaitSettled(waiter, now: now) }
            if !waits { waiter.resume() }
        }
    }

    /// Starts recording: the sources are started and each fix and sample they report is taken.
    /// Throws ``WorkoutSessionError/invalidTransition(action:state:)`` unless the session is new.
    public func start() throws(WorkoutSessionError) {
        try begin(paused: false)
    }

    func begin(paused: Bool) throws(WorkoutSessionError) {
        let time = indoorTime()
        run(try machine.withLock { machine throws(WorkoutSessionError) in try machine.start(paused: paused, at: time) })
        let observation = source?.addObserver { [weak self] event in
            guard let self, case let .location(fix) = event else { return }
            run(machine.withLock { $0.take(fix) })
        }
        // The sample sources first: one that follows the fixes (a sensor's replay, a fake) must
        // be listening before the first fix can come, or it misses it. One that delivers its
        // samples is taken from as each comes; the others' streams are read by tasks.
        var streams: [AsyncStream<QuantitySample>] = []
        for sampleSource in sampleSources where !sampleSource.start(delivering: { [weak self] sample in self?.take(sample) }) {
            streams.append(sampleSource.start())
        }
        startRecording(reading: streams)
        readStreams.withLock { $0 = streams.count }
        source?.start()
        let sources = SessionStateMachine.Sources(observation: observation, readsSamples: !sampleSources.isEmpty)
        // end() or discard() may have come meanwhile: then what was started here stops at once.
        if let leftover = machine.withLock({ $0.attach(sources) }) { stop(leftover) }
    }

    /// Pauses the session (a `pause` event at the last fix's time): no distance and no moving time
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

    /// An event is written as soon as auto-pause releases it (a pause at once; a lap pressed while
    /// slowing once the slow stretch is decided): it may be the last thing before a crash.
    private func act(_ action: Action, name: String? = nil) throws(WorkoutSessionError) {
        let time = indoorTime()
        run(try machine.withLock { machine throws(WorkoutSessionError) in try machine.act(action, name: name, at: time) })
    }

    /// Indoors, the date now on the session's clock (seconds since 1970); outdoors `nil`: the
    /// fixes' times are the session's.
    private func indoorTime() -> Double? {
        configuration.locationType == .indoor ? date().timeIntervalSince1970 : nil
    }

    /// Ends the session and saves it in one transaction: the workout with its totals (distance,
    /// elapsed time, duration, moving time, elevation gain and loss), its route (a segment per
    /// stretch between pauses), its samples and its events, and the counts of its ``InputIssue``s
    /// in its metadata. While it saves, the session is ``State-swift.enum/ending``: a second
    /// `end()` or a `discard()` is refused.
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
        await stopRecording(readers: sources.readsSamples ? readStreams.withLock { $0 } : 0)
        let time = indoorTime()
        run(machine.withLock { $0.settle(at: time) })
        do throws(WorkoutSessionError) {
            let workout = try await save(began: began, deadline: began + configuration.endTimeout)
            run(machine.withLock { $0.ended() })
            return workout
        } catch {
            run(machine.withLock { $0.endFailed() })
            throw error
        }
    }

    /// Ends the session without saving anything: what it had written is deleted. Throws
    /// ``WorkoutSessionError/store(_:)`` when the store fails to delete it (it is then an
    /// interrupted session once this process ends).
    public func discard() async throws(WorkoutSessionError) {
        let (sources, effects) = try machine.withLock { machine throws(WorkoutSessionError) in try machine.discard() }
        stop(sources)
        await stopRecording(readers: sources.readsSamples ? readStreams.withLock { $0 } : 0)
        run(effects)
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
        guard let (key, current) = machine.withLock({ $0.addWatcher(continuation) }) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.machine.withLock { $0.removeWatcher(key) }
        }
        run(SessionStateMachine.Effects(broadcast: current))
        return stream
    }

    /// The figures now.
    public var currentStatistics: Statistics {
        machine.withLock { $0.statistics }
    }

    // MARK: - Running the machine's effects

    /// Runs what an event of the machine returned, once its lock is let go: sends the figures (in
    /// the order the machine made them: one older than what was sent is dropped, as the newer
    /// carried its changes), wakes the writer, lets waiters and watchers go.
    func run(_ effects: SessionStateMachine.Effects) {
        if let broadcast = effects.broadcast {
            // Yielding to an `AsyncStream` runs none of its reader's code: it hands the value over.
            delivered.withLock { sent in
                guard broadcast.generation > sent else { return }
                sent = broadcast.generation
                for watcher in broadcast.watchers { watcher.yield(broadcast.statistics) }
            }
        }
        if effects.wakeWriter { wakes.yield() }
        for waiter in effects.settled { waiter.resume() }
        for watcher in effects.finished { watcher.finish() }
    }

    /// Takes a sample from a sample source.
    private func take(_ sample: QuantitySample) {
        let now = clock.now
        run(machine.withLock { $0.take(sample, at: now) })
    }

    /// Stops what this session started (a source it never started may be someone else's).
    private func stop(_ sources: SessionStateMachine.Sources) {
        if let observation = sources.observation {
            observation.cancel()
            source?.stop()
        }
        if sources.readsSamples {
            for sampleSource in sampleSources { sampleSource.stop() }
        }
    }

    /// How long ``end()`` and ``discard()`` wait for a sample source's stream to end once stopped.
    static let sampleSourceGrace = Duration.seconds(2)

    // MARK: - The recording task

    /// Starts the one task of the recording: the writer, the ticker that wakes it every second of
    /// the clock, and a reader for each stream of `samples`, in one task group.
    private func startRecording(reading samples: [AsyncStream<QuantitySample>]) {
        guard let wakeups = wakeStream.withLock({ stream in defer { stream = nil }; return stream }) else { return }
        let clock = clock
        let ended = readerEnds.continuation
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [weak self] in
                    for await _ in wakeups {
                        guard let self else { return }
                        _ = await writeHeld(until: nil)
                    }
                }
                // The ticker only sleeps on the clock and ticks: a test clock may step it with
                // the fixes it plays (see `ElapsedClock.pacedTask`).
                let ticker = clock.pacedTask { [weak self] clock in
                    while (try? await clock.sleep(for: .seconds(1))) != nil {  // cancelled: the ticker stops
                        guard let self else { return }
                        let time = indoorTime()
                        run(machine.withLock { $0.tick(at: time) })
                    }
                }
                group.addTask {
                    await withTaskCancellationHandler { await ticker.value } onCancel: { ticker.cancel() }
                }
                for stream in samples {
                    group.addTask { [weak self] in
                        defer { ended.yield() }
                        for await sample in stream {
                            guard let self else { return }
                            take(sample)
                        }
                    }
                }
            }
        }
        recording.withLock { $0 = task }
        // end() or discard() may have stopped the recording meanwhile: the task must not outlive it.
        if machine.withLock({ $0.recordingSources == nil }) { task.cancel() }
    }

    /// Stops the recording task: waits for the `readers` sample readers to take what their
    /// sources sent before they stopped (a stream that does not end within ``sampleSourceGrace``
    /// of the session's clock is read no further), then cancels the task, the writer's wait between
    /// retries with it. end() and discard() write on their own from here.
    private func stopRecording(readers: Int) async {
        if readers > 0 {
            let (ends, clock) = (readerEnds.stream, clock)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    var left = readers
                    for await _ in ends {
                        left -= 1
                        if left == 0 { return }
                    }
                }
                group.addTask { try? await clock.sleep(for: Self.sampleSourceGrace) }  // cancelled: the streams ended first
                await group.next()
                group.cancelAll()
            }
        }
        wakes.finish()
        let task = recording.withLock { task in defer { task = nil }; return task }
        task?.cancel()
        await task?.value
    }

    deinit {
        // A session let go without end() or discard(): what it started stops (its rows stay, an
        // interrupted session once this process ends).
        recording.withLock { $0 }?.cancel()
        wakes.finish()
        if let sources = machine.withLock({ $0.recordingSources }) { stop(sources) }
    }
}
