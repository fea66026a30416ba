#if canImport(Glibc)
import Glibc
#endif

/// A fix as ``MotionDetector`` judges it.
public protocol MotionFix: Sendable {
    /// Seconds since 1970, increasing along the fixes.
    var time: Double { get }
    var latitude: Double { get }
    var longitude: Double { get }
    /// The speed the receiver reported, m/s.
    var speed: Double? { get }
    var horizontalAccuracy: Double? { get }
    /// A stretch of fixes that belong together: no speed is worked out across a change (a jump).
    var segment: Int { get }
    /// What the fix gives to judge motion by: a position (the default), a sensor's speed alone,
    /// or nothing.
    var motionEvidence: MotionEvidence { get }
}

extension MotionFix {
    /// A fix is a position, judged by its speed or by the positions around it.
    @inlinable
    public var motionEvidence: MotionEvidence { .position }
}

/// What a ``MotionFix`` gives ``MotionDetector`` to judge motion by.
public enum MotionEvidence: Sendable, Hashable {
    /// A position, with the speed the receiver reported if any: judged by that speed, or by one
    /// worked out from the positions around it, when it is accurate enough.
    case position
    /// A speed alone, measured by a sensor (a wheel, a foot pod, a trainer): judged by it; it has
    /// no position, so no speed is worked out from it. One without a speed is judged by nothing.
    case speed
    /// Nothing to judge by: released in its place among the others, leaving the motion as it is.
    case none
}

/// What an action given to ``MotionDetector`` does to the judging of motion.
public enum MotionEffect: Sendable, Hashable {
    /// The user paused: fixes are not judged until a resume.
    case pause
    /// The user resumed.
    case resume
    /// Nothing (a lap, a marker): the action just keeps its place among the fixes.
    case none
}

/// Something that happens among the fixes (a user's pause, resume, lap or marker), which
/// ``MotionDetector`` releases in its place among them.
public protocol MotionAction: Sendable {
    /// What it does to the judging.
    var motionEffect: MotionEffect { get }
    /// Moves it to `time` (seconds since 1970): an action before the first fix is dated at it.
    mutating func redate(to time: Double)
}

/// An action that never happens, for a detector fed fixes alone.
public enum NoMotionAction: MotionAction {
    public var motionEffect: MotionEffect { switch self {} }
    @inlinable
    public mutating func redate(to time: Double) {}
}

/// Tells when a device stood still, by ``MotionRule`` (read it for how): fed fixes and actions
/// in order, it releases them in the same order, each fix once its fate is known, with the
/// moments it decided the device stopped and moved again. A fix whose speed must be worked out
/// waits for the fixes 3 s after it, and a slow stretch waits until it either lasts the rule's
/// idle time (a stop, dated before it) or ends (it was motion after all).
///
/// One detector serves every reader of motion: a workout session's auto-pause, the stationary
/// flag of `LocationManager`'s updates. It has no clock: fed the same fixes and actions again (a
/// session recovered from its store), it decides the same.
///
/// ```swift
/// struct Fix: MotionFix {
///     var time, latitude, longitude: Double
///     var speed, horizontalAccuracy: Double?
///     var segment = 0
/// }
/// var detector = MotionDetector<Fix, NoMotionAction>(rule: .standingStill)
/// var stops: [Double] = []
/// for location in locations {
///     let fix = Fix(time: location.time!.timeIntervalSince1970, latitude: location.latitude,
///                   longitude: location.longitude, speed: location.speed, horizontalAccuracy: location.horizontalAccuracy)
///     for case let .stopped(at) in detector.add(fix) { stops.append(at) }   // when each stop began
/// }
/// ```
///
/// Its code is `@inlinable`, so a module using it gets it specialized for its fix and action types:
/// unspecialized, each fix went through generic metadata lookups and value witnesses, most of a
/// workout session's CPU per fix.
public struct MotionDetector<Fix: MotionFix, Action: MotionAction>: Sendable {
    /// Where the device's motion stands.
    public enum Motion: Sendable, Hashable {
        /// Moving.
        case moving
        /// Slower than the rule's threshold since the fix at `since` (the last one before the
        /// slow ones): a stop dated `since` if it lasts, motion if it does not.
        case slowing(since: Double)
        /// Stopped: standing still.
        case stopped
        /// Paused by the user; on resume, stopped again if it was.
        case paused(wasStopped: Bool)
    }

