#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import LocationCore

/// Takes a rider along a ``Course``, fix by fix: a pure state machine, its time the fixes' own.
///
/// Each fix is matched to the course (the passes of the course near it, decoded
/// as a hidden Markov model, so a course that crosses or overlaps itself never jumps branch), then
/// decides the state and the events:
///
/// - Off course when the distance from the course less the fix's accuracy is beyond
///   ``NavigatorConfiguration/offCourseDistance`` for ``NavigatorConfiguration/offCourseFixes``
///   fixes; back on course within ``NavigatorConfiguration/onCourseDistance`` for
///   ``NavigatorConfiguration/onCourseFixes``. A fix beyond the off-course distance moves nothing
///   (a spike claiming 5 m; an excursion): the distance along is held until the rider is back, then
///   taken wherever they are (a shortcut, a skipped loop).
/// - The distance along moves backwards only when the rider is going the wrong way (heading
///   against the course and moving back along it for ``NavigatorConfiguration/wrongWayFixes``
///   fixes and ``NavigatorConfiguration/wrongWayDistance`` metres); standing still, jitter does not
///   move it back.
/// - Cues are announced at ``NavigatorConfiguration/cueAnnouncements`` metres before them and
///   "now" within ``NavigatorConfiguration/cueNow``; cues behind a rider who joined or rejoined
///   further along are not announced.
/// - A fix with no position, or worse than ``NavigatorConfiguration/maximumAccuracy``, decides
///   nothing and makes the state unknown until a usable one.
///
/// ```swift
/// var navigator = Navigator(course: course)
/// let update = navigator.update(with: fix)
/// for event in update.events { print(event.name) }
/// print(update.progress.distanceToGo)
/// ```
public struct Navigator: Sendable {
    public let course: Course
    public let configuration: NavigatorConfiguration
    public private(set) var state: NavigationState = .unknown

    private var matcher = CourseMatcher()
    private var along = 0.0
    private var joined = false
    /// The last decision: off the course (kept through fixes that decide nothing).
    private var offCourse = false
    private var offRun = 0
    private var onRun = 0
    private var wrongWay = false
    private var backRun = 0
    private var backDistance = 0.0
    private var forwardRun = 0
    private var lastMatched: (point: GeoCoordinate, time: Date)?
    private var speed: Double?
    /// The index in `course.points` of the first point not yet passed.
    private var nextPoint = 0
    /// For each cue index, the announcements said (indices into `cueAnnouncements`), and "now".
    private var said: [Int: Set<Int>] = [:]
    private var saidNow: Set<Int> = []
    private var lastCrossTrack: Double?

    public init(course: Course, configuration: NavigatorConfiguration = .bike) {
        self.course = course
        self.configuration = configuration
    }

    /// Takes the next fix; returns the events it caused and the progress after it.
    public mutating func update(with fix: Location) -> NavigationUpdate {
        let time = fix.time ?? fix.receivedAt
        guard state != .finished else { return NavigationUpdate(events: [], progress: progress(at: time, fix: nil)) }
        let accuracy = fix.horizontalAccuracy ?? configuration.assumedAccuracy
        guard fix.mode != .noFix, fix.hasValidCoordinates, accuracy <= configuration.maximumAccuracy else {
            return noFix(at: time)
        }
        let point = GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude)
        var events: [NavigationEvent] = []
        let line = course.line

        var passes = line.passes(near: point, within: configuration.searchRadius)
        let nearest: PolylineProjection = passes.first ?? line.nearest(to: point)
        let beyond = nearest.distance - accuracy
        let isOff = beyond > configuration.offCourseDistance
        let isOn = beyond <= configuration.onCourseDistance
        lastCrossTrack = nearest.offset

        // The heading: the receiver's when moving, else the move since the last matched fix.
        let movingSpeed = fix.speed ?? lastMatched.map { last in
            let seconds = time.timeIntervalSince(last.time)
            return seconds > 0 ? last.point.distance(to: point) / seconds : 0
        }
        var heading: Double?
        if let movingSpeed, movingSpeed >= configuration.movingSpeed {
            heading = fix.course ?? lastMatched.map { $0.point.bearing(to: point) }
            speed = speed.map { 0.8 * $0 + 0.2 * movingSpeed } ?? movingSpeed
        }

