import Foundation
import LocationFacade

/// Auto-pause: when the athlete stands still, the workout's motion pauses (no distance, no active
/// time) and resumes when they move again, as a sports watch does.
///
/// Standing still is told by the speed the receiver reports (Doppler speed, which stays near zero
/// at rest while the position wanders a few metres): below ``speedThreshold`` for ``idleTime``.
/// A fix without a speed gets the speed of its displacement over the last ``idleTime``, which
/// position drift barely moves. The pause is dated from the first slow fix, and the resume from
/// the fix before the first fast one, so neither the wait to be sure nor the drift at rest counts.
public struct AutoPause: Sendable, Hashable {
    /// Below this speed (m/s) the athlete counts as standing still.
    public var speedThreshold: Double
    /// How long the speed must stay below the threshold before the motion pauses.
    public var idleTime: Duration

    public init(speedThreshold: Double, idleTime: Duration) {
        self.speedThreshold = speedThreshold
        self.idleTime = idleTime
    }

    /// The defaults per activity: running 0.8 m/s (a slow walk) for 5 s; walking and hiking
    /// 0.4 m/s for 10 s; cycling 1.5 m/s for 5 s; skiing and skating 1.0 m/s for 5 s; in the
    /// water 0.2 m/s for 15 s; anything else 0.5 m/s for 10 s.
    public static func defaults(for activity: WorkoutActivityType) -> AutoPause {
        switch activity {
        case .running: AutoPause(speedThreshold: 0.8, idleTime: .seconds(5))
        case .walking, .hiking: AutoPause(speedThreshold: 0.4, idleTime: .seconds(10))
        case .cycling: AutoPause(speedThreshold: 1.5, idleTime: .seconds(5))
        case .crossCountrySkiing, .downhillSkiing, .skating: AutoPause(speedThreshold: 1.0, idleTime: .seconds(5))
        case .swimming, .rowing, .paddling: AutoPause(speedThreshold: 0.2, idleTime: .seconds(15))
        case .other: AutoPause(speedThreshold: 0.5, idleTime: .seconds(10))
        }
    }
}

/// The bookkeeping of a session, fix by fix, with no clock and no store: what it is fed decides
/// everything, so a replay at any speed gives the same workout.
struct SessionRecorder: Sendable {
    let autoPause: AutoPause?
    var autoLapDistance: Double?
    /// A lap every this many seconds of active time.
    var autoLapTime: Double?

    var events: [WorkoutEvent] = []
    /// The route's points not yet taken by ``drainPoints()``, each with its segment (a segment per
    /// stretch between pauses): only these are held, so a day-long session takes no more memory
    /// than a minute's.
    private(set) var pendingPoints: [(segment: Int, fix: Location)] = []
    /// The segment new points go to.
    private(set) var segment = 0
    private(set) var start: Date?
    private(set) var lastTime: Date?
    /// Metres covered while active.
    private(set) var distance = 0.0
    /// Seconds active (not paused by the user, not auto-paused).
    private(set) var activeTime = 0.0
    /// The elevation of the fixes counted, by ``TrackStatistics``'s rules (a 5 m hysteresis, a
    /// segment per stretch between pauses), as an imported track's is worked out.
    private var elevation = TrackStatistics()
    private var elevationSegment: Int?
    var elevationGain: Double { elevation.smoothedElevationGain }
    var elevationLoss: Double { elevation.smoothedElevationLoss }
    private(set) var userPaused = false
    /// Paused for a gap in the recording (a session resumed after a crash): the next fix resumes
    /// it, and starts the route again from where it is.
    private(set) var resumesAtNextFix = false
    private(set) var motionPaused = false
    private(set) var lap = 1
    private(set) var lapStartDistance = 0.0
    private(set) var lapStartActive = 0.0
    /// The speed now, m/s: the fixes' speeds (reported, or worked out) smoothed over about
    /// ``speedSmoothing`` seconds, so one noisy fix does not swing the pace on the screen.
    private(set) var currentSpeed: Double?
    private var currentSpeedTime: Date?
    /// The time constant of the current speed's exponential smoothing, seconds.
    static let speedSmoothing = 5.0
    /// Heart-rate samples not yet taken by ``drainSamples()``, and the figures of all of them.
    private(set) var pendingSamples: [QuantitySample] = []
    private(set) var heartRate: (current: Double, sum: Double, count: Int, maximum: Double)?

