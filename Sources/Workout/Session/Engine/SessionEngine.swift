import Foundation
import LocationCore

/// A session's stages in one value: ``FixAdmission`` (is the fix taken, and when),
/// ``DistanceSourcing`` (which sensor readings the time line takes, in time order among the
/// fixes), ``MotionDetector`` (auto-pause) and ``SessionTimeline`` (the figures). It has no
/// clock, no store and no lock: fed the same fixes, samples and actions in the same order (and,
/// indoors, the same times of the session's clock), it decides the same, which is what lets a
/// crashed session be recovered with the figures it had live.
struct SessionEngine: Sendable {
    /// What the engine took from one input, for the writer: the route points admitted and the
    /// events decided since the last input.
    struct Output: Sendable {
        var points: [StagedPoint] = []
        var events: [WorkoutEvent] = []

        var isEmpty: Bool { points.isEmpty && events.isEmpty }
    }

    /// A route point to write: its place in the route, the segment it was admitted in, and the fix.
    struct StagedPoint: Sendable {
        var ordinal: Int
        var segment: Int
        var location: Location
    }

    private(set) var admission: FixAdmission
    private(set) var sourcing: DistanceSourcing
    private(set) var detector: MotionDetector<TimelineInput, WorkoutEvent>
    private(set) var timeline: SessionTimeline
    /// Indoors: no fixes; the time line begins at ``begin(at:)`` and runs on the session's clock.
    let isIndoor: Bool
    /// Whether motion is judged by the fixes (not when the distance source is the sensor).
    private let judgesFixes: Bool
    /// The time of the last reading the time line took, and indoors the session's clock's time
    /// at the last tick or action (seconds since 1970).
    private var lastReadingTime: Double?
    private var clockTime: Double?
    /// Events handed out so far (the timeline's first `eventsOut`).
    private var eventsOut = 0
    /// The samples' figures, whole and in the current lap.
    private(set) var samples: [QuantityType: SampleFigures] = [:]
    private(set) var lapSamples: [QuantityType: SampleFigures] = [:]
    /// The last point admitted (its time is the session's "now").
    private(set) var lastPoint: TimelinePoint?
    /// The speed now, m/s, smoothed over about ``speedSmoothing`` seconds.
    private(set) var currentSpeed: Double?
    private var currentSpeedTime: Double?
    /// The next point ends the pause for a recovered session's gap.
    private var resumesAtNextPoint = false

    /// The time constant of the current speed's exponential smoothing, seconds.
    static let speedSmoothing = 5.0

    init(configuration: WorkoutSession.Configuration) {
        isIndoor = configuration.locationType == .indoor
        let source = configuration.effectiveDistanceSource
        judgesFixes = source != .sensor
        admission = FixAdmission(rules: configuration.fixRules)
        sourcing = DistanceSourcing(source: source, threshold: configuration.autoPause?.speedThreshold, expectsFixes: !isIndoor)
        detector = MotionDetector(
            rule: configuration.autoPause, maximumHorizontalAccuracy: configuration.fixRules.maximumHorizontalAccuracy)
        timeline = SessionTimeline(options: configuration.timelineOptions)
    }

    /// The session's time now, seconds since 1970: the last fix's or the last reading's the time
    /// line took, and indoors the session's clock's at the last tick.
    var now: Double? {
        let times = [lastPoint?.time, lastReadingTime, clockTime].compactMap { $0 }
        return times.max()
    }

    /// Begins an indoor session's time line at `time` (its `start()` on the session's clock):
    /// the workout begins there, whether or not a sensor has measured anything yet. A resumed
    /// one, whose time line began before the crash, resumes at `time` from the gap's pause.
    mutating func begin(at time: Double) -> Output {
        guard isIndoor else { return Output() }
        guard timeline.start == nil else {
            advanceClock(to: time)
            guard resumesAtNextPoint else { return Output() }
            resumesAtNextPoint = false
            return act(.resume)
        }
        timeline.begin(at: time)
        clockTime = time
        // The detector starts there too, with nothing to judge: an action before the first
        // reading is dated when it happened, not at that reading.
        feed(detector.add(.reading(TimelineReading(reading: SensorReading(time: time, measure: .speed(0)), inGap: true, counts: false, judgedSpeed: nil))))
        return Output()
    }

    /// Indoors, the session's clock has reached `time`: the elapsed time and duration run to it,
    /// and an action now is dated there.
    mutating func advanceClock(to time: Double) {
        guard isIndoor, let current = clockTime else { return }
        clockTime = max(current, time)
    }

