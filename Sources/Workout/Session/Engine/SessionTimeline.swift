import Foundation

/// The one place where a workout's figures are decided: fed its points and events in time-line
/// order (an event after the point at its time), and a sensor's readings among them as
/// ``DistanceSourcing`` releases them, it counts elapsed time, duration, moving time, distance,
/// elevation, segments, laps and splits. The live session feeds it as it records;
/// recovery feeds it what was written; the importers feed it what they read; and
/// ``WorkoutStore/laps(of:)``, ``WorkoutStore/splits(of:every:)`` and the exports feed it a stored
/// workout. The same points and events give the same figures, to the last bit.
///
/// The rules (<doc:TheFigures> says the same):
/// - **Elapsed time** runs from the first point to the end.
/// - **Duration** is the elapsed time less the time paused by the user (`pause` ... `resume`),
///   as `HKWorkout.duration` and FIT's `total_timer_time`.
/// - **Moving time** is the duration less the time stopped (`motion_paused` ...
///   `motion_resumed`: auto-pause's decisions, or a device's automatic timer stops).
/// - **Moving** is neither paused by the user nor stopped. A point **counts** when it comes while
///   moving and its horizontal accuracy is within the limit. **Distance** is, by the workout's
///   ``DistanceSource``: the sum of the haversine steps between consecutive counted points of a
///   stretch (GPS); the sensor's distance readings that come while moving, times
///   ``sensorFactor`` (the sensor; indoors); or the steps, and across a gap the sensor's readings,
///   the step over the gap adding only what its straight line is longer than they (automatic).
///   **Elevation** gain and loss are ``TrackStatistics``'s smoothed ones (a 5 m hysteresis) over
///   the counted points.
/// - A reading that counts moves the time line on to its time (indoors there is nothing else);
///   one that does not leaves the time line's times to the fixes.
/// - A **stretch** runs from the first point (or the end of a pause or stop) to the next pause or
///   stop. When one ends, the last point seen during it starts the new stretch: the step from it
///   counts (the athlete moved from there). A stretch also ends where the points' own segment
///   changes (a jump, or the gap of a crash): no step is counted across.
/// - The route's **segments**, as the store keeps them, are the stretches and the paused stretches
///   between them, in order.
/// - A **lap** ends at each lap event; with auto-laps it ends at the point that completes
///   ``Options/autoLapDistance`` or ``Options/autoLapTime`` of moving time. Each lap has the same
///   figures as the workout, over its own span.
struct SessionTimeline: Sendable {
    struct Options: Sendable, Hashable {
        /// Points less accurate than this (metres) are not counted; `nil`: all are.
        var maximumHorizontalAccuracy: Double?
        /// Auto-laps (the live session and recovery make them; a stored workout has its laps as events).
        var autoLapDistance: Double?
        var autoLapTime: Double?
        /// Splits every this many metres (``WorkoutStore/splits(of:every:)``).
        var splitDistance: Double?
        /// Where the distance comes from (``DistanceSourcing`` decides which readings count).
        var distanceSource = DistanceSource.automatic
        /// What a sensor's distance and speed are multiplied by: its calibration against the fixes
        /// (1: as the sensor measured them).
        var sensorFactor = 1.0
        /// Whether the factor follows the calibration as it goes (a live session whose wheel's
        /// circumference was not given): ``sensorFactor`` until enough of it is known.
        var calibratesSensor = false
        /// Whether fixes come: a reading then waits for the fix after it (``DistanceSourcing``);
        /// not indoors, nor for a stored workout without a route.
        var expectsFixes = true

        /// Every point counts, laps come from events only: a stored workout as it was saved.
        static let asStored = Options()

        func isAccurate(_ accuracy: Double?) -> Bool {
            guard let limit = maximumHorizontalAccuracy, let accuracy else { return true }
            return accuracy <= limit
        }
    }

    /// What became of a point.
    enum Fate: Sendable, Hashable {
        /// It counts (and belongs to the export of a session's route).
        case counted
        /// It does not (paused, or not accurate enough).
        case notCounted
    }

