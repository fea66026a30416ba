#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationFacade

/// An in-process replay device: a ``LocationSource`` that plays recorded fixes on an injected
/// clock, at their recorded pace or faster, once or in a loop. Every fix it emits is marked simulated.
///
/// On a `TestClock` a day-long track replays as fast as the test advances the clock, with exactly
/// the same events, in the same order, run after run; on a ``VirtualClock`` it schedules each step
/// on the clock directly, and a day of 1 Hz fixes plays in a fraction of a second.
///
/// Like a receiver behind gpsd, the recording keeps playing while nobody watches: the first
/// ``start()`` sets it going, ``stop()`` only stops delivery, and a later ``start()`` picks up
/// where the recording has got to by then (so a ``LocationManager``, which stops its source
/// between requests, sees time pass). ``requestLatestFix()`` answers with the last fix the
/// recording has reached, and its age.
///
/// ```swift
/// let device = try ReplayLocationSource(gpsdLog: URL(fileURLWithPath: "fixtures/gpsd/greenwich-walk.json"))
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

    /// The recording.
    public let timeline: [Entry]
    /// How many times faster than recorded it plays.
    public let speed: Double
    /// Whether it starts again after the end (fix times move on by one recording's length each time).
    public let loops: Bool
    /// Where in the recording it starts.
    public let startOffset: Duration

    /// The usual gap between fixes: what a loop waits between the end and the new start.
    private let interval: Duration
    /// One pass through the recording, the gap before it starts again included.
    private let loopLength: Duration
    private let clock: ElapsedClock
    /// Set when the clock is a ``VirtualClock``: the device then schedules each fix on it directly.
    private let virtualClock: VirtualClock?
    /// The virtual clock's time when ``clock`` was wrapped, to turn its times into instants.
    private let virtualBase: Duration
    private let observers = LocationObservers()
    private let state = Locked(PlayState())

    private struct PlayState {
        var running = false
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
        /// When the recording began playing (``clock``'s time of the first ``start()``).
        var origin: Duration?
        /// Where delivery stopped: the next entry not yet sent.
        var next: Position?
        var lastFix: (location: Location, emittedAt: Duration)?
        var finished = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
        var scheduled: UInt64?
    }

    /// A device playing `timeline` (sorted by offset).
    ///
    /// - Parameters:
    ///   - speed: how many times faster than recorded (must be positive).
    ///   - loop: start again after the end.
    ///   - startOffset: skip the recording's first part.
    ///   - clock: the clock that paces it; a `TestClock` makes it as fast as the test wants.
    public init(
        timeline: [Entry],
        speed: Double = 1,
        loop: Bool = false,
        startOffset: Duration = .zero,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        precondition(speed > 0 && speed.isFinite, "a replay needs a positive speed")
        self.timeline = timeline.sorted { $0.offset < $1.offset }
        self.interval = GPSDScript.typicalGap(self.timeline.map(\.offset))
        if let first = self.timeline.first?.offset, let last = self.timeline.last?.offset {
            self.loopLength = last - first + interval
        } else {
            self.loopLength = .zero
        }
        self.speed = speed
        self.loops = loop
        self.startOffset = startOffset
        self.clock = ElapsedClock(clock)
        self.virtualClock = clock as? VirtualClock
        self.virtualBase = (clock as? VirtualClock)?.now.offset ?? .zero
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

    /// A device playing the fixes, no-fix reports and satellite reports of `script`, decoded
    /// by libgps as a ``GPSDClient`` would decode them.
    public convenience init(
        script: GPSDScript, speed: Double = 1, loop: Bool = false, startOffset: Duration = .zero,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        let decoder = GPSDReportDecoder()
        let reference = Date(timeIntervalSince1970: 0)
        let entries = script.entries.compactMap { entry -> Entry? in
            let time = GPSDScript.classAndDevice(of: entry.line).time
            let receivedAt = time ?? reference.addingTimeInterval(GPSDScript.seconds(entry.offset))
            return decoder.event(for: entry.line, receivedAt: receivedAt).map { Entry(offset: entry.offset, event: $0) }
        }
        self.init(timeline: entries, speed: speed, loop: loop, startOffset: startOffset, clock: clock)
    }

    /// A device playing a recorded gpsd JSON log (as `gpspipe -w` or `locate record` writes it).
    ///
    /// - Throws: ``GPSDScript/ReadError`` naming the first bad line, or the error reading the file.
    public convenience init(
        gpsdLog url: URL, speed: Double = 1, loop: Bool = false, startOffset: Duration = .zero,
        clock: some Clock<Duration> = ContinuousClock()
    ) throws {
        let script = try GPSDScript(contentsOf: url, markingSimulated: false)
        self.init(script: script, speed: speed, loop: loop, startOffset: startOffset, clock: clock)
    }

    /// A device playing an NMEA 0183 log (RMC, GGA, GSA, VTG, GLL), decoded in-process one fix per
    /// epoch by ``NMEADecoder``. Lines that are not valid sentences are skipped.
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
        let begun: (UInt64, Position)? = state.withLock { state in
            guard !state.running else { return nil }
            state.running = true
            state.generation += 1
            let origin = state.origin ?? now
            state.origin = origin
            var position = position(at: now - origin, origin: origin)
            if let stoppedAt = state.next, stoppedAt.isAfter(position) { position = stoppedAt }
            if let reached = lastLocation(before: position) { state.lastFix = reached }
            state.finished = false
            return (state.generation, position)
        }
        guard let (generation, position) = begun else { return }
        // On a virtual clock the first entry is queued before `.watching` is announced: a test
        // that advances the clock as soon as it sees `.watching` must find it there, or the
        // advance passes it by and the replay waits for a time that has already gone.
        if let virtualClock { schedule(position, on: virtualClock, generation: generation) }
        observers.send(.connectionChanged(.connecting(attempt: 1)))
        observers.send(.connectionChanged(.connected))
        observers.send(.connectionChanged(.watching))
        if virtualClock != nil { return }
        let task = Task { [self] in await play(from: position, generation: generation) }
        state.withLock { state in
            if state.generation == generation { state.task = task } else { task.cancel() }
        }
    }

    /// Stops delivering. The recording goes on in the background, as a receiver does.
    public func stop() {
        let (wasRunning, task, scheduled, waiters) = state.withLock { state in
            defer {
                state.running = false
                state.task = nil
                state.scheduled = nil
                state.generation += 1
                state.finishWaiters = []
            }
            return (state.running, state.task, state.scheduled, state.finishWaiters)
        }
        for waiter in waiters { waiter.resume() }
        guard wasRunning else { return }
        task?.cancel()
        if let scheduled { virtualClock?.cancel(scheduled) }
        observers.send(.connectionChanged(.stopped))
    }

    /// Answers with the last fix the recording has reached, and how long ago on the device's clock.
    public func requestLatestFix() {
        let now = clock.now
        let last: (location: Location, emittedAt: Duration)? = state.withLock { state in
            if !state.running, let origin = state.origin,
               let reached = lastLocation(before: position(at: now - origin, origin: origin)) {
                state.lastFix = reached
            }
            return state.lastFix
        }
        if let last {
            observers.send(.cachedLocation(last.location, age: now - last.emittedAt))
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

    // MARK: - Playing

    /// A place in the replay: the next entry, the loop cycle, when (on ``clock``) the cycle's
    /// `skip` point plays, and the recording offset the cycle starts from.
    private struct Position: Sendable {
        var index: Int
        var cycle: Int
        var origin: Duration
        var skip: Duration

        func isAfter(_ other: Position) -> Bool {
            (cycle, index) > (other.cycle, other.index)
        }
    }

    /// When (on ``clock``) the entry at `position` plays.
    private func due(_ position: Position) -> Duration {
        position.origin + (timeline[position.index].offset - position.skip) / speed
    }

    /// The position after `position`, into the next cycle for a loop; `nil` at the end.
    private func step(_ position: Position) -> Position? {
        var next = position
        next.index += 1
        if next.index < timeline.count { return next }
        guard loops, let first = timeline.first?.offset, let last = timeline.last?.offset else { return nil }
        next.origin += (last + interval - position.skip) / speed
        next.skip = first
        next.cycle += 1
        next.index = 0
        return next
    }

    /// The first entry due at or after `elapsed` since the replay began at `origin`.
    private func position(at elapsed: Duration, origin: Duration) -> Position {
        var position = Position(index: 0, cycle: 0, origin: origin, skip: startOffset)
        guard let first = timeline.first?.offset, let last = timeline.last?.offset else { return position }
        let played = elapsed * speed
        let firstCycle = last + interval - startOffset
        var recording = startOffset + played
        if played >= firstCycle, loops, loopLength > .zero {
            let beyond = played - firstCycle
            let cycles = Int(beyond / loopLength)
            position.cycle = 1 + cycles
            position.skip = first
            position.origin = origin + (firstCycle + loopLength * cycles) / speed
            recording = first + (beyond - loopLength * cycles)
        }
        position.index = partitionIndex(recording)
        return position
    }

    /// The index of the first entry at or after `offset`.
    private func partitionIndex(_ offset: Duration) -> Int {
        var low = 0, high = timeline.count
        while low < high {
            let middle = (low + high) / 2
            if timeline[middle].offset < offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The last fix played before `position`, with when it played, looking back at most one cycle.
    private func lastLocation(before position: Position) -> (location: Location, emittedAt: Duration)? {
        var index = position.index - 1
        while index >= 0 {
            if case let .location(location) = timeline[index].event, timeline[index].offset >= position.skip {
                let emittedAt = position.origin + (timeline[index].offset - position.skip) / speed
                return (simulated(location, cycle: position.cycle), emittedAt)
            }
            index -= 1
        }
        return nil
    }

    /// Schedules the entry at `position` on the virtual clock; it emits and schedules the next.
    private func schedule(_ position: Position, on clock: VirtualClock, generation: UInt64) {
        guard position.index < timeline.count else {
            finish(generation)
            return
        }
        let entry = timeline[position.index]
        let due = VirtualClock.Instant(offset: virtualBase + due(position))
        let token = clock.schedule(at: due) { [weak self, position] in
            guard let self, state.withLock({ $0.generation == generation }) else { return }
            emit(entry.event, cycle: position.cycle, next: step(position))
            if let next = step(position) {
                schedule(next, on: clock, generation: generation)
            } else {
                finish(generation)
            }
        }
        state.withLock { state in
            if state.generation == generation { state.scheduled = token }
        }
    }

    private func play(from start: Position, generation: UInt64) async {
        defer { finish(generation) }
        var position: Position? = start.index < timeline.count ? start : nil
        while let current = position {
            let due = due(current)
            if clock.now < due {
                do { try await clock.sleep(until: due) } catch { return }
            }
            guard state.withLock({ $0.generation == generation }) else { return }
            let next = step(current)
            emit(timeline[current.index].event, cycle: current.cycle, next: next)
            position = next
        }
    }

    private func simulated(_ location: Location, cycle: Int) -> Location {
        var location = location
        location.isSimulated = true
        if cycle > 0 {
            let seconds = GPSDScript.seconds(loopLength * cycle)
            location.time = location.time?.addingTimeInterval(seconds)
            location.receivedAt = location.receivedAt.addingTimeInterval(seconds)
        }
        return location
    }

    private func emit(_ event: LocationEvent, cycle: Int, next: Position?) {
        let now = clock.now
        switch event {
        case let .location(location):
            let location = simulated(location, cycle: cycle)
            state.withLock { state in
                state.lastFix = (location, now)
                state.next = next
            }
            observers.send(.location(location))
        default:
            state.withLock { $0.next = next }
            observers.send(event)
        }
    }

    private func finish(_ generation: UInt64) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard state.generation == generation else { return [] }
            state.finished = true
            defer { state.finishWaiters = [] }
            return state.finishWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
