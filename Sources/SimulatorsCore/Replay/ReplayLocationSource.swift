#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore

/// An in-process replay device: a `LocationSource` that plays recorded fixes on an injected
/// clock, at their recorded pace or faster, once or in a loop. Every fix it emits is marked simulated.
///
/// One task plays it, on any clock: it sleeps on the clock until the next entry is due, sends it,
/// and sleeps again. On a `TestClock` a day-long track replays as fast as the test advances the
/// clock, with exactly the same events, in the same order, run after run. On a ``VirtualClock``
/// the task is paced by the clock: an advance finds every entry due by then sent when it returns,
/// and a day of 1 Hz fixes plays in a fraction of a second.
///
/// Like a receiver behind gpsd, the recording keeps playing while nobody watches: the first
/// ``start()`` sets it going, ``stop()`` only stops delivery, and a later ``start()`` picks up
/// where the recording has got to by then (so a `LocationManager`, which stops its source a grace
/// period after its last request, sees time pass). ``requestLatestFix()`` answers with the last fix
/// the recording has reached, and its age on the device's clock. A replay's fixes are dated on its
/// own time line (their `time` and `receivedAt` are the recording's), so a fix's age is the time
/// since it played, as gpsd's is the time since it came.
///
/// With the defaults, a `LocationManager` on a ``VirtualClock`` gives each consumer of its streams
/// every fix a replay plays, in order, every run (see ``VirtualClock``).
///
/// ```swift
/// let device = try ReplayRecording(gpxOrNMEAContentsOf: URL(fileURLWithPath: "fixtures/gpx/greenwich-walk.gpx")).device()
/// let manager = LocationManager(source: device)
/// let fix = try await manager.requestLocation(timeout: .seconds(5))
/// ```
public final class ReplayLocationSource: LocationSource {
    /// One recorded event and when it happens, from the start of the recording.
    public struct Entry: Sendable, Hashable {
        public var offset: Duration
        public var event: LocationEvent

        public init(offset: Duration, event: LocationEvent) {
            self.offset = offset
            self.event = event
        }
    }

    /// Where the device's entries come from: an array, or a recording read again for each pass.
    package enum Recording: Sendable {
        case entries([Entry])
        case stream(@Sendable () throws(ReplayRecording.ReadError) -> any ReplayStream<Entry>)
    }

    /// The recording, whole: the array the device was made with, or (for a device reading a file as
    /// it plays, such as ``ReplayRecording/device(speed:loop:startOffset:clock:)`` makes) the
    /// whole file read now, which for a large file takes time and memory the device itself does not.
    public var timeline: [Entry] {
        switch recording {
        case let .entries(entries): entries
        case let .stream(open): (try? open().collect()) ?? []  // unreadable: empty; the recording's readTimeline() says why
        }
    }
    /// How many times faster than recorded it plays.
    public let speed: Double
    /// Whether it starts again after the end (fix times move on by one recording's length each time).
    public let loops: Bool
    /// Where in the recording it starts.
    public let startOffset: Duration
    /// Whether the recording may hold an epoch in several reports: a gpsd log (gpsd's reports, as
    /// `init(script:)`, `init(gpsdLog:)` (in `Simulators`) and a gpsd JSON ``ReplayRecording`` play
    /// them) may; a track of fixes does not. A
    /// `LocationManager` one-shot then waits for the rest of an epoch, as it does with gpsd.
    public let reportsEpochsInParts: Bool

    private let recording: Recording
    private let clock: ElapsedClock
    private let observers = LocationObservers()
    private let state = Locked(PlayState())
    /// The reading position, under a lock of its own: reading may wait for a file (or a GPX
    /// parser thread), and nothing else should wait with it.
    private let cursor: Locked<CursorBox>

    private struct PlayState: Sendable {
        var running = false
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
        /// Whether the recording has begun playing (the first ``start()``).
        var begun = false
        var finished = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The cursor, which is used only under the lock that holds it.
    private final class CursorBox: @unchecked Sendable {
        let cursor: ReplayCursor
        init(_ cursor: ReplayCursor) { self.cursor = cursor }
    }