    private var last: (fix: Location, time: Date)?
    /// The slow stretch under way while moving: since when, and the distance and time it would add.
    private var slow: (since: Date, distance: Double, time: Double)?
    /// Recent fixes, for the speed of fixes that report none.
    private var recent: [Location] = []

    init(autoPause: AutoPause?, autoLapDistance: Double?, autoLapTime: Double? = nil) {
        self.autoPause = autoPause
        self.autoLapDistance = autoLapDistance
        self.autoLapTime = autoLapTime
    }

    mutating func begin(at time: Date) {
        start = time
        lastTime = time
    }

    /// Takes one fix of a running session. A fix older than the last is left out. While the user
    /// has paused, a fix only moves the session's time on (a resume is dated by it, and the step
    /// from it is the first counted after the pause).
    mutating func add(_ fix: Location, time: Date) {
        guard let lastTime, time >= lastTime else { return }
        self.lastTime = time
        if userPaused && resumesAtNextFix {
            resume(at: time, fromHere: true)
        }
        if userPaused {
            last = (fix, time)
            return
        }
        pendingPoints.append((segment, fix))
        let speed = speed(of: fix, at: time)
        smooth(speed, at: time)
        guard let (previous, previousTime) = last else {
            last = (fix, time)
            return
        }
        let step = previous.distance(to: fix)
        let seconds = time.timeIntervalSince(previousTime)
        last = (fix, time)
        guard let autoPause else {
            commit(step, seconds, fix)
            return
        }
        let isSlow = speed.map { $0 < autoPause.speedThreshold } ?? false
        if motionPaused {
            guard !isSlow else { return }
            // Moving again since the fix before this one: that step counts.
            motionPaused = false
            events.append(WorkoutEvent(.motionResumed, at: previousTime))
            segment += 1
            pendingPoints[pendingPoints.count - 1].segment = segment
            commit(step, seconds, fix)
            return
        }
        if isSlow {
            var stretch = slow ?? (since: previousTime, distance: 0, time: 0)
            stretch.distance += step
            stretch.time += seconds
            slow = stretch
            if time.timeIntervalSince(stretch.since) >= autoPause.idleTime.seconds {
                // Standing still since the stretch began: its drift and time never count.
                motionPaused = true
                events.append(WorkoutEvent(.motionPaused, at: stretch.since))
                slow = nil
                segment += 1
            }
        } else {
            if let stretch = slow {
                distance += stretch.distance
                activeTime += stretch.time
                slow = nil
            }
            commit(step, seconds, fix)
        }
    }

    private mutating func commit(_ step: Double, _ seconds: Double, _ fix: Location) {
        distance += step
        activeTime += seconds
        if elevationSegment != segment {
            elevation.startSegment()
            elevationSegment = segment
        }
        elevation.add(fix)
        // An auto-lap at the fix that completes it (by distance, or by active time).
        guard let lastTime else { return }
        if let autoLapDistance, autoLapDistance > 0, distance - lapStartDistance >= autoLapDistance {
            markLap(at: lastTime)
        } else if let autoLapTime, autoLapTime > 0, activeTime - lapStartActive >= autoLapTime {
            markLap(at: lastTime)
        }
    }

    /// Moves the current speed towards `speed`, by how long it has been since the last one.
    private mutating func smooth(_ speed: Double?, at time: Date) {
        guard let speed else { return }
        if let current = currentSpeed, let since = currentSpeedTime {
            let weight = 1 - exp(-max(0, time.timeIntervalSince(since)) / Self.speedSmoothing)
            currentSpeed = current + (speed - current) * weight
        } else {
            currentSpeed = speed
        }
        currentSpeedTime = time
    }

    /// The fix's reported speed, or the speed of its displacement over the auto-pause window.
    private mutating func speed(of fix: Location, at time: Date) -> Double? {
        if let speed = fix.speed { return speed }
        let window = autoPause?.idleTime.seconds ?? 10
        recent.append(fix)
        while let first = recent.first, let firstTime = first.time, time.timeIntervalSince(firstTime) > window { recent.removeFirst() }
        guard let first = recent.first, let firstTime = first.time, time.timeIntervalSince(firstTime) >= window / 2 else { return nil }
        return first.distance(to: fix) / time.timeIntervalSince(firstTime)
    }

