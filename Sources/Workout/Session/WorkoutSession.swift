import Foundation
import LocationFacade
import Synchronization

/// A workout recorded on the device, as `HKWorkoutSession` with `HKLiveWorkoutBuilder` records
/// one on a watch: started, paused and resumed, split into laps, with auto-pause and live figures,
/// and saved whole, in one transaction, when it ends.
///
/// ```swift
/// let session = WorkoutSession(store: store, source: GPSDClient(host: "127.0.0.1", port: 2947),
///                              configuration: .init(activityType: .running, autoPause: .defaults(for: .running)))
/// try session.start()
/// for await figures in session.statistics() { show(figures) }   // until the session ends
/// let workout = try await session.end()
/// ```
///
/// Its times are the fixes' own (a user's pause or lap is dated at the last fix), so a session
/// recorded from a replay gives the same workout at any replay speed, and on any clock.
///
public final class WorkoutSession: Sendable {
    public enum State: String, Sendable, Hashable {
        case notStarted = "not started"
        case running
        case paused
        /// ``WorkoutSession/end()`` is saving it.
        case ending
        case ended
        case discarded
    }

    public struct Configuration: Sendable, Hashable {
        public var activityType: WorkoutActivityType
        /// Auto-pause, or `nil` for none.
        public var autoPause: AutoPause?
        /// A lap every this many metres covered while active, or `nil`.
        public var autoLapDistance: Double?
        /// A lap every this much active time (pauses left out), or `nil`. With both, a lap ends at
        /// whichever comes first, and both count again from there. Manual laps can always be added.
        public var autoLapTime: Duration?
        public var metadata: WorkoutMetadata

        public init(
            activityType: WorkoutActivityType, autoPause: AutoPause? = nil, autoLapDistance: Double? = nil,
            autoLapTime: Duration? = nil, metadata: WorkoutMetadata = WorkoutMetadata()
        ) {
            self.activityType = activityType
            self.autoPause = autoPause
            self.autoLapDistance = autoLapDistance
            self.autoLapTime = autoLapTime
            self.metadata = metadata
        }
    }

    /// The live figures, after each fix and each change of state.
    public struct Statistics: Sendable, Hashable {
        public var state: State
        public var isMotionPaused: Bool
        /// Seconds from the first fix to the last.
        public var elapsedTime: TimeInterval
        /// Seconds not paused (by the user or auto-pause).
        public var activeTime: TimeInterval
        /// Metres covered while active.
        public var distance: Double
        /// The speed now, m/s: the fixes' speeds (reported, or worked out from the last seconds)
        /// smoothed over about 5 s.
        public var currentSpeed: Double?
        /// Seconds per kilometre at ``currentSpeed``; `nil` below 0.3 m/s (standing still has no pace).
        public var currentPace: Double?
        /// Seconds per kilometre over the active time, when there is distance.
        public var averagePace: Double?
        public var elevationGain: Double
        /// The current lap, from 1.
        public var lap: Int
        public var lapDistance: Double
        public var lapActiveTime: TimeInterval
        /// The last heart-rate sample, and the mean and maximum so far (with a heart-rate source).
        public var heartRate: Double?
        public var heartRateAverage: Double?
        public var heartRateMaximum: Double?
    }

    private struct Shared: Sendable {
        var state: State = .notStarted
        var recorder: SessionRecorder
        var observation: LocationObservation?
        var watchers: [UUID: AsyncStream<Statistics>.Continuation] = [:]
        /// Asks the writer to write what is new (at most about a second behind the fixes).
        var writeRequests: AsyncStream<Void>.Continuation?
        var writer: Task<Void, Never>?
        /// How many of the recorder's events the writer has taken.
        var writtenEvents = 0
        /// The fix time of the oldest point not yet written.
        var unwrittenSince: Date?
        var heartRateReader: Task<Void, Never>?
        /// Asks for a write every second while something is held, so what came last is written
        /// even when nothing more comes (the receiver lost its fix, the strap its contact).
        var flusher: Task<Void, Never>?
    }

    /// The writer's own state: the staged rows and the route's checks.
    private struct WriterState: Sendable {
        var staging: WorkoutStore.SessionStaging?
        var accumulator = RouteAccumulator()
        var lastSegment = 0
        var failure: WorkoutStoreError?
    }