    let options: Options
    /// The first point's time, seconds since 1970.
    private(set) var start: Double?
    /// The last point's or event's time.
    private(set) var lastTime: Double?
    /// The route's distance, elevation and the points counted.
    private(set) var figures = TrackStatistics()
    /// The distance counted: the route's steps and the sensor's readings, as the distance source says.
    private(set) var distance = 0.0
    /// The distance the sensor's readings counted since the last point counted (a gap's).
    private var sensorSincePrevious = 0.0
    /// The time of the last reading that calibrated the sensor: the fixes' steps count beside
    /// the sensor's readings while it measures.
    private var lastCalibratingReading: Double?
    /// The sensor's distance against the fixes', over steps between usable fixes no gap apart.
    private(set) var calibration = SensorCalibration()
    /// Moving time up to the last pause or stop, and when the current moving stretch began
    /// (`nil` while paused or stopped).
    private var closedMovingTime = 0.0
    private var movingSince: Double?
    /// Duration up to the user's last pause, and when the timer last started (`nil` while the
    /// user has paused).
    private var closedDuration = 0.0
    private var runningSince: Double?
    /// What pauses the time line now: the user, auto-pause, or both (a user may pause while
    /// standing still, and auto-pause holds past the user's resume until the athlete moves).
    private var pause = Pause.none
    /// The last point counted in the current stretch, the next step's start.
    private var previous: TimelinePoint?
    /// The last point taken, and whether it was counted.
    private var lastSeen: (point: TimelinePoint, counted: Bool)?
    /// The route's segments as stored: the ordinal each begins at.
    private(set) var segmentStarts: [Int] = []
    /// The next point starts a new segment (a pause began).
    private var breaksBeforeNext = false
    /// Laps ended so far, and the current lap's start.
    private(set) var laps: [WorkoutLap] = []
    private var lapStart = Mark(time: 0, distance: 0, duration: 0, movingTime: 0)
    /// Splits so far, and the distance into the current one.
    private(set) var splits: [WorkoutLap] = []
    private var splitStart = Mark(time: 0, distance: 0, duration: 0, movingTime: 0)
    private var splitCovered = 0.0
    /// Every event, in order: those it was given and the auto-laps it made.
    private(set) var events: [WorkoutEvent] = []
    /// The points counted, as the GPX importer identifies a track.
    private(set) var fingerprint = TrackFingerprint()

    init(options: Options) {
        self.options = options
    }

    var isActive: Bool { pause == .none }
    var isPausedByUser: Bool { pause == .user || pause == .both }
    var isMotionPaused: Bool { pause == .motion || pause == .both }
    /// What a sensor's distance is multiplied by now.
    var sensorFactor: Double {
        options.calibratesSensor ? calibration.factor ?? options.sensorFactor : options.sensorFactor
    }
    var elevationGain: Double { figures.smoothedElevationGain }
    var elevationLoss: Double { figures.smoothedElevationLoss }
    /// The current lap, from 1.
    var lap: Int { laps.count + 1 }
    var lapDistance: Double { distance - lapStart.distance }
    /// When the current lap began.
    var lapStartTime: Double? { start == nil ? nil : lapStart.time }
    /// The index of the current segment, from 0.
    var segment: Int { max(0, segmentStarts.count - 1) }

    /// Seconds from the first point to `time` (the last time when `nil`).
    func elapsedTime(at time: Double? = nil) -> Double {
        guard let start, let until = time ?? lastTime else { return 0 }
        return max(0, until - start)
    }

    /// Seconds not paused by the user, up to `time` (the last time when `nil`).
    func duration(at time: Double? = nil) -> Double {
        guard let since = runningSince, let until = time ?? lastTime else { return closedDuration }
        return closedDuration + max(0, until - since)
    }

    /// Seconds moving (neither paused by the user nor stopped), up to `time` (the last time when `nil`).
    func movingTime(at time: Double? = nil) -> Double {
        guard let since = movingSince, let until = time ?? lastTime else { return closedMovingTime }
        return closedMovingTime + max(0, until - since)
    }

    /// The current lap's moving time up to `time`.
    func lapMovingTime(at time: Double? = nil) -> Double {
        movingTime(at: time) - lapStart.movingTime
    }