    /// What the detector releases, in order.
    public enum Item: Sendable {
        /// A fix, with the speed it was judged by (reported or worked out), if any.
        case fix(Fix, speed: Double?)
        /// An action, in its place among the fixes.
        case action(Action)
        /// The device stopped at this time (seconds since 1970): what follows does not move it.
        case stopped(at: Double)
        /// The device moves again since this time.
        case moving(at: Double)
    }

    /// What the detector reads of a fix, read once when it comes (the judging then runs on
    /// these, whatever the caller's fix type).
    @usableFromInline
    struct Facts: Sendable {
        @usableFromInline var time: Double
        @usableFromInline var segment: Int
        @usableFromInline var speed: Double?
        /// Whether it is judged: an accurate position, or a sensor's speed.
        @usableFromInline var judged: Bool

        @inlinable
        init(time: Double, segment: Int, speed: Double?, judged: Bool) {
            self.time = time
            self.segment = segment
            self.speed = speed
            self.judged = judged
        }
    }

    /// A fix waiting for its fate, or an action waiting behind the fixes before it.
    @usableFromInline
    enum Held: Sendable {
        case fix(Fix, Facts)
        case action(Action)
    }

    /// A fix or an action of a slow stretch under way.
    @usableFromInline
    enum Waiting: Sendable {
        case fix(Fix, time: Double, speed: Double?)
        case action(Action)
    }

    /// An accurate fix, in metres east and north of the first fix.
    @usableFromInline
    struct Place: Sendable {
        @usableFromInline var time: Double
        @usableFromInline var east: Double
        @usableFromInline var north: Double
        @usableFromInline var segment: Int
        @usableFromInline var horizontalAccuracy: Double?

        @inlinable
        init(time: Double, east: Double, north: Double, segment: Int, horizontalAccuracy: Double?) {
            self.time = time
            self.east = east
            self.north = north
            self.segment = segment
            self.horizontalAccuracy = horizontalAccuracy
        }
    }

    /// The half-width of the window, seconds, in which a speed is worked out from positions.
    public static var halfWindow: Double { 3 }
    /// How many fixes a window needs for its scatter to measure the noise.
    @inlinable
    static var fixesToMeasureNoise: Int { 5 }

    /// The rule; `nil`: nothing is judged, every fix is released as it comes.
    public let rule: MotionRule?
    /// Fixes less accurate than this (metres) are released as they come, unjudged; `nil`: all are judged.
    public let maximumHorizontalAccuracy: Double?
    @inlinable
    public var motion: Motion { _motion }
    @usableFromInline var _motion: Motion = .moving
    @usableFromInline var held: [Held] = []
    /// The slow stretch under way, released once it resolves: its fixes, decided slow, and the
    /// actions taken meanwhile, in order.
    @usableFromInline var stretch: [Waiting] = []
    /// Accurate fixes around those held, for speeds worked out from positions.
    @usableFromInline var places: [Place] = []
    /// Places before this index are no longer needed.
    @usableFromInline var placesStart = 0
    @usableFromInline var origin: (latitude: Double, longitude: Double, metresPerDegreeEast: Double)?
    /// The time of the last fix released, and the newest fix taken.
    @usableFromInline var lastReleased: Double?
    @usableFromInline var newest: (time: Double, segment: Int)?
    /// Actions taken before the first fix: released with it.
    @usableFromInline var early: [Action] = []

    /// A detector judging by `rule` the fixes at least as accurate as `maximumHorizontalAccuracy`.
    @inlinable
    public init(rule: MotionRule?, maximumHorizontalAccuracy: Double? = nil) {
        self.rule = rule
        self.maximumHorizontalAccuracy = maximumHorizontalAccuracy
    }

    /// Whether the user has paused.
    @inlinable
    public var isPaused: Bool {
        if case .paused = motion { true } else { false }
    }

    /// Whether the device is standing still: stopped by the rule (a slow stretch not yet long
    /// enough is not).
    @inlinable
    public var isStationary: Bool {
        motion == .stopped || motion == .paused(wasStopped: true)
    }