        let before = along
        var jumped = false
        if !isOff {
            // Only the passes the fix may be on decide the match.
            passes.removeAll { $0.distance - accuracy > configuration.offCourseDistance }
            if passes.isEmpty { passes = [nearest] }
            let moved = lastMatched.map { $0.point.distance(to: point) } ?? 0
            let match = matcher.match(point, accuracy: accuracy, heading: heading, passes: passes, line: line)
            lastCrossTrack = match.offset
            let change = match.distanceAlong - before
            lastMatched = (point, time)
            if !joined || offCourse && isOn {
                // Joined, or rejoined after an excursion: taken wherever the rider is.
                jumped = joined && abs(change) > moved + configuration.offCourseDistance
                along = match.distanceAlong
            } else if change >= 0 {
                jumped = change > moved + configuration.offCourseDistance
                along = match.distanceAlong
                trackForward(change: change, heading: heading, at: match, events: &events)
            } else {
                trackBackward(change: change, heading: heading, at: match, events: &events)
            }
        }

        if !joined {
            if !isOff {
                joined = true
                offCourse = false
                events.append(.joined)
                skipPoints(behind: along)
            } else {
                // Not yet on the course (riding to its start): off it, and nothing to say.
                offCourse = true
            }
        } else if !offCourse {
            if isOff {
                offRun += 1
                if offRun >= configuration.offCourseFixes {
                    offCourse = true
                    onRun = 0
                    events.append(.offCourse)
                }
            } else {
                offRun = 0
            }
        } else if isOn {
            onRun += 1
            if onRun >= configuration.onCourseFixes {
                offCourse = false
                offRun = 0
                events.append(.backOnCourse)
            }
        } else {
            onRun = 0
        }
        state = offCourse ? .offCourse : .onCourse