    /// Takes a heart-rate sample (a sample while paused counts too: the heart goes on).
    mutating func add(heartRate sample: QuantitySample) {
        pendingSamples.append(sample)
        let figures = heartRate ?? (sample.value, 0, 0, sample.value)
        heartRate = (sample.value, figures.sum + sample.value, figures.count + 1, max(figures.maximum, sample.value))
    }

    mutating func drainSamples() -> [QuantitySample] {
        defer { pendingSamples.removeAll(keepingCapacity: true) }
        return pendingSamples
    }

    /// The points not yet taken, grouped by segment, in order; they are no longer held.
    mutating func drainPoints() -> [(segment: Int, batch: [Location])] {
        var batches: [(segment: Int, batch: [Location])] = []
        for (segment, fix) in pendingPoints {
            if batches.last?.segment == segment {
                batches[batches.count - 1].batch.append(fix)
            } else {
                batches.append((segment, [fix]))
            }
        }
        pendingPoints.removeAll(keepingCapacity: true)
        return batches
    }

    mutating func pause(at time: Date) {
        if let stretch = slow {
            distance += stretch.distance
            activeTime += stretch.time
            slow = nil
        }
        userPaused = true
        events.append(WorkoutEvent(.pause, at: max(time, lastTime ?? time)))
        segment += 1
    }

    /// Resumes after a pause. The step from the last fix seen while paused counts; `fromHere`
    /// starts afresh instead (no fix was seen during the gap, or none is known).
    mutating func resume(at time: Date, fromHere: Bool = false) {
        userPaused = false
        resumesAtNextFix = false
        let at = max(time, lastTime ?? time)
        lastTime = at
        if fromHere {
            last = nil
            recent.removeAll()
        }
        events.append(WorkoutEvent(.resume, at: at))
    }

    /// Pauses for a gap in the recording (the time a crashed session was down), to resume at the
    /// next fix.
    mutating func pauseForGap() {
        guard let lastTime, !userPaused else { return }
        pause(at: lastTime)
        resumesAtNextFix = true
    }

    /// Rebuilds a session's bookkeeping from what it had written: its points fed again, in order,
    /// with its pauses, resumes, laps and markers at their times (its motion pauses come again
    /// from the points; laps are taken as written, not made again) and its heart-rate samples.
    /// Nothing is left to write: the events are `events` as written.
    mutating func rebuild(start: Date, points: [Location], events written: [WorkoutEvent], heartRate: [QuantitySample]) {
        let (lapDistance, lapTime) = (autoLapDistance, autoLapTime)
        autoLapDistance = nil
        autoLapTime = nil
        begin(at: start)
        let actions = written.filter { [.pause, .resume, .lap, .marker].contains($0.kind) }
        var next = actions.startIndex
        func act(_ event: WorkoutEvent) {
            switch event.kind {
            case .pause: pause(at: event.time)
            // The fixes seen while paused were not written: the route starts again at the next.
            case .resume: resume(at: event.time, fromHere: true)
            case .lap: markLap(at: event.time)
            case .marker: mark(event.name ?? "", at: event.time)
            case .motionPaused, .motionResumed: break
            }
        }
        for point in points {
            guard let time = point.time else { continue }
            while next < actions.endIndex, actions[next].time < time {
                act(actions[next])
                next += 1
            }
            add(point, time: time)
        }
        for action in actions[next...] { act(action) }
        for sample in heartRate { add(heartRate: sample) }
        pendingPoints.removeAll()
        pendingSamples.removeAll()
        events = written
        autoLapDistance = lapDistance
        autoLapTime = lapTime
    }

    mutating func markLap(at time: Date) {
        events.append(WorkoutEvent(.lap, at: max(time, lastTime ?? time)))
        lap += 1
        lapStartDistance = distance
        lapStartActive = activeTime
    }

    mutating func mark(_ name: String, at time: Date) {
        events.append(WorkoutEvent(.marker, at: max(time, lastTime ?? time), name: name))
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
