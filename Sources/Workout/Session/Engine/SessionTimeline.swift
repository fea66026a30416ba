import Foundation

/// The one place where a session's figures are decided: fed its points and events in time-line
/// order (an event after the point at its time), it counts active time, distance, elevation,
/// segments, laps and splits. The live session feeds it as it records; recovery feeds it what was
/// written; ``WorkoutStore/laps(of:)``, ``WorkoutStore/splits(of:every:)`` and the GPX export feed it
/// a stored workout. The same points and events give the same figures, to the last bit.
///
/// The rules:
/// - **Active** is neither paused by the user (`pause` ... `resume`) nor auto-paused
///   (`motion_paused` ... `motion_resumed`). **Active time** is the time between the first point
///   (or a resume) and a pause (or the end).
/// - A point **counts** when it comes while active and its horizontal accuracy is within the limit.
///   **Distance** is the sum of the haversine steps between consecutive counted points of a
///   stretch; **elevation** gain and loss are ``TrackStatistics``'s over the same points.
/// - A **stretch** runs from the first point (or a resume) to the next pause. When a pause ends,
///   the last point seen while paused starts the new stretch: the step from it counts (the athlete
///   moved from there). A stretch also ends where the points' own segment changes (a jump, or the
///   gap of a crash): no step is counted across.
/// - The route's **segments**, as the store keeps them, are the stretches and the paused stretches
///   between them, in order.
/// - A **lap** ends at each lap event; with auto-laps it ends at the point that completes
///   ``Options/autoLapDistance`` or ``Options/autoLapTime`` of active time.
struct SessionTimeline: Sendable {
    struct Options: Sendable, Hashable {
        /// Points less accurate than this (metres) are not counted; `nil`: all are.
        var maximumHorizontalAccuracy: Double?
        /// Auto-laps (the live session and recovery make them; a stored workout has its laps as events).
        var autoLapDistance: Double?
        var autoLapTime: Double?
        /// Splits every this many metres (``WorkoutStore/splits(of:every:)``).
        var splitDistance: Double?

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
    /// Distance, elevation and the points counted.
    private(set) var figures = TrackStatistics()
    private var closedActiveTime = 0.0
    /// When the current active stretch began; `nil` while paused.
    private var activeSince: Double?
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
    private var lapStart = (time: 0.0, distance: 0.0, activeTime: 0.0)
    /// Splits so far, and the distance into the current one.
    private(set) var splits: [WorkoutLap] = []
    private var splitStart = (time: 0.0, activeTime: 0.0)
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
    var distance: Double { figures.distance }
    var elevationGain: Double { figures.smoothedElevationGain }
    var elevationLoss: Double { figures.smoothedElevationLoss }
    /// The current lap, from 1.
    var lap: Int { laps.count + 1 }
    var lapDistance: Double { distance - lapStart.distance }
    /// When the current lap began.
    var lapStartTime: Double? { start == nil ? nil : lapStart.time }
    /// The index of the current segment, from 0.
    var segment: Int { max(0, segmentStarts.count - 1) }

    /// Active seconds up to `time` (the last time when `nil`).
    func activeTime(at time: Double? = nil) -> Double {
        guard let since = activeSince, let until = time ?? lastTime else { return closedActiveTime }
        return closedActiveTime + max(0, until - since)
    }

    func lapActiveTime(at time: Double? = nil) -> Double {
        activeTime(at: time) - lapStart.activeTime
    }

    // MARK: - Feeding

    /// Takes the next point.
    @discardableResult
    mutating func add(_ point: TimelinePoint) -> Fate {
        if start == nil { begin(at: point) }
        if let (seen, _) = lastSeen, breaksBeforeNext || seen.segment != point.segment {
            segmentStarts.append(point.ordinal)
            previous = nil
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
        guard start != nil, wasActive != isActive else { return nil }
        if wasActive {
            closedActiveTime += max(0, time - (activeSince ?? time))
            activeSince = nil
            breaksBeforeNext = true
            return nil
        }
        activeSince = time
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

    private mutating func begin(at point: TimelinePoint) {
        start = point.time
        lastTime = point.time
        segmentStarts = [point.ordinal]
        if isActive { activeSince = point.time }
        lapStart = (point.time, 0, 0)
        splitStart = (point.time, 0)
    }

    private mutating func count(_ point: TimelinePoint) {
        if let previous {
            let before = figures.distance
            figures.add(latitude: point.latitude, longitude: point.longitude, elevation: point.altitude, time: point.time)
            split(step: figures.distance - before, from: previous.time, to: point.time)
        } else {
            figures.startSegment()
            figures.add(latitude: point.latitude, longitude: point.longitude, elevation: point.altitude, time: point.time)
        }
        fingerprint.add(time: point.time, latitude: point.latitude, longitude: point.longitude)
        previous = point
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
        } else if let seconds = options.autoLapTime, seconds > 0, lapActiveTime(at: time) >= seconds {
            apply(WorkoutEvent(.lap, at: Date(timeIntervalSince1970: time), trigger: .time))
        }
    }

    private mutating func endLap(at time: Double, trigger: WorkoutEvent.LapTrigger?) {
        // A lap event at the start begins nothing.
        guard let start, time > start else { return }
        var ended = lap(from: lapStart, to: time)
        ended.trigger = trigger
        laps.append(ended)
        lapStart = (time, distance, activeTime(at: time))
    }

    private func lap(from start: (time: Double, distance: Double, activeTime: Double), to end: Double) -> WorkoutLap {
        WorkoutLap(
            index: laps.count + 1, start: Date(timeIntervalSince1970: start.time), end: Date(timeIntervalSince1970: end),
            distance: distance - start.distance, duration: end - start.time,
            activeDuration: activeTime(at: end) - start.activeTime)
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
        let active = activeTime(at: end)
        defer { splitStart = (end, active) }
        return WorkoutLap(
            index: splits.count + 1, start: Date(timeIntervalSince1970: splitStart.time), end: Date(timeIntervalSince1970: end),
            distance: distance, duration: end - splitStart.time, activeDuration: active - splitStart.activeTime)
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