    public let configuration: Configuration
    private let store: WorkoutStore
    private let source: any LocationSource
    private let heartRateSource: (any HeartRateSource)?
    /// Times the writes of what is held when nothing new comes; the session's own times are the fixes'.
    private let clock: any Clock<Duration>
    private let id: UUID
    private let shared: Mutex<Shared>
    private let writerState = Mutex(WriterState())

    /// A session over `source`'s fixes and, when given, `heartRate`'s samples. `clock` times the
    /// writing of what is held when nothing new comes (within about a second); a test gives the
    /// clock its fake source runs on.
    public convenience init(
        store: WorkoutStore, source: any LocationSource, heartRate: (any HeartRateSource)? = nil, configuration: Configuration,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(id: UUID(), store: store, source: source, heartRate: heartRate, configuration: configuration, clock: clock)
    }

    private init(
        id: UUID, store: WorkoutStore, source: any LocationSource, heartRate: (any HeartRateSource)?, configuration: Configuration,
        clock: any Clock<Duration>
    ) {
        self.id = id
        self.clock = clock
        self.store = store
        self.source = source
        self.heartRateSource = heartRate
        self.configuration = configuration
        shared = Mutex(Shared(recorder: SessionRecorder(
            autoPause: configuration.autoPause, autoLapDistance: configuration.autoLapDistance, autoLapTime: configuration.autoLapTime?.seconds)))
    }

    public var state: State { shared.withLock { $0.state } }
    /// The route points held in memory, not yet written to the store.
    var heldPoints: Int { shared.withLock { $0.recorder.pendingPoints.count } }
    /// The events so far.
    public var events: [WorkoutEvent] { shared.withLock { $0.recorder.events } }

    /// Starts recording: the source is started and each fix it reports is taken. What is
    /// recorded is written to the store as it comes (at most about a second behind), out of
    /// sight until ``end()``: after a crash it is an ``InterruptedSession``.
    public func start() throws(WorkoutSessionError) {
        try begin(as: .running)
    }

    /// Resumes a session interrupted by a crash (``WorkoutStore/interruptedSessions()``) as this
    /// process's own, recording from `source` into what it had written: the same workout id, its
    /// points, events, laps and samples kept, its figures counted on from where they were. The
    /// time it was down is a pause: a `pause` event at its last fix and a `resume` at the first
    /// new one, the route starting a new segment there (no distance across the gap). A session
    /// the user had paused resumes ``State-swift.enum/paused``; otherwise ``State-swift.enum/running``.
    ///
    /// Give it the configuration it was recorded with (its activity is taken from the store).
    /// Throws ``WorkoutSessionError/notInterrupted`` when the session was ended, discarded or
    /// resumed meanwhile (by another process too), and ``WorkoutSessionError/store(_:)``.
    public static func resume(
        _ interrupted: InterruptedSession, store: WorkoutStore, source: any LocationSource,
        heartRate: (any HeartRateSource)? = nil, configuration: Configuration, clock: any Clock<Duration> = ContinuousClock()
    ) async throws(WorkoutSessionError) -> WorkoutSession {
        let contents: WorkoutStore.SessionContents?
        do {
            contents = try await store.takeOver(interrupted)
        } catch {
            throw .store(error)
        }
        guard let contents else { throw .notInterrupted }
        var configuration = configuration
        configuration.activityType = contents.record.activityType
        configuration.metadata = contents.record.metadata
        let session = WorkoutSession(
            id: interrupted.id, store: store, source: source, heartRate: heartRate, configuration: configuration, clock: clock)
        let (paused, segment) = session.shared.withLock { shared in
            shared.recorder.rebuild(
                start: contents.record.start, points: contents.points.map(\.location), events: contents.events,
                heartRate: contents.heartRate)
            shared.writtenEvents = contents.events.count
            let paused = shared.recorder.userPaused
            if !paused { shared.recorder.pauseForGap() }
            // Either way the recorder is in a pause now, its segment one past the written points'.
            return (paused, shared.recorder.segment)
        }
        session.writerState.withLock { state in
            state.staging = contents.staging
            state.accumulator = RouteAccumulator(continuing: contents.points)
            state.lastSegment = segment - 1
        }
        try session.begin(as: paused ? .paused : .running)
        return session
    }