    /// The current lap's duration up to `time`.
    func lapDuration(at time: Double? = nil) -> Double {
        duration(at: time) - lapStart.duration
    }

    /// The workout's totals if it ended at `end` (the last time when `nil`, or when earlier):
    /// distance, duration, moving time, and elevation gain and loss when two counted points had an
    /// elevation. No totals before the first point. A workout that began at `start`, before the
    /// time line (a route given after its workout, whose first point came later), counts the time
    /// before it as neither paused nor stopped: nothing says it was.
    func totals(start workoutStart: Double? = nil, end: Double? = nil) -> WorkoutTotals {
        guard let start else { return WorkoutTotals() }
        let end = max(end ?? lastTime ?? 0, lastTime ?? 0)
        let before = max(0, start - (workoutStart ?? start))
        let hasElevation = figures.elevationCount > 1
        return WorkoutTotals(
            distance: distance, duration: duration(at: end) + before, movingTime: movingTime(at: end) + before,
            elevationGain: hasElevation ? figures.smoothedElevationGain : nil,
            elevationLoss: hasElevation ? figures.smoothedElevationLoss : nil)
    }

    // MARK: - Feeding

    /// Takes the next point.
    @discardableResult
    mutating func add(_ point: TimelinePoint) -> Fate {
        if start == nil { begin(at: point.time) }
        if segmentStarts.isEmpty {
            segmentStarts = [point.ordinal]
        } else if let (seen, _) = lastSeen, breaksBeforeNext || seen.segment != point.segment {
            segmentStarts.append(point.ordinal)
            previous = nil
            sensorSincePrevious = 0
        }
        breaksBeforeNext = false
        lastTime = max(lastTime ?? point.time, point.time)
        guard isActive, options.isAccurate(point.horizontalAccuracy) else {
            lastSeen = (point, false)
            if isActive { autoLap(at: point.time) }
            return .notCounted
        }
        count(point)
        lastSeen = (point, true)
        autoLap(at: point.time)
        return .counted
    }

    /// Takes the next event. Returns the ordinal of a point that a resume made count (the last
    /// point seen while paused, which starts the new stretch), if any.
    @discardableResult
    mutating func apply(_ event: WorkoutEvent) -> Int? {
        let time = event.time.timeIntervalSince1970
        if start != nil { lastTime = max(lastTime ?? time, time) }
        events.append(event)
        let wasActive = isActive
        let wasRunning = !isPausedByUser
        switch event.kind {
        case .pause: pause = Pause(user: true, motion: isMotionPaused)
        case .resume: pause = Pause(user: false, motion: isMotionPaused)
        case .motionPaused: pause = Pause(user: isPausedByUser, motion: true)
        case .motionResumed: pause = Pause(user: isPausedByUser, motion: false)
        case .lap:
            endLap(at: time, trigger: event.trigger)
            return nil
        case .marker:
            return nil
        }
        guard start != nil else { return nil }
        if wasRunning != !isPausedByUser {
            if wasRunning {
                closedDuration += max(0, time - (runningSince ?? time))
                runningSince = nil
            } else {
                runningSince = time
            }
        }
        guard wasActive != isActive else { return nil }
        if wasActive {
            closedMovingTime += max(0, time - (movingSince ?? time))
            movingSince = nil
            breaksBeforeNext = true
            return nil
        }
        movingSince = time
        return resumeStretch()
    }

    /// Ends the time line at `end` (at least the last time): closes the last lap and split.
    mutating func finish(at end: Double? = nil) {
        guard start != nil, let last = lastTime else { return }
        let end = max(end ?? last, last)
        lastTime = end
        if end > lapStart.time || laps.isEmpty {
            let final = lap(from: lapStart, to: end)
            laps.append(final)
        }
        if splitCovered > 0 {
            let last = split(to: end, distance: splitCovered)
            splits.append(last)
            splitCovered = 0
        }
    }

    // MARK: - Counting