    /// Every event so far.
    var events: [WorkoutEvent] { timeline.events }

    // MARK: - Input

    /// Takes a fix from the source. Admission holds each fix until the next shows it complete
    /// (or ``flushHeldFix()``), so what is admitted now is the fix before this one.
    mutating func take(_ fix: Location) -> Output {
        guard let admitted = admission.admit(fix) else { return Output() }
        return record(admitted)
    }

    /// Admits the fix admission holds, if any: nothing came for a while, or the user acts, or
    /// (`final`) the input has ended.
    mutating func flushHeldFix(final: Bool = false) -> Output {
        guard let admitted = admission.flush(final: final) else { return Output() }
        return record(admitted)
    }

    private mutating func record(_ admitted: (point: TimelinePoint, location: Location)) -> Output {
        let (point, location) = admitted
        lastPoint = point
        var output = Output(points: [StagedPoint(ordinal: point.ordinal, segment: point.segment, location: location)])
        add(point)
        if resumesAtNextPoint {
            resumesAtNextPoint = false
            feed(detector.act(WorkoutEvent(.resume, at: Date(timeIntervalSince1970: point.time))))
        }
        output.events = newEvents()
        return output
    }

    /// Takes a point already admitted (read back from the store, to recover a session).
    mutating func replay(_ point: TimelinePoint) {
        lastPoint = point
        add(point)
    }

    /// Hands `point` on: the readings before it first, decided by it, then the point itself.
    private mutating func add(_ point: TimelinePoint) {
        let usable = timeline.options.isAccurate(point.horizontalAccuracy)
        for reading in sourcing.point(at: point.time, usable: usable) { add(reading) }
        feed(detector.add(.point(point, judged: judgesFixes)))
    }

    private mutating func add(_ reading: TimelineReading) {
        var reading = reading
        reading.segment = lastPoint?.segment ?? 0
        feed(detector.add(.reading(reading)))
    }

    /// Takes an event as it was recorded (read back from the store, to recover a session).
    mutating func replay(_ event: WorkoutEvent) {
        advanceClock(to: event.time.timeIntervalSince1970)
        feed(detector.act(event))
    }

    /// Admits the next fixes after `points` (a recovered session recording on), counting on
    /// from `counts`.
    mutating func continueAdmission(after points: [TimelinePoint], counts: [InputIssue: Int]) {
        admission = FixAdmission(rules: admission.rules, continuing: points, counts: counts)
    }

    /// Pauses for the time a recovered session was down: a `pause` at its last point now, and a
    /// `resume` at the first new point (which starts a stretch of its own: nothing is counted
    /// across the gap).
    mutating func pauseForGap() -> Output {
        guard now != nil, !detector.isPaused else { return Output() }
        let output = act(.pause)
        resumesAtNextPoint = true
        return output
    }

    /// Takes a sample, unless the admission drops it. Returns whether it was taken. Before the
    /// first fix (taken or held) none is: the workout begins at its first fix
    /// (``InputIssue/sampleBeforeFirstFix``).
    ///
    /// A sample of distance, speed, cadence or power is a reading: ``DistanceSourcing`` decides
    /// whether the time line takes it, once it knows the fixes around it. A reading that ends the
    /// wait for a fix while admission holds one dated before it has that fix admitted first (the
    /// readings and the fixes go on in time order): the output is what that admitted.
    mutating func take(_ sample: QuantitySample) -> (taken: Bool, output: Output) {
        guard now != nil || admission.isHolding else {
            admission.note(.sampleBeforeFirstFix)
            return (false, Output())
        }
        if isIndoor, let start = timeline.start, sample.start.timeIntervalSince1970 < start {
            admission.note(.sampleBeforeFirstFix)
            return (false, Output())
        }
        guard admission.admit(sample) else { return (false, Output()) }
        samples[sample.type].add(sample)
        if let lapStart = timeline.lapStartTime, sample.start.timeIntervalSince1970 >= lapStart {
            lapSamples[sample.type].add(sample)
        }
        guard let reading = SensorReading(sample) else { return (true, Output()) }
        var output = Output()
        if sourcing.endsWait(reading), let held = admission.heldTime, held < reading.time {
            output = flushHeldFix()
        }
        take(reading)
        output.events += newEvents()
        return (true, output)
    }

    /// Hands a reading to the sourcing, and what it decides on.
    private mutating func take(_ reading: SensorReading) {
        for decided in sourcing.take(reading) {
            if decided.counts { lastReadingTime = max(lastReadingTime ?? decided.time, decided.time) }
            add(decided)
        }
    }

