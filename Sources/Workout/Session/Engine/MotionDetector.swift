import Foundation

/// The second stage of a session: auto-pause. It takes the admitted points and the user's
/// actions in order, decides when the athlete stood still (see ``AutoPause`` for how), and
/// releases points and events in time-line order, each point once its fate is known: a point
/// whose speed must be worked out waits for the fixes 3 s after it, and a slow stretch waits
/// until it either lasts ``AutoPause/idleTime`` (a motion pause, dated before it) or ends (it was
/// motion after all).
///
/// Everything it decides comes from what it is fed, in order: fed the same points and actions
/// again (a session recovered from the store), it decides the same.
struct MotionDetector: Sendable {
    /// Where the athlete's motion stands.
    enum Motion: Sendable, Hashable {
        /// Moving: points count.
        case moving
        /// Slower than the threshold since the point at `since` (the last point before the slow
        /// ones): a motion pause dated `since` if it lasts, motion if it does not.
        case slowing(since: Double)
        /// Auto-paused: standing still.
        case autoPaused
        /// Paused by the user; on resume, auto-paused again if it was.
        case pausedByUser(wasAutoPaused: Bool)
    }

    /// A point waiting for its fate, or a user's action waiting behind the points before it.
    private enum Held: Sendable {
        case point(TimelinePoint, accurate: Bool)
        case action(WorkoutEvent)
    }

    /// An accurate point, in metres east and north of the route's first point.
    private struct Place: Sendable {
        var time: Double
        var east: Double
        var north: Double
        var segment: Int
        var horizontalAccuracy: Double?
    }

    /// The half-width of the window, seconds, in which a speed is worked out from positions.
    static let halfWindow = 3.0
    /// How many points a window needs for its scatter to measure the noise.
    static let pointsToMeasureNoise = 5

    let autoPause: AutoPause?
    let rules: FixRules
    private(set) var motion: Motion = .moving
    private var held: [Held] = []
    /// The slow stretch under way, released once it resolves: its points, decided slow, and the
    /// laps and markers taken meanwhile, in order (a lap pressed while slowing comes after the
    /// points before it, whether the stretch turns out a pause or not).
    private var stretch: [TimelineItem] = []
    /// Accurate points around those held, for speeds worked out from positions.
    private var places: [Place] = []
    /// Places before this index are no longer needed.
    private var placesStart = 0
    private var origin: (latitude: Double, longitude: Double, metresPerDegreeEast: Double)?
    /// The last point released, and the newest point taken.
    private var lastReleased: TimelinePoint?
    private var newest: (time: Double, segment: Int)?
    /// Actions taken before the first point: released with it.
    private var early: [WorkoutEvent] = []

    init(autoPause: AutoPause?, rules: FixRules) {
        self.autoPause = autoPause
        self.rules = rules
    }

    /// Whether the user has paused.
    var isPausedByUser: Bool {
        if case .pausedByUser = motion { true } else { false }
    }

    /// Whether points now count (neither the user nor auto-pause has paused).
    var isMoving: Bool {
        switch motion {
        case .moving, .slowing: true
        case .autoPaused, .pausedByUser: false
        }
    }

    /// Whether anything waits to be released.
    var isHolding: Bool {
        !held.isEmpty || !stretch.isEmpty
    }

    /// Takes the next point; returns what is released.
    mutating func add(_ point: TimelinePoint) -> [TimelineItem] {
        let accurate = rules.isAccurate(point.horizontalAccuracy)
        newest = (point.time, point.segment)
        if accurate, autoPause != nil { place(point) }
        held.append(.point(point, accurate: accurate))
        return drain(flushing: false)
    }

    /// Takes a user's action (pause, resume, lap, marker) dated at the last point taken; returns
    /// what is released. A pause or resume first settles every point before it: a slow stretch
    /// under way counts as motion.
    mutating func act(_ action: WorkoutEvent) -> [TimelineItem] {
        guard newest != nil else {
            apply(action)
            early.append(action)
            return []
        }
        let settles = action.kind == .pause || action.kind == .resume
        var released = settles ? drain(flushing: true) + settleStretch() : []
        held.append(.action(action))
        released += drain(flushing: false)
        return released
    }

