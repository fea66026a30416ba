import Foundation
import LocationFacade

/// An in-process replay device: a ``LocationSource`` that plays recorded fixes on an injected
/// clock, at their recorded pace or faster, once or in a loop. Every fix it emits is marked simulated.
///
/// On a `TestClock` a day-long track replays as fast as the test advances the clock, with exactly
/// the same events, in the same order, run after run.
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
    private let observers = LocationObservers()
    private let state = Locked(PlayState())

    private struct PlayState {
        var running = false
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
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
        self.interval = Self.typicalInterval(of: self.timeline)
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

    /// Reports connected and watching, then plays the recording from ``startOffset``.
    public func start() {
        let generation: UInt64? = state.withLock { state in
            guard !state.running else { return nil }
            state.running = true
            state.generation += 1
            state.finished = false
            return state.generation
        }
        guard let generation else { return }
        observers.send(.connectionChanged(.connecting(attempt: 1)))
        observers.send(.connectionChanged(.connected))
        observers.send(.connectionChanged(.watching))
        if let virtualClock {
            schedule(Position(index: firstIndex(), cycle: 0, origin: virtualClock.now.offset, skip: startOffset),
                     on: virtualClock, generation: generation)
            return
        }
        let task = Task { [self] in await play(generation: generation) }
        state.withLock { state in
            if state.generation == generation { state.task = task } else { task.cancel() }
        }
    }

    /// Stops playing.
    public func stop() {
        let (wasRunning, task, scheduled): (Bool, Task<Void, Never>?, UInt64?) = state.withLock { state in
            defer {
                state.running = false
                state.task = nil
                state.scheduled = nil
                state.generation += 1
            }
            return (state.running, state.task, state.scheduled)
        }
        guard wasRunning else { return }
        task?.cancel()
        if let scheduled { virtualClock?.cancel(scheduled) }
        observers.send(.connectionChanged(.stopped))
    }

    /// Answers with the last fix played, and how long ago on the device's clock.
    public func requestLatestFix() {
        let now = clock.now
        let last = state.withLock { $0.lastFix }
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

    private func firstIndex() -> Int {
        timeline.firstIndex { $0.offset >= startOffset } ?? timeline.count
    }

    /// Where a scheduled replay stands: the next entry, the loop cycle, when the cycle began on the
    /// clock, and the recording offset the cycle started from.
    private struct Position {
        var index: Int
        var cycle: Int
        var origin: Duration
        var skip: Duration
    }

    /// Schedules the entry at `position` on the virtual clock; it emits and schedules the next.
    private func schedule(_ position: Position, on clock: VirtualClock, generation: UInt64) {
        var position = position
        if position.index >= timeline.count {
            guard loops, let first = timeline.first?.offset, let last = timeline.last?.offset else {
                finish(generation)
                return
            }
            position.origin += (last + interval - position.skip) / speed
            position.skip = first
            position.cycle += 1
            position.index = 0
        }
        let entry = timeline[position.index]
        let due = VirtualClock.Instant(offset: position.origin + (entry.offset - position.skip) / speed)
        let token = clock.schedule(at: due) { [weak self, position] in
            guard let self, state.withLock({ $0.generation == generation }) else { return }
            emit(entry.event, shiftedBy: loopLength * position.cycle)
            var next = position
            next.index += 1
            schedule(next, on: clock, generation: generation)
        }
        state.withLock { state in
            if state.generation == generation { state.scheduled = token }
        }
    }

    private func play(generation: UInt64) async {
        defer { finish(generation) }
        guard let first = timeline.first?.offset, let last = timeline.last?.offset else { return }
        let length = loopLength
        var origin = clock.now
        var cycle = 0
        repeat {
            let skip = cycle == 0 ? startOffset : first
            for entry in timeline where entry.offset >= skip {
                let due = origin + (entry.offset - skip) / speed
                if clock.now < due {
                    do { try await clock.sleep(until: due) } catch { return }
                }
                guard state.withLock({ $0.generation == generation }) else { return }
                emit(entry.event, shiftedBy: length * cycle)
            }
            origin = origin + (last + interval - (cycle == 0 ? startOffset : first)) / speed
            cycle += 1
        } while loops && !Task.isCancelled
    }

    private func emit(_ event: LocationEvent, shiftedBy shift: Duration) {
        switch event {
        case var .location(location):
            location.isSimulated = true
            if shift > .zero {
                let seconds = GPSDScript.seconds(shift)
                location.time = location.time?.addingTimeInterval(seconds)
                location.receivedAt = location.receivedAt.addingTimeInterval(seconds)
            }
            let now = clock.now
            state.withLock { $0.lastFix = (location, now) }
            observers.send(.location(location))
        default:
            observers.send(event)
        }
    }

    /// The median gap between entries (one second when there is none).
    private static func typicalInterval(of timeline: [Entry]) -> Duration {
        guard timeline.count > 1 else { return .seconds(1) }
        let gaps = zip(timeline.dropFirst(), timeline).map { $0.offset - $1.offset }.filter { $0 > .zero }
        return gaps.sorted().dropFirst(gaps.count / 2).first ?? .seconds(1)
    }

    private func finish(_ generation: UInt64) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.finished = true
            defer { state.finishWaiters = [] }
            return state.finishWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