    private func begin(as state: State) throws(WorkoutSessionError) {
        let (requests, request) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        try transition(.start, from: [.notStarted], to: state) { $0.writeRequests = request }
        let writer = Task { [self] in
            for await _ in requests { await write() }
            await write()
        }
        let flusher = Task { [weak self, clock] in
            while (try? await clock.sleep(for: .seconds(1))) != nil {
                guard let self else { return }
                shared.withLock { shared in
                    if !shared.recorder.pendingPoints.isEmpty || !shared.recorder.pendingSamples.isEmpty {
                        shared.writeRequests?.yield()
                    }
                }
            }
        }
        shared.withLock { shared in
            shared.writer = writer
            shared.flusher = flusher
        }
        let observation = source.addObserver { [weak self] event in
            guard let self, case let .location(fix) = event else { return }
            take(fix)
        }
        shared.withLock { $0.observation = observation }
        source.start()
        if let heartRateSource {
            let samples = heartRateSource.start()
            let reader = Task { [self] in
                for await sample in samples { take(sample) }
            }
            shared.withLock { $0.heartRateReader = reader }
        }
    }

    /// Pauses the session (a `pause` event at the last fix's time): no distance, no active time,
    /// no route until ``resume()``.
    public func pause() throws(WorkoutSessionError) {
        try transition(.pause, from: [.running], to: .paused) { $0.recorder.pause(at: Self.now($0)) }
    }

    /// Resumes a paused session; the route starts a new segment.
    public func resume() throws(WorkoutSessionError) {
        try transition(.resume, from: [.paused], to: .running) { $0.recorder.resume(at: Self.now($0)) }
    }

    /// Ends the current lap and starts the next.
    public func lap() throws(WorkoutSessionError) {
        try transition(.lap, from: [.running, .paused], to: nil) { $0.recorder.markLap(at: Self.now($0)) }
    }

    /// Marks the current place with `name`.
    public func mark(_ name: String) throws(WorkoutSessionError) {
        try transition(.mark, from: [.running, .paused], to: nil) { $0.recorder.mark(name, at: Self.now($0)) }
    }

    /// Ends the session and saves it in one transaction: the workout with its totals (distance,
    /// elapsed and active time, elevation gain and loss), its route (a segment per stretch between
    /// pauses), its heart-rate samples and its events. While it saves, the session is
    /// ``State-swift.enum/ending``: a second `end()` or a `discard()` is refused. A failed save
    /// saves nothing and leaves the session as it was (its sources stopped), to end again.
    public func end() async throws(WorkoutSessionError) -> WorkoutRecord {
        let previous: State = try shared.withLock { shared throws(WorkoutSessionError) in
            guard shared.state == .running || shared.state == .paused else {
                throw .invalidTransition(action: "end", state: shared.state)
            }
            defer { shared.state = .ending }
            return shared.state
        }
        do throws(WorkoutSessionError) {
            let workout = try await save()
            finish(as: .ended)
            return workout
        } catch {
            shared.withLock { $0.state = previous }
            throw error
        }
    }

    private func save() async throws(WorkoutSessionError) -> WorkoutRecord {
        source.stop()
        await stopHeartRate()
        await finishWriting()
        if let failure = writerState.withLock({ $0.failure }) { throw .store(failure) }
        let recorder = shared.withLock { $0.recorder }
        guard let start = recorder.start, let last = recorder.lastTime else { throw .nothingRecorded }
        let end = max(last, recorder.events.last?.time ?? last)
        let workout = WorkoutRecord(
            id: id, activityType: configuration.activityType, start: start, end: end,
            totals: WorkoutTotals(
                distance: recorder.distance, duration: end.timeIntervalSince(start), movingTime: recorder.activeTime,
                elevationGain: recorder.elevationGain, elevationLoss: recorder.elevationLoss),
            metadata: configuration.metadata)
        guard let staging = writerState.withLock({ $0.staging }) else { throw .nothingRecorded }
        do {
            try await store.publishSession(staging, as: workout)
        } catch {
            throw .store(error)
        }
        return workout
    }