    /// A device playing `timeline` (sorted by offset).
    ///
    /// - Parameters:
    ///   - timeline: the events and their offsets from the start of the recording.
    ///   - speed: how many times faster than recorded (must be positive).
    ///   - loop: start again after the end.
    ///   - startOffset: skip the recording's first part.
    ///   - clock: the clock that paces it; a `TestClock` makes it as fast as the test wants.
    public convenience init(
        timeline: [Entry],
        speed: Double = 1,
        loop: Bool = false,
        startOffset: Duration = .zero,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        let sorted = timeline.sorted { $0.offset < $1.offset }
        self.init(recording: .entries(sorted), speed: speed, loop: loop, startOffset: startOffset, clock: clock)
    }

    /// A device playing what `recording` gives, read as it plays.
    package init(
        recording: Recording, speed: Double, loop: Bool, startOffset: Duration, reportsEpochsInParts: Bool = false,
        clock: some Clock<Duration>
    ) {
        precondition(speed > 0 && speed.isFinite, "a replay needs a positive speed")
        self.recording = recording
        self.reportsEpochsInParts = reportsEpochsInParts
        self.speed = speed
        self.loops = loop
        self.startOffset = startOffset
        self.clock = ElapsedClock(clock)
        let open: () throws(ReplayRecording.ReadError) -> any ReplayStream<Entry>
        switch recording {
        case let .entries(entries): open = { ArrayStream(entries) }
        case let .stream(opener): open = opener
        }
        cursor = Locked(CursorBox(ReplayCursor(speed: speed, loops: loop, startOffset: startOffset, open: open)))
    }

    /// A device playing `locations` at the pace of their times (one second apart where a fix has
    /// no time).
    public convenience init(
        locations: [Location], speed: Double = 1, loop: Bool = false, startOffset: Duration = .zero,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        let first = locations.first?.time
        var entries: [Entry] = []
        for (index, location) in locations.enumerated() {
            var offset = Duration.seconds(index)
            if let time = location.time, let first {
                offset = GPSDScript.duration(time.timeIntervalSince(first))
            }
            entries.append(Entry(offset: max(offset, entries.last?.offset ?? .zero), event: .location(location)))
        }
        self.init(timeline: entries, speed: speed, loop: loop, startOffset: startOffset, clock: clock)
    }

    /// A device playing an NMEA 0183 log, decoded in-process by ``NMEADecoder`` into the fixes
    /// gpsd 3.22's NMEA driver reports for it (one per cycle of sentences: GGA, RMC, GLL, GNS with
    /// GSA, VTG and ZDA, from any talker). Comments, noise and sentences with a wrong checksum are
    /// skipped; sentences without a checksum are taken, as gpsd takes them.
    ///
    /// - Throws: the error reading the file.
    public convenience init(
        nmeaLog url: URL, device: String? = nil, speed: Double = 1, loop: Bool = false, startOffset: Duration = .zero,
        clock: some Clock<Duration> = ContinuousClock()
    ) throws {
        let text = try String(contentsOf: url, encoding: .isoLatin1)
        let decoded = NMEADecoder().decode(text, device: device ?? url.lastPathComponent)
        self.init(timeline: decoded.timeline, speed: speed, loop: loop, startOffset: startOffset, clock: clock)
    }

    public func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
        observers.add(handler)
    }

    /// Reports connected and watching, then delivers the recording from where it has got to: from
    /// ``startOffset`` the first time, and after a ``stop()`` from the entry due now.
    public func start() {
        let now = clock.now
        let begun: (generation: UInt64, first: Bool)? = state.withLock { state in
            guard !state.running else { return nil }
            state.running = true
            state.generation += 1
            state.finished = false
            defer { state.begun = true }
            return (state.generation, !state.begun)
        }
        guard let begun else { return }
        cursor.withLock { box in
            if begun.first { box.cursor.begin(at: now) } else { box.cursor.pass(until: now) }
        }
        // The player is started before `.watching` is announced, and plays once it is: on a
        // virtual clock (which counts a paced task from its start) a test that advances the clock
        // as soon as it sees `.watching` then finds the first entry on its way, where otherwise
        // the advance could pass it by and the replay wait for a time that has already gone.
        let (announced, announce) = AsyncStream.makeStream(of: Never.self)
        let task = clock.pacedTask { [self] clock in
            for await _ in announced {}
            await play(generation: begun.generation, on: clock)
        }
        observers.send(.connectionChanged(.connecting(attempt: 1)))
        observers.send(.connectionChanged(.connected))
        observers.send(.connectionChanged(.watching))
        announce.finish()
        state.withLock { state in
            if state.generation == begun.generation { state.task = task } else { task.cancel() }
        }
    }