    /// Starts the time line at `time`: at its first point, or (``begin(at:)`` called from outside)
    /// at the start of a workout without a route, whose figures its events alone decide.
    mutating func begin(at time: Double) {
        guard start == nil else { return }
        start = time
        lastTime = time
        if isActive { movingSince = time }
        if !isPausedByUser { runningSince = time }
        lapStart = Mark(time: time, distance: 0, duration: 0, movingTime: 0)
        splitStart = lapStart
    }

    private mutating func count(_ point: TimelinePoint) {
        if let previous {
            let before = figures.distance
            figures.add(latitude: point.latitude, longitude: point.longitude, elevation: point.altitude, time: point.time)
            let step = figures.distance - before
            // A step between usable fixes close together (no gap), while the sensor measures,
            // calibrates it: measured by the speeds the receiver reported where it did (Doppler
            // speeds are not inflated by the positions' noise, as their steps are).
            let seconds = point.time - previous.time
            if seconds <= DistanceSourcing.gapLimit, let last = lastCalibratingReading, point.time - last <= DistanceSourcing.gapLimit {
                let reported = previous.speed.flatMap { before in point.speed.map { (before + $0) / 2 * seconds } }
                calibration.add(fixes: reported ?? step)
            }
            let counted = switch options.distanceSource {
            case .gps: step
            case .sensor: 0.0
            // Across a gap the sensor counted what it measured: the straight line adds only what is longer.
            case .automatic: max(0, step - sensorSincePrevious)
            }
            distance += counted
            split(step: counted, from: previous.time, to: point.time)
        } else {
            figures.startSegment()
            figures.add(latitude: point.latitude, longitude: point.longitude, elevation: point.altitude, time: point.time)
        }
        fingerprint.add(time: point.time, latitude: point.latitude, longitude: point.longitude)
        previous = point
        sensorSincePrevious = 0
    }

    /// Takes the next reading: one that counts moves the time line on to its time and, while
    /// moving, adds its distance (times ``sensorFactor``); one that does not only measures the
    /// sensor against the next step of the fixes.
    mutating func add(_ reading: TimelineReading) {
        let time = reading.time
        if start == nil { begin(at: time) }
        if reading.counts { lastTime = max(lastTime ?? time, time) }
        guard isActive else { return }
        if case let .distance(metres, since) = reading.reading.measure {
            // Outside a gap, over a short interval (not the revolutions of a dropout), it is
            // measured against the fixes' steps.
            if !reading.inGap, time - since <= DistanceSourcing.gapLimit {
                calibration.add(sensor: metres)
                lastCalibratingReading = time
            }
            if reading.counts {
                let counted = metres * sensorFactor
                distance += counted
                sensorSincePrevious += counted
                split(step: counted, from: since, to: time)
            }
        }
        if reading.counts { autoLap(at: time) }
    }

    /// A new stretch after a pause: the last point seen while paused starts it, counted, unless
    /// it was already counted (the pause held no point: the stretch goes on) or is not accurate.
    private mutating func resumeStretch() -> Int? {
        guard let (seen, counted) = lastSeen else { return nil }
        if counted {
            breaksBeforeNext = false
            return nil
        }
        guard options.isAccurate(seen.horizontalAccuracy) else {
            breaksBeforeNext = true
            return nil
        }
        // The paused stretch held `seen` alone: it becomes the new stretch; else the new one starts at it.
        if segmentStarts.last != seen.ordinal { segmentStarts.append(seen.ordinal) }
        previous = nil
        count(seen)
        lastSeen = (seen, true)
        return seen.ordinal
    }

    // MARK: - Laps and splits

    private mutating func autoLap(at time: Double) {
        if let metres = options.autoLapDistance, metres > 0, lapDistance >= metres {
            apply(WorkoutEvent(.lap, at: Date(timeIntervalSince1970: time), trigger: .distance))
        } else if let seconds = options.autoLapTime, seconds > 0, lapMovingTime(at: time) >= seconds {
            apply(WorkoutEvent(.lap, at: Date(timeIntervalSince1970: time), trigger: .time))
        }
    }

    private mutating func endLap(at time: Double, trigger: WorkoutEvent.LapTrigger?) {
        // A lap event at the start begins nothing.
        guard let start, time > start else { return }
        var ended = lap(from: lapStart, to: time)
        ended.trigger = trigger
        laps.append(ended)
        lapStart = mark(at: time)
    }