    /// Settles everything held (the input has ended): speeds from the points there are, and a
    /// slow stretch under way counts as motion.
    mutating func finish() -> [TimelineItem] {
        drain(flushing: true) + settleStretch()
    }

    // MARK: - Releasing

    private mutating func drain(flushing: Bool) -> [TimelineItem] {
        var released: [TimelineItem] = []
        var index = 0
        defer {
            held.removeFirst(index)
            trimPlaces()
        }
        while index < held.count {
            switch held[index] {
            case let .action(action):
                apply(action)
                // A lap or marker while slowing waits in the stretch, after its points.
                if case .slowing = motion, !stretch.isEmpty { stretch.append(.event(action)) } else { released.append(.event(action)) }
            case let .point(point, accurate):
                guard let speed = decide(point, accurate: accurate, flushing: flushing) else { return released }
                step(point, speed: speed, accurate: accurate, into: &released)
            }
            index += 1
        }
        return released
    }

    /// The speed to judge `point` by: `.some(nil)` when it needs none (or has none to give),
    /// `nil` when it must wait for later points.
    private func decide(_ point: TimelinePoint, accurate: Bool, flushing: Bool) -> Double?? {
        guard autoPause != nil, accurate, !isPausedByUser, lastReleased != nil else { return .some(point.speed) }
        if let speed = point.speed { return .some(speed) }
        if !flushing, let newest, newest.segment == point.segment, newest.time < point.time + Self.halfWindow { return nil }
        return .some(derivedSpeed(at: point))
    }

    private mutating func step(_ point: TimelinePoint, speed: Double?, accurate: Bool, into released: inout [TimelineItem]) {
        if lastReleased == nil {
            // The first point starts the session, moving; the actions taken before it follow it,
            // dated at it.
            release(point, speed: speed, into: &released)
            released += early.map { action in
                var action = action
                action.time = Date(timeIntervalSince1970: point.time)
                return .event(action)
            }
            early = []
            if let autoPause, accurate, let speed, speed < autoPause.speedThreshold, motion == .moving {
                motion = .slowing(since: point.time)
            }
            return
        }
        guard let autoPause, !isPausedByUser else {
            release(point, speed: speed, into: &released)
            return
        }
        guard accurate, let speed else {
            // A point that cannot be judged leaves the motion as it is.
            if case .slowing = motion { stretch.append(.point(point, speed: speed)) } else { release(point, speed: speed, into: &released) }
            return
        }
        let isSlow = speed < autoPause.speedThreshold
        switch motion {
        case .moving:
            if isSlow {
                motion = .slowing(since: lastReleased!.time)
                stretch = [.point(point, speed: speed)]
                pauseIfIdle(at: point.time, autoPause, into: &released)
            } else {
                release(point, speed: speed, into: &released)
            }
        case .slowing:
            if isSlow {
                stretch.append(.point(point, speed: speed))
                pauseIfIdle(at: point.time, autoPause, into: &released)
            } else {
                released += settleStretch()
                release(point, speed: speed, into: &released)
            }
        case .autoPaused:
            if !isSlow {
                // Moving again since the last point: the step from it counts.
                released.append(.event(WorkoutEvent(.motionResumed, at: Date(timeIntervalSince1970: lastReleased!.time))))
                motion = .moving
            }
            release(point, speed: speed, into: &released)
        case .pausedByUser:
            release(point, speed: speed, into: &released)
        }
    }

    /// Pauses the motion when the slow stretch has lasted the idle time: dated from its start,
    /// so none of it counts.
    private mutating func pauseIfIdle(at time: Double, _ autoPause: AutoPause, into released: inout [TimelineItem]) {
        guard case let .slowing(since) = motion, time - since >= autoPause.idleTime.seconds else { return }
        released.append(.event(WorkoutEvent(.motionPaused, at: Date(timeIntervalSince1970: since))))
        motion = .autoPaused
        release(stretch, into: &released)
        stretch = []
    }

    /// Ends a slow stretch under way as motion: its points are released as they are.
    private mutating func settleStretch() -> [TimelineItem] {
        guard case .slowing = motion else { return [] }
        var released: [TimelineItem] = []
        release(stretch, into: &released)
        stretch = []
        motion = .moving
        return released
    }