    /// Whether fixes now count as motion (neither paused nor stopped).
    @inlinable
    public var isMoving: Bool {
        switch motion {
        case .moving, .slowing: true
        case .stopped, .paused: false
        }
    }

    /// Whether anything waits to be released.
    @inlinable
    public var isHolding: Bool {
        !held.isEmpty || !stretch.isEmpty
    }

    /// Takes the next fix; returns what is released.
    @inlinable
    public mutating func add(_ fix: Fix) -> [Item] {
        let evidence = fix.motionEvidence
        let judged = switch evidence {
        case .position: isAccurate(fix.horizontalAccuracy)
        case .speed: fix.speed != nil
        case .none: false
        }
        let facts = Facts(time: fix.time, segment: fix.segment, speed: evidence == .none ? nil : fix.speed, judged: judged)
        newest = (facts.time, facts.segment)
        if evidence == .position, facts.judged, rule != nil { place(fix, facts) }
        held.append(.fix(fix, facts))
        return drain(flushing: false)
    }

    /// Takes an action dated at the last fix taken; returns what is released. A pause or resume
    /// first settles every fix before it: a slow stretch under way counts as motion.
    @inlinable
    public mutating func act(_ action: Action) -> [Item] {
        guard newest != nil else {
            apply(action)
            early.append(action)
            return []
        }
        let settles = action.motionEffect != .none
        var released = settles ? drain(flushing: true) + settleStretch() : []
        held.append(.action(action))
        released += drain(flushing: false)
        return released
    }

    /// Settles everything held (the input has ended): speeds from the fixes there are, and a
    /// slow stretch under way counts as motion.
    @inlinable
    public mutating func finish() -> [Item] {
        drain(flushing: true) + settleStretch()
    }

    @inlinable
    func isAccurate(_ accuracy: Double?) -> Bool {
        guard let limit = maximumHorizontalAccuracy, let accuracy else { return true }
        return accuracy <= limit
    }

    // MARK: - Releasing

    @inlinable
    mutating func drain(flushing: Bool) -> [Item] {
        var released: [Item] = []
        var index = 0
        defer {
            held.removeFirst(index)
            trimPlaces()
        }
        while index < held.count {
            switch held[index] {
            case let .action(action):
                apply(action)
                // An action while slowing waits in the stretch, after its fixes.
                if case .slowing = motion, !stretch.isEmpty { stretch.append(.action(action)) } else { released.append(.action(action)) }
            case let .fix(fix, facts):
                guard let speed = decide(facts, flushing: flushing) else { return released }
                step(fix, facts, speed: speed, into: &released)
            }
            index += 1
        }
        return released
    }

    /// The speed to judge `fix` by: `.some(nil)` when it needs none (or has none to give),
    /// `nil` when it must wait for later fixes.
    @inlinable
    func decide(_ fix: Facts, flushing: Bool) -> Double?? {
        guard rule != nil, fix.judged, !isPaused, lastReleased != nil else { return .some(fix.speed) }
        if let speed = fix.speed { return .some(speed) }
        if !flushing, let newest, newest.segment == fix.segment, newest.time < fix.time + Self.halfWindow { return nil }
        return .some(derivedSpeed(at: fix.time, segment: fix.segment))
    }

    @inlinable
    mutating func step(_ fix: Fix, _ facts: Facts, speed: Double?, into released: inout [Item]) {
        let time = facts.time
        guard let last = lastReleased else {
            // The first fix starts it all, moving; the actions taken before it follow it, dated at it.
            release(fix, at: time, speed: speed, into: &released)
            released += early.map { action in
                var action = action
                action.redate(to: time)
                return .action(action)
            }
            early = []
            if let rule, facts.judged, let speed, speed < rule.speedThreshold, motion == .moving {
                _motion = .slowing(since: time)
            }
            return
        }
        guard let rule, !isPaused else {
            release(fix, at: time, speed: speed, into: &released)
            return
        }
        guard facts.judged, let speed else {
            // A fix that cannot be judged leaves the motion as it is.
            if case .slowing = motion {
                stretch.append(.fix(fix, time: time, speed: speed))
            } else {
                release(fix, at: time, speed: speed, into: &released)
            }
            return
        }
        let isSlow = speed < rule.speedThreshold
        switch motion {
        case .moving:
            if isSlow {
                _motion = .slowing(since: last)
                stretch = [.fix(fix, time: time, speed: speed)]
                stopIfIdle(at: time, rule, into: &released)
            } else {
                release(fix, at: time, speed: speed, into: &released)
            }
        case .slowing:
            if isSlow {
                stretch.append(.fix(fix, time: time, speed: speed))
                stopIfIdle(at: time, rule, into: &released)
            } else {
                released += settleStretch()
                release(fix, at: time, speed: speed, into: &released)
            }
        case .stopped:
            if !isSlow {
                // Moving again since the last fix: the step from it counts.
                released.append(.moving(at: last))
                _motion = .moving
            }
            release(fix, at: time, speed: speed, into: &released)
        case .paused:
            release(fix, at: time, speed: speed, into: &released)
        }
    }

