import Foundation
import GPSCore
import LocationCore

/// The first stage of a session: each fix as it comes is admitted onto the session's time line,
/// corrected, or dropped, by the rules ``InputIssue`` lists. A value type fed fix by fix; what it
/// decides depends only on the fixes, their order and their arrival times, never on a clock.
///
/// What it guarantees the stages after it: every admitted fix has a time, times strictly
/// increase, coordinates are in range and measurements finite. It also numbers the route's
/// segments of continuity (a new one at each jump) and tells which fixes are accurate enough to count.
struct FixAdmission: Sendable {
    let rules: FixRules
    /// How many fixes and samples met each rule.
    private(set) var counts: [InputIssue: Int] = [:]
    /// The time of the last fix admitted (seconds since 1970): the next must be later.
    private var floor: Double?
    /// The last fix admitted in this process: its time on the time line and when it arrived
    /// (seconds since 1970), to place a fix without a time and to judge a fix's time by.
    private var anchor: (time: Double, receivedAt: Double)?
    /// The last accurate fix admitted, from which jumps are measured.
    private var lastAccurate: TimelinePoint?
    /// The segment of continuity new fixes join.
    private(set) var segment = 0
    /// The next admitted fix's ordinal.
    private(set) var nextOrdinal = 0
    /// The last sample's start of each type (seconds since 1970), and the last distance's end.
    private var lastSample: [QuantityType: Double] = [:]
    private var lastDistanceEnd: Double?

    /// 1024 GPS weeks, the span of the week number older receivers send.
    static let rolloverPeriod = 1024 * 7 * 86_400.0
    /// How close a corrected time must land to the time line or the clock.
    static let plausibleWindow = 86_400.0

    init(rules: FixRules) {
        self.rules = rules
    }

    /// Continues a route of which `points` were admitted before (a session resumed after a crash):
    /// the next fix is admitted after them, in a new segment.
    init(rules: FixRules, continuing points: [TimelinePoint], counts: [InputIssue: Int] = [:]) {
        self.rules = rules
        self.counts = counts
        guard let final = points.last else { return }
        nextOrdinal = final.ordinal + 1
        segment = final.segment + 1
        // When the points arrived is not kept: times are placed and judged from the first new timed fix on.
        floor = final.time
    }

    mutating func note(_ issue: InputIssue) {
        counts[issue, default: 0] += 1
    }

    /// A fix that passed the rules of time, held until the next fix shows it was complete: gpsd
    /// sends a report after each sentence of a receiver's cycle, so later reports of the same
    /// time (or without one, in the same read) carry what the first lacked.
    private var held: (location: Location, time: Double, receivedAt: Double, placed: Bool)?

    /// Takes `fix`: returns the fix admitted now, if any (the one held before it, once `fix`
    /// shows it complete), as a point and as the fix with its time set or corrected. A fix is
    /// held until the next comes, or until ``flush()``.
    mutating func admit(_ fix: Location) -> (point: TimelinePoint, location: Location)? {
        if let problem = Validation.problem(with: fix), problem != .missingTime {
            note(.invalidFix)
            return nil
        }
        let receivedAt = fix.receivedAt.timeIntervalSince1970
        var time: Double
        if let stated = fix.time?.timeIntervalSince1970 {
            time = stated
            if let corrected = rolloverCorrection(of: stated, receivedAt: receivedAt) {
                time = corrected
                note(.weekRollover)
            } else if let expected = expectedTime(at: receivedAt), stated > expected + Self.plausibleWindow {
                note(.implausibleTime)
                return nil
            }
        } else {
            guard let expected = expectedTime(at: receivedAt) else {
                note(.fixWithoutTimeBeforeFirst)
                return nil
            }
            // Read with the fix before it (one read of the socket, one arrival time), it still
            // comes after it: a millisecond after.
            time = max(expected, (held?.time ?? floor ?? expected) + Self.placementStep)
        }
        guard time.isFinite, RFC3339.supportedRange.contains(Date(timeIntervalSince1970: time)) else {
            note(.implausibleTime)
            return nil
        }
        guard let waiting = held else {
            if let floor, time <= floor {
                note(.fixNotAfterLast)
                return nil
            }
            hold(fix, time, receivedAt)
            return nil
        }
        if time == waiting.time, fix.time != nil {
            // Another report of the fix held: what it says wins, what it lacks the first says.
            held = (Self.merged(fix, into: waiting.location), time, receivedAt, waiting.placed)
            note(.fixSameTime)
            return nil
        }
        if time < waiting.time {
            if time > floor ?? -.infinity, waiting.time - time > Self.outlierGap {
                // The fix held was far ahead of the one before it, and this one is back on the
                // time line: the fix held was the odd one out.
                note(.implausibleTime)
                hold(fix, time, receivedAt)
            } else {
                note(.fixNotAfterLast)
            }
            return nil
        }
        hold(fix, time, receivedAt)
        return take(waiting)
    }

    private mutating func hold(_ fix: Location, _ time: Double, _ receivedAt: Double) {
        held = (fix, time, receivedAt, fix.time == nil)
        heldCount += 1
    }