    /// Stops delivering. The recording goes on in the background, as a receiver does.
    public func stop() {
        let (wasRunning, task, waiters) = state.withLock { state in
            defer {
                state.running = false
                state.task = nil
                state.generation += 1
                state.finishWaiters = []
            }
            return (state.running, state.task, state.finishWaiters)
        }
        for waiter in waiters { waiter.resume() }
        guard wasRunning else { return }
        task?.cancel()
        observers.send(.connectionChanged(.stopped))
    }

    /// Answers with the last fix the recording has reached, and how long ago on the device's clock.
    public func requestLatestFix() {
        let now = clock.now
        let (running, begun) = state.withLock { ($0.running, $0.begun) }
        let last = cursor.withLock { box in
            if begun && !running { box.cursor.pass(until: now) }
            return box.cursor.lastFix
        }
        if let last {
            observers.send(.cachedLocation(last.location, age: now - last.playedAt))
        }
    }

    /// Returns once the recording has played to its end (never, for a loop), or the device stopped.
    /// After the end the device stays started, silent, like a receiver with nothing more to say.
    public func waitUntilFinished() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.finished { state.finishWaiters.append(continuation) }
                return state.finished
            }
            if done { continuation.resume() }
        }
    }

    /// Whether the recording has played to its end (or to a part that could not be read) while
    /// started; a loop never has.
    public var hasPlayedToEnd: Bool {
        state.withLock { $0.finished }
    }

    /// Why the recording could not be read to its end, if it could not (a file cut short, a
    /// malformed line); the device then stops playing, as if the recording had ended there.
    public var readError: ReplayRecording.ReadError? {
        cursor.withLock { $0.cursor.failure }
    }

    // MARK: - Playing

    /// Plays from the cursor on `clock` (``clock``, or the same time paced for this task) until
    /// the recording ends, or this playing is stopped.
    private func play(generation: UInt64, on clock: ElapsedClock) async {
        defer { finish(generation) }
        while let upcoming = cursor.withLock({ $0.cursor.peek() }) {
            if clock.now < upcoming.due {
                do { try await clock.sleep(until: upcoming.due) } catch { return }
            }
            guard state.withLock({ $0.generation == generation }) else { return }
            emitNext()
        }
    }

    /// Takes the entry due and sends its event.
    private func emitNext() {
        let event: LocationEvent? = cursor.withLock { box in
            guard let upcoming = box.cursor.peek() else { return nil }
            box.cursor.take()
            if case let .location(location) = upcoming.entry.event {
                return .location(box.cursor.shifted(location, pass: upcoming.pass))
            }
            return upcoming.entry.event
        }
        if let event { observers.send(event) }
    }

    /// Ends a playing that reached the end of the recording, or a part it could not read: that
    /// is reported as malformed data, as a client reports a line it cannot decode.
    private func finish(_ generation: UInt64) {
        let waiters: [CheckedContinuation<Void, Never>]? = state.withLock { state in
            guard state.generation == generation, !state.finished else { return nil }
            state.finished = true
            defer { state.finishWaiters = [] }
            return state.finishWaiters
        }
        guard let waiters else { return }
        if let failure = readError {
            let place = failure.line.map { "\(failure.file):\($0)" } ?? failure.file
            observers.send(.error(.malformedData(excerpt: place, reason: failure.reason)))
        }
        for waiter in waiters { waiter.resume() }
    }
}