    /// Stops when the slow stretch has lasted the idle time: dated from its start, so none of it moves.
    @inlinable
    mutating func stopIfIdle(at time: Double, _ rule: MotionRule, into released: inout [Item]) {
        guard case let .slowing(since) = motion, time - since >= rule.idleTime.seconds else { return }
        released.append(.stopped(at: since))
        _motion = .stopped
        release(stretch, into: &released)
        stretch = []
    }

    /// Ends a slow stretch under way as motion: its fixes are released as they are.
    @inlinable
    mutating func settleStretch() -> [Item] {
        guard case .slowing = motion else { return [] }
        var released: [Item] = []
        release(stretch, into: &released)
        stretch = []
        _motion = .moving
        return released
    }

    @inlinable
    mutating func release(_ fix: Fix, at time: Double, speed: Double?, into released: inout [Item]) {
        released.append(.fix(fix, speed: speed))
        lastReleased = time
    }

    @inlinable
    mutating func release(_ items: [Waiting], into released: inout [Item]) {
        for item in items {
            switch item {
            case let .fix(fix, time, speed): release(fix, at: time, speed: speed, into: &released)
            case let .action(action): released.append(.action(action))
            }
        }
    }

    @inlinable
    mutating func apply(_ action: Action) {
        switch action.motionEffect {
        case .pause:
            if !isPaused { _motion = .paused(wasStopped: motion == .stopped) }
        case .resume:
            if case let .paused(wasStopped) = motion { _motion = wasStopped ? .stopped : .moving }
        case .none:
            break
        }
    }

    // MARK: - Speed from positions

    @inlinable
    mutating func place(_ fix: Fix, _ facts: Facts) {
        let origin = origin ?? {
            let made = (fix.latitude, fix.longitude, Self.metresPerDegree * cos(fix.latitude * .pi / 180))
            self.origin = made
            return made
        }()
        places.append(Place(
            time: facts.time, east: (fix.longitude - origin.longitude) * origin.metresPerDegreeEast,
            north: (fix.latitude - origin.latitude) * Self.metresPerDegree, segment: facts.segment,
            horizontalAccuracy: fix.horizontalAccuracy))
    }

    /// Metres per degree of latitude, on the sphere the distances are measured on.
    @inlinable
    static var metresPerDegree: Double { 6_371_008.8 * .pi / 180 }

    /// Drops the places no held fix can need (more than a minute before the first held).
    @inlinable
    mutating func trimPlaces() {
        var oldestNeeded = newest?.time
        if let first = stretch.first(where: { if case .fix = $0 { true } else { false } }), case let .fix(_, time, _) = first {
            oldestNeeded = time
        } else if let first = held.first(where: { if case .fix = $0 { true } else { false } }), case let .fix(_, facts) = first {
            oldestNeeded = facts.time
        }
        guard let oldestNeeded else { return }
        while placesStart < places.count, places[placesStart].time < oldestNeeded - 60 { placesStart += 1 }
        if placesStart >= 256 {
            places.removeFirst(placesStart)
            placesStart = 0
        }
    }

    /// The speed at `fix` worked out from the positions around it (see ``MotionRule``).
    @inlinable
    func derivedSpeed(at time: Double, segment: Int) -> Double? {
        var window: [Place] = []
        var before: Place?
        var after: Place?
        for place in places[placesStart...] where place.segment == segment {
            if place.time < time - Self.halfWindow {
                before = place
            } else if place.time > time + Self.halfWindow {
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
        if window.count < Self.fixesToMeasureNoise {
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