    /// Where the figures stand at `time`: a lap's or a split's start.
    private struct Mark: Sendable {
        var time: Double
        var distance: Double
        var duration: Double
        var movingTime: Double
    }

    private func mark(at time: Double) -> Mark {
        Mark(time: time, distance: distance, duration: duration(at: time), movingTime: movingTime(at: time))
    }

    /// The span from `start` to `end` (at `distance` metres into the workout) as a lap.
    private func span(index: Int, from start: Mark, to end: Double, distance: Double) -> WorkoutLap {
        let now = mark(at: end)
        return WorkoutLap(
            index: index, start: Date(timeIntervalSince1970: start.time), end: Date(timeIntervalSince1970: end),
            distance: distance - start.distance, elapsedTime: end - start.time,
            duration: now.duration - start.duration, movingTime: now.movingTime - start.movingTime)
    }

    private func lap(from start: Mark, to end: Double) -> WorkoutLap {
        span(index: laps.count + 1, from: start, to: end, distance: distance)
    }

    /// Cuts splits out of a counted step from `from` to `to`, in proportion.
    private mutating func split(step: Double, from: Double, to: Double) {
        guard let metres = options.splitDistance, metres > 0 else { return }
        var step = step
        var at = from
        while splitCovered + step >= metres, step > 0 {
            let needed = metres - splitCovered
            let reached = at + (to - at) * needed / step
            let done = split(to: reached, distance: metres)
            splits.append(done)
            step -= needed
            at = reached
            splitCovered = 0
        }
        splitCovered += step
    }

    private mutating func split(to end: Double, distance: Double) -> WorkoutLap {
        // A split's distance is exactly its length: the step it ends in is cut in proportion.
        let done = span(index: splits.count + 1, from: Mark(time: splitStart.time, distance: 0, duration: splitStart.duration, movingTime: splitStart.movingTime), to: end, distance: distance)
        splitStart = mark(at: end)
        return done
    }

    /// What pauses a time line.
    enum Pause: Sendable, Hashable {
        case none, user, motion, both

        init(user: Bool, motion: Bool) {
            self = switch (user, motion) {
            case (false, false): .none
            case (true, false): .user
            case (false, true): .motion
            case (true, true): .both
            }
        }
    }
}

/// A sensor's distance measured against the fixes': while moving, the steps between usable fixes
/// at most 5 s apart while the sensor measures, and the sensor's
/// readings outside gaps (each over at most that long), summed apart (the fixes' by the speeds the
/// receiver reported, where both ends of a step have one, else by their positions). Summed, not
/// paired step by step: a reading that reaches the session a little late still counts. A wheel
/// sensor reckons its distance by a circumference it is told; the fixes tell how far it really went.
public struct SensorCalibration: Sendable, Hashable, Codable {
    /// Metres the fixes covered over the steps compared.
    public private(set) var fixDistance = 0.0
    /// Metres the sensor measured over the same steps.
    public private(set) var sensorDistance = 0.0

    /// The fixes' distance needed before the factor is trusted: 200 m.
    public static let minimumDistance = 200.0
    /// The factors believed: a sensor off by more than a quarter is not this workout's wheel
    /// (another bike's sensor, a slipping magnet), and is not corrected.
    public static let plausibleFactors = 0.8...1.25

    /// An empty calibration.
    public init() {}

    /// Adds a step of the fixes, `fixes` metres.
    public mutating func add(fixes: Double) {
        if fixes.isFinite, fixes >= 0 { fixDistance += fixes }
    }

    /// Adds a reading of the sensor, `sensor` metres.
    public mutating func add(sensor: Double) {
        if sensor.isFinite, sensor >= 0 { sensorDistance += sensor }
    }

    /// What the sensor's distance is multiplied by to agree with the fixes, once
    /// ``minimumDistance`` of them is compared and the factor is plausible; `nil` before.
    public var factor: Double? {
        guard fixDistance >= Self.minimumDistance, sensorDistance > 0 else { return nil }
        let factor = fixDistance / sensorDistance
        return Self.plausibleFactors.contains(factor) ? factor : nil
    }
}