    /// Ends the session without saving anything: what it had written is deleted.
    public func discard() async throws(WorkoutSessionError) {
        try transition(.discard, from: [.notStarted, .running, .paused], to: .discarded) { _ in }
        source.stop()
        await stopHeartRate()
        await finishWriting()
        finish(as: .discarded)
        if writerState.withLock({ $0.staging }) != nil {
            do {
                try await store.discardSession(owner: WorkoutStore.sessionOwner(id))
            } catch {
                throw .store(error)
            }
        }
    }

    /// The live figures: the current ones at once, then after each fix and change, until the
    /// session ends (a slow reader gets the newest).
    public func statistics() -> AsyncStream<Statistics> {
        let (stream, continuation) = AsyncStream.makeStream(of: Statistics.self, bufferingPolicy: .bufferingNewest(1))
        let key = UUID()
        let current: Statistics? = shared.withLock { shared in
            guard shared.state != .ended && shared.state != .discarded else { return nil }
            shared.watchers[key] = continuation
            return Self.statistics(shared)
        }
        if let current { continuation.yield(current) } else { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.shared.withLock { $0.watchers.removeValue(forKey: key) }
        }
        return stream
    }

    // MARK: - Internals

    private enum Action: String {
        case start, pause, resume, lap, mark, discard
    }

    private func transition(
        _ action: Action, from allowed: Set<State>, to next: State?, _ body: (inout Shared) -> Void
    ) throws(WorkoutSessionError) {
        let (statistics, watchers) = try shared.withLock { shared throws(WorkoutSessionError) in
            guard allowed.contains(shared.state) else { throw .invalidTransition(action: action.rawValue, state: shared.state) }
            body(&shared)
            if let next { shared.state = next }
            // An event is written at once, with what is held: a pause may be the last thing before a crash.
            if shared.recorder.events.count > shared.writtenEvents { shared.writeRequests?.yield() }
            return (Self.statistics(shared), Array(shared.watchers.values))
        }
        for watcher in watchers { watcher.yield(statistics) }
    }

    private func take(_ fix: Location) {
        let update: (Statistics, [AsyncStream<Statistics>.Continuation])? = shared.withLock { shared in
            guard shared.state == .running || shared.state == .paused else { return nil }
            let time = fix.time ?? fix.receivedAt
            if shared.recorder.start == nil { shared.recorder.begin(at: time) }
            shared.recorder.add(fix, time: time)
            // Written when a second's worth has come (by the fixes' own times).
            let since = shared.unwrittenSince ?? time
            shared.unwrittenSince = since
            if time.timeIntervalSince(since) >= 1 || shared.recorder.events.count > shared.writtenEvents {
                shared.writeRequests?.yield()
            }
            return (Self.statistics(shared), Array(shared.watchers.values))
        }
        guard let (statistics, watchers) = update else { return }
        for watcher in watchers { watcher.yield(statistics) }
    }

    private func take(_ sample: QuantitySample) {
        let update: (Statistics, [AsyncStream<Statistics>.Continuation])? = shared.withLock { shared in
            // While it ends, the samples measured before are still taken (end() waits for them).
            guard [.running, .paused, .ending].contains(shared.state), shared.recorder.start != nil else { return nil }
            shared.recorder.add(heartRate: sample)
            // Written with the next fix's write; at once when no fix waits (a sample that comes
            // after the last fix, or while the fixes are lost, is not held).
            if shared.unwrittenSince == nil { shared.writeRequests?.yield() }
            return (Self.statistics(shared), Array(shared.watchers.values))
        }
        guard let (statistics, watchers) = update else { return }
        for watcher in watchers { watcher.yield(statistics) }
    }

    private func stopHeartRate() async {
        heartRateSource?.stop()
        await shared.withLock { $0.heartRateReader }?.value
    }