    /// Counts input the session refused before the engine saw it.
    mutating func note(_ issue: InputIssue) {
        admission.note(issue)
    }

    /// Takes a user's action (pause, resume, lap, marker), dated at the last fix: the fix
    /// admission holds is admitted first.
    mutating func act(_ kind: WorkoutEvent.Kind, name: String? = nil) -> Output {
        var output = flushHeldFix()
        // A pause while a recovered session waits for its first new fix replaces the gap's: the
        // first new fix no longer resumes it.
        if kind == .pause { resumesAtNextPoint = false }
        let time = Date(timeIntervalSince1970: now ?? 0)
        let event = WorkoutEvent(kind, at: time, name: name, trigger: kind == .lap ? .manual : nil)
        feed(detector.act(event))
        output.events += newEvents()
        return output
    }

    /// Settles everything held: the input has ended.
    mutating func finish() -> Output {
        var output = flushHeldFix(final: true)
        for reading in sourcing.finish() { add(reading) }
        feed(detector.finish())
        output.events += newEvents()
        return output
    }

    /// The events decided since the last call.
    private mutating func newEvents() -> [WorkoutEvent] {
        let all = timeline.events
        defer { eventsOut = all.count }
        return Array(all[eventsOut...])
    }

    /// Counts the events of a recovered session as handed out (they were written).
    mutating func markEventsWritten() {
        eventsOut = timeline.events.count
    }

    private mutating func feed(_ items: [MotionDetector<TimelineInput, WorkoutEvent>.Item]) {
        for item in items {
            switch item {
            case let .fix(.point(point, _), speed):
                timeline.add(point)
                smooth(speed, at: point.time)
            case let .fix(.reading(reading), _):
                timeline.add(reading)
                // The current speed is the sensor's own (the speed judged by may be a threshold).
                if reading.counts, case let .speed(speed) = reading.reading.measure {
                    smooth(speed * timeline.sensorFactor, at: reading.time)
                }
            case let .action(event):
                apply(event)
            case let .stopped(time):
                apply(WorkoutEvent(.motionPaused, at: Date(timeIntervalSince1970: time)))
            case let .moving(time):
                apply(WorkoutEvent(.motionResumed, at: Date(timeIntervalSince1970: time)))
            }
        }
    }

    private mutating func apply(_ event: WorkoutEvent) {
        let lapsBefore = timeline.laps.count
        timeline.apply(event)
        if timeline.laps.count != lapsBefore { lapSamples = [:] }
    }

    /// Moves the current speed towards `speed`, by how long it has been since the last one.
    private mutating func smooth(_ speed: Double?, at time: Double) {
        guard let speed else { return }
        if let current = currentSpeed, let since = currentSpeedTime {
            let weight = 1 - exp(-max(0, time - since) / Self.speedSmoothing)
            currentSpeed = current + (speed - current) * weight
        } else {
            currentSpeed = speed
        }
        currentSpeedTime = time
    }

    // MARK: - Figures

    /// The figures shown live: the time line's, as far as the motion detector has decided it.
    /// A point the detector still holds (its speed waits for the fixes after it, or it is part of
    /// a slow stretch that may turn out a stop) counts once it is decided, through the same time
    /// line: so the live distance and moving time never exceed what the saved workout has for
    /// the same moment, and equal it once the session has ended. The elapsed time and duration
    /// run to the last fix: no stop can take them back.
    var liveFigures: LiveFigures {
        guard let now, let start = timeline.start else { return LiveFigures() }
        return LiveFigures(
            elapsedTime: now - start, duration: timeline.duration(at: now), movingTime: timeline.movingTime(),
            distance: timeline.distance, elevationGain: timeline.elevationGain,
            lapDistance: timeline.lapDistance, lapDuration: timeline.lapDuration(at: now), lapMovingTime: timeline.lapMovingTime())
    }

    /// The session's totals, once ``finish()`` has settled everything: its time line ends at `end`
    /// (at least the last point or event).
    func totals(end: Double) -> WorkoutTotals {
        timeline.totals(end: end)
    }
}

/// The time-line figures a live session shows (see ``SessionEngine/liveFigures``).
struct LiveFigures: Sendable, Hashable {
    var elapsedTime = 0.0
    var duration = 0.0
    var movingTime = 0.0
    var distance = 0.0
    var elevationGain = 0.0
    var lapDistance = 0.0
    var lapDuration = 0.0
    var lapMovingTime = 0.0
}