        if jumped {
            // A shortcut or a skipped loop: what lies behind is not announced.
            skipPoints(behind: along)
        } else if state == .onCourse, !wrongWay, along > before || events.contains(.joined) {
            announce(from: before, to: along, events: &events)
        }
        if state == .onCourse, joined, !wrongWay, !jumped, before < course.length - configuration.finishDistance,
            along >= course.length - configuration.finishDistance, events.contains(.joined) == false
        {
            state = .finished
            events.append(.finished)
        }
        return NavigationUpdate(events: events, progress: progress(at: time, fix: fix))
    }

    /// A time with no usable fix: the state is unknown (unless finished) and nothing moves.
    public mutating func noFix(at time: Date) -> NavigationUpdate {
        if state != .finished { state = .unknown }
        return NavigationUpdate(events: [], progress: progress(at: time, fix: nil))
    }

    // MARK: - Direction

    private mutating func trackForward(change: Double, heading: Double?, at match: PolylineProjection, events: inout [NavigationEvent]) {
        backRun = 0
        backDistance = 0
        guard wrongWay, change > 0, let heading, angle(heading, bearingAt(match)) < 60 else { return }
        forwardRun += 1
        if forwardRun >= configuration.wrongWayFixes {
            wrongWay = false
            forwardRun = 0
            events.append(.rightWay)
        }
    }

    private mutating func trackBackward(change: Double, heading: Double?, at match: PolylineProjection, events: inout [NavigationEvent]) {
        forwardRun = 0
        guard let heading, angle(heading, bearingAt(match)) > 120 else {
            // Jitter while standing, or a heading along the course: the distance along is held.
            return
        }
        backRun += 1
        backDistance -= change
        if wrongWay {
            along = match.distanceAlong
            reopenPoints(after: along)
        } else if backRun >= configuration.wrongWayFixes, backDistance >= configuration.wrongWayDistance {
            wrongWay = true
            events.append(.wrongWay)
            along = match.distanceAlong
            reopenPoints(after: along)
        }
    }

    private func bearingAt(_ match: PolylineProjection) -> Double {
        course.line.points[match.segment].bearing(to: course.line.points[match.segment + 1])
    }

    private func angle(_ a: Double, _ b: Double) -> Double {
        let difference = abs((a - b).truncatingRemainder(dividingBy: 360))
        return difference > 180 ? 360 - difference : difference
    }

    // MARK: - Cues and climbs

    /// Passes over the points and climbs behind `distance` without a word (joined or rejoined there).
    private mutating func skipPoints(behind distance: Double) {
        while nextPoint < course.points.count, course.points[nextPoint].distance < distance { nextPoint += 1 }
    }

    /// After moving back along the course: the points ahead of `distance` may be announced again.
    private mutating func reopenPoints(after distance: Double) {
        while nextPoint > 0, course.points[nextPoint - 1].distance > distance {
            nextPoint -= 1
            said[nextPoint] = nil
            saidNow.remove(nextPoint)
        }
    }

    private mutating func announce(from before: Double, to after: Double, events: inout [NavigationEvent]) {
        for climb in course.climbs {
            if before < climb.start, climb.start <= after { events.append(.climbStart(climb)) }
            if before < climb.end, climb.end <= after { events.append(.climbTop(climb)) }
        }
        let points = course.points
        // The cues passed since the last fix, each "now" if it was not yet.
        while nextPoint < points.count, points[nextPoint].distance <= after {
            if points[nextPoint].isCue, !saidNow.contains(nextPoint) {
                events.append(.cue(points[nextPoint], distance: 0, now: true))
                saidNow.insert(nextPoint)
            }
            nextPoint += 1
        }
        // The cues ahead: "now" within `cueNow`, else the nearest announcement not yet said.
        var index = nextPoint
        while index < points.count, points[index].distance - after <= (configuration.cueAnnouncements.first ?? 0) {
            defer { index += 1 }
            let point = points[index]
            guard point.isCue else { continue }
            let ahead = point.distance - after
            if ahead <= configuration.cueNow {
                if !saidNow.contains(index) {
                    events.append(.cue(point, distance: ahead, now: true))
                    saidNow.insert(index)
                }
                continue
            }
            guard let slot = configuration.cueAnnouncements.lastIndex(where: { ahead <= $0 }) else { continue }
            var spoken = said[index] ?? []
            guard !spoken.contains(slot) else { continue }
            events.append(.cue(point, distance: ahead, now: false))
            // The larger announcements, not said in time, are not said late.
            for larger in 0...slot { spoken.insert(larger) }
            said[index] = spoken
        }
    }

    // MARK: - Progress

    private func progress(at time: Date, fix: Location?) -> NavigationProgress {
        let length = course.length
        var progress = NavigationProgress(
            time: time, state: state, distanceAlong: along, distanceToGo: max(0, length - along),
            crossTrack: fix == nil ? nil : lastCrossTrack, isWrongWay: wrongWay)
        let points = course.points
        var index = nextPoint
        while index < points.count, saidNow.contains(index) || points[index].distance < along { index += 1 }
        var cueIndex = index
        while cueIndex < points.count, !points[cueIndex].isCue || saidNow.contains(cueIndex) { cueIndex += 1 }
        if cueIndex < points.count {
            progress.nextCue = points[cueIndex]
            progress.distanceToNextCue = max(0, points[cueIndex].distance - along)
        }
        if let climb = course.climbs.first(where: { $0.start <= along && along < $0.end }) {
            progress.climb = climb
            progress.climbDistanceLeft = climb.end - along
            progress.climbAscentLeft = course.elevation(atDistance: along).map { max(0, climb.endElevation - $0) }
        }
        if let next = course.climbs.first(where: { $0.start > along }) {
            progress.nextClimb = next
            progress.distanceToNextClimb = next.start - along
        }
        let target = index < points.count
            ? points[index]
            : CoursePoint(
                kind: .generic, name: "Finish", coordinate: course.line.points[course.line.points.count - 1], distance: length)
        progress.nextPoint = target
        if let fix, fix.hasValidCoordinates {
            let here = GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude)
            let bearing = here.bearing(to: target.coordinate)
            progress.bearingToNextPoint = bearing
            progress.distanceToNextPoint = here.distance(to: target.coordinate)
            if let speed = fix.speed, let course = fix.course {
                progress.velocityMadeGood = speed * cos((course - bearing) * .pi / 180)
            }
        }
        if let speed, speed > 0, state != .finished {
            progress.movingSpeed = speed
            progress.estimatedFinish = time.addingTimeInterval(progress.distanceToGo / speed)
            progress.estimatedNextCue = progress.distanceToNextCue.map { time.addingTimeInterval($0 / speed) }
        }
        return progress
    }
}