    /// Writes what is new since the last write: stages the session first if it is not yet.
    private func write() async {
        let new: (start: Date, points: [(segment: Int, batch: [Location])], events: [(Int, WorkoutEvent)], samples: [QuantitySample])? = shared.withLock { shared in
            guard let start = shared.recorder.start else { return nil }
            let points = shared.recorder.drainPoints()
            let samples = shared.recorder.drainSamples()
            let events = shared.recorder.events[shared.writtenEvents...].enumerated().map { (shared.writtenEvents + $0.offset, $0.element) }
            shared.writtenEvents = shared.recorder.events.count
            shared.unwrittenSince = nil
            return (start, points, events, samples)
        }
        guard let new, !(new.points.isEmpty && new.events.isEmpty && new.samples.isEmpty && writerState.withLock({ $0.staging }) != nil) else { return }
        var state = writerState.withLock { $0 }
        guard state.failure == nil else { return }
        do {
            if state.staging == nil {
                state.staging = try await store.beginSession(
                    id, activity: configuration.activityType, start: new.start, configuration: configuration.metadata.values)
            }
            var planned: [(batch: [Location], plan: RouteAccumulator.Plan)] = []
            for (segment, batch) in new.points {
                if segment != state.lastSegment {
                    state.accumulator.startNewSegment()
                    state.lastSegment = segment
                }
                planned.append((batch, try state.accumulator.take(batch, workoutID: id, within: nil)))
            }
            if let staging = state.staging {
                try await store.appendToSession(staging, id: id, points: planned, events: new.events, samples: new.samples)
            }
        } catch {
            state.failure = error
        }
        writerState.withLock { $0 = state }
    }

    /// Ends the writer after one last write.
    private func finishWriting() async {
        let writer = shared.withLock { shared in
            shared.flusher?.cancel()
            shared.writeRequests?.finish()
            shared.writeRequests = nil
            return shared.writer
        }
        await writer?.value
    }

    private func finish(as state: State) {
        let watchers = shared.withLock { shared in
            shared.state = state
            shared.observation = nil
            defer { shared.watchers = [:] }
            return Array(shared.watchers.values)
        }
        for watcher in watchers { watcher.finish() }
    }

    /// When a user's action happens: at the last fix (the session's own time line).
    private static func now(_ shared: Shared) -> Date {
        shared.recorder.lastTime ?? Date()
    }

    private static func statistics(_ shared: Shared) -> Statistics {
        let recorder = shared.recorder
        let elapsed = recorder.start.flatMap { start in recorder.lastTime.map { $0.timeIntervalSince(start) } } ?? 0
        return Statistics(
            state: shared.state, isMotionPaused: recorder.motionPaused, elapsedTime: elapsed, activeTime: recorder.activeTime,
            distance: recorder.distance, currentSpeed: recorder.currentSpeed,
            currentPace: recorder.currentSpeed.flatMap { $0 >= 0.3 ? 1000 / $0 : nil },
            averagePace: recorder.distance > 0 ? recorder.activeTime / (recorder.distance / 1000) : nil,
            elevationGain: recorder.elevationGain, lap: recorder.lap,
            lapDistance: recorder.distance - recorder.lapStartDistance, lapActiveTime: recorder.activeTime - recorder.lapStartActive,
            heartRate: recorder.heartRate?.current,
            heartRateAverage: recorder.heartRate.map { $0.sum / Double($0.count) }, heartRateMaximum: recorder.heartRate?.maximum)
    }
}

/// Why a ``WorkoutSession`` call was refused or failed.
public enum WorkoutSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `action` is not possible in `state` (pausing a session that is not running...).
    case invalidTransition(action: String, state: WorkoutSession.State)
    /// The session ended before its first fix: there is no workout to save.
    case nothingRecorded
    /// The session to resume is no longer interrupted: it was ended, discarded or resumed.
    case notInterrupted
    /// The store failed to save it; nothing was saved.
    case store(WorkoutStoreError)

    public var description: String {
        switch self {
        case let .invalidTransition(action, state):
            "Cannot \(action) a workout session that is \(state.rawValue)."
        case .nothingRecorded:
            "The workout session ended before its first fix: there is nothing to save."
        case .notInterrupted:
            "The workout session is no longer interrupted: it was ended, discarded or resumed meanwhile."
        case let .store(error):
            "The workout session could not be saved: \(error)"
        }
    }
}