    private mutating func release(_ point: TimelinePoint, speed: Double?, into released: inout [TimelineItem]) {
        released.append(.point(point, speed: speed))
        lastReleased = point
    }

    private mutating func release(_ items: [TimelineItem], into released: inout [TimelineItem]) {
        for item in items {
            switch item {
            case let .point(point, speed): release(point, speed: speed, into: &released)
            case let .event(event): released.append(.event(event))
            }
        }
    }

    private mutating func apply(_ action: WorkoutEvent) {
        switch action.kind {
        case .pause:
            if !isPausedByUser { motion = .pausedByUser(wasAutoPaused: motion == .autoPaused) }
        case .resume:
            if case let .pausedByUser(wasAutoPaused) = motion { motion = wasAutoPaused ? .autoPaused : .moving }
        default:
            break
        }
    }

    // MARK: - Speed from positions

    private mutating func place(_ point: TimelinePoint) {
        let origin = origin ?? {
            let made = (point.latitude, point.longitude, Self.metresPerDegree * cos(point.latitude * .pi / 180))
            self.origin = made
            return made
        }()
        places.append(Place(
            time: point.time, east: (point.longitude - origin.longitude) * origin.metresPerDegreeEast,
            north: (point.latitude - origin.latitude) * Self.metresPerDegree, segment: point.segment,
            horizontalAccuracy: point.horizontalAccuracy))
    }

    /// Metres per degree of latitude, on the sphere the distances are measured on.
    private static let metresPerDegree = 6_371_008.8 * .pi / 180

    /// Drops the places no held point can need (more than a minute before the first held).
    private mutating func trimPlaces() {
        let oldestNeeded: Double? = stretch.lazy.compactMap { item -> Double? in
            if case let .point(point, _) = item { return point.time }
            return nil
        }.first ?? held.lazy.compactMap { item -> Double? in
            if case let .point(point, _) = item { return point.time }
            return nil
        }.first ?? newest?.time
        guard let oldestNeeded else { return }
        while placesStart < places.count, places[placesStart].time < oldestNeeded - 60 { placesStart += 1 }
        if placesStart >= 256 {
            places.removeFirst(placesStart)
            placesStart = 0
        }
    }

    /// The speed at `point` worked out from the positions around it (see ``AutoPause``).
    private func derivedSpeed(at point: TimelinePoint) -> Double? {
        var window: [Place] = []
        var before: Place?
        var after: Place?
        for place in places[placesStart...] where place.segment == point.segment {
            if place.time < point.time - Self.halfWindow {
                before = place
            } else if place.time > point.time + Self.halfWindow {
                if after == nil { after = place }
            } else {
                window.append(place)
            }
        }
        if window.count < 3 {
            // Too few close by: the neighbours on each side widen it.
            if let before { window.insert(before, at: 0) }
            if let after { window.append(after) }
        }
        guard window.count >= 2 else { return nil }
        let count = Double(window.count)
        let meanTime = window.reduce(0) { $0 + $1.time } / count
        let meanEast = window.reduce(0) { $0 + $1.east } / count
        let meanNorth = window.reduce(0) { $0 + $1.north } / count
        var timeSquares = 0.0, eastProducts = 0.0, northProducts = 0.0
        for place in window {
            let dt = place.time - meanTime
            timeSquares += dt * dt
            eastProducts += dt * (place.east - meanEast)
            northProducts += dt * (place.north - meanNorth)
        }
        guard timeSquares > 0 else { return nil }
        let (east, north) = (eastProducts / timeSquares, northProducts / timeSquares)
        var variance = 0.0
        if window.count >= 3 {
            var squares = 0.0
            for place in window {
                let dt = place.time - meanTime
                let de = place.east - meanEast - east * dt
                let dn = place.north - meanNorth - north * dt
                squares += de * de + dn * dn
            }
            variance = squares / (2 * (count - 2))
        }
        if window.count < Self.pointsToMeasureNoise {
            let accuracies = window.compactMap(\.horizontalAccuracy)
            if !accuracies.isEmpty {
                let reported = accuracies.reduce(0, +) / Double(accuracies.count) / 4
                variance = max(variance, reported * reported)
            }
        }
        let standardError = (variance / timeSquares).squareRoot()
        return max(0, (east * east + north * north).squareRoot() - 2 * standardError)
    }
}