    /// Admits the fix held, if any: the input has paused (the user acted, or a second went by
    /// without another fix), or ended (`final`). A fix held that is dated more than
    /// ``outlierGap`` ahead of where the time line expects it stays held for the next fix to
    /// judge (the odd one out, or the first after a gap in a recording played fast); at the end
    /// it is dropped (``InputIssue/implausibleTime``).
    mutating func flush(final: Bool = false) -> (point: TimelinePoint, location: Location)? {
        guard let waiting = held else { return nil }
        if let anchor, waiting.time - (anchor.time + (waiting.receivedAt - anchor.receivedAt)) > Self.outlierGap {
            guard final else { return nil }
            held = nil
            note(.implausibleTime)
            return nil
        }
        held = nil
        return take(waiting)
    }

    /// Whether a fix is held, waiting for the next.
    var isHolding: Bool { held != nil }

    /// The time of the fix held, if any.
    var heldTime: Double? { held?.time }

    /// Counts the fixes held so far (a report merged into the one held is not another): tells
    /// whether the fix held now is the one held a while ago.
    private(set) var heldCount = 0

    /// How far after the fix before it a fix without a time is placed, at least.
    static let placementStep = 0.001

    /// How far ahead of the fix after it a fix must be dated, when that one goes back, to be
    /// taken for the odd one out (a receiver's misdated fix, two recordings spliced).
    static let outlierGap = 600.0

    /// Admits a fix held: its place in the route, its segment (a jump starts one) and whether it counts.
    private mutating func take(
        _ waiting: (location: Location, time: Double, receivedAt: Double, placed: Bool)
    ) -> (point: TimelinePoint, location: Location) {
        if waiting.placed { note(.fixWithoutTime) }
        var location = waiting.location
        location.time = Date(timeIntervalSince1970: waiting.time)
        var point = TimelinePoint(ordinal: nextOrdinal, segment: segment, location: location)
        let accurate = rules.isAccurate(location.horizontalAccuracy)
        if accurate, let reference = lastAccurate, isJump(from: reference, to: point) {
            segment += 1
            point.segment = segment
            note(.jump)
        }
        if !accurate { note(.inaccurate) }
        if accurate { lastAccurate = point }
        floor = waiting.time
        anchor = (waiting.time, waiting.receivedAt)
        nextOrdinal += 1
        return (point, location)
    }

    /// `later` with what it lacks taken from `earlier`: two reports of one fix.
    static func merged(_ later: Location, into earlier: Location) -> Location {
        var merged = later
        merged.altitude = later.altitude ?? earlier.altitude
        merged.ellipsoidalAltitude = later.ellipsoidalAltitude ?? earlier.ellipsoidalAltitude
        merged.horizontalAccuracy = later.horizontalAccuracy ?? earlier.horizontalAccuracy
        merged.verticalAccuracy = later.verticalAccuracy ?? earlier.verticalAccuracy
        merged.speed = later.speed ?? earlier.speed
        merged.speedAccuracy = later.speedAccuracy ?? earlier.speedAccuracy
        merged.course = later.course ?? earlier.course
        merged.courseAccuracy = later.courseAccuracy ?? earlier.courseAccuracy
        merged.climb = later.climb ?? earlier.climb
        merged.status = later.status ?? earlier.status
        merged.device = later.device ?? earlier.device
        merged.time = later.time ?? earlier.time
        if later.mode < earlier.mode {
            merged.mode = earlier.mode
            merged.altitude = earlier.altitude ?? later.altitude
        }
        return merged
    }

    /// Admits a sample, or drops it (the reason counted).
    mutating func admit(_ sample: QuantitySample) -> Bool {
        let value = sample.value
        guard value.isFinite, value >= 0 || sample.type.allowsNegativeValues, sample.end >= sample.start,
              RFC3339.supportedRange.contains(sample.start), RFC3339.supportedRange.contains(sample.end)
        else {
            note(.invalidSample)
            return false
        }
        let start = sample.start.timeIntervalSince1970
        if let previous = lastSample[sample.type], start <= previous {
            note(.sampleNotAfterLast)
            return false
        }
        // Distances over intervals add up: one that begins before the last one ended (a second
        // sensor measuring it) would count the overlap twice.
        if sample.type == .distance, let end = lastDistanceEnd, start < end {
            note(.sampleNotAfterLast)
            return false
        }
        lastSample[sample.type] = start
        if sample.type == .distance { lastDistanceEnd = sample.end.timeIntervalSince1970 }
        return true
    }

    /// Where the time line expects a fix that arrived at `receivedAt`: the last fix's time plus
    /// the time between their arrivals. `nil` before the first fix.
    private func expectedTime(at receivedAt: Double) -> Double? {
        if let held { return held.time + (receivedAt - held.receivedAt) }
        return anchor.map { $0.time + (receivedAt - $0.receivedAt) }
    }

    /// `time` moved by the multiple of 1024 weeks that brings it within a day of the time line
    /// (first) or of the clock, when one does; `nil` when none does.
    private func rolloverCorrection(of time: Double, receivedAt: Double) -> Double? {
        let references = [expectedTime(at: receivedAt), receivedAt].compactMap { $0 }
        for reference in references {
            let periods = ((reference - time) / Self.rolloverPeriod).rounded()
            guard periods != 0, abs(periods) <= 4 else { continue }
            let corrected = time + periods * Self.rolloverPeriod
            if abs(corrected - reference) <= Self.plausibleWindow { return corrected }
        }
        return nil
    }

    private func isJump(from reference: TimelinePoint, to point: TimelinePoint) -> Bool {
        let seconds = point.time - reference.time
        let margin = max(FixRules.jumpMargin, 2 * max(reference.horizontalAccuracy ?? 0, point.horizontalAccuracy ?? 0))
        return reference.distance(to: point) > rules.maximumSpeed * seconds + margin
    }
}
