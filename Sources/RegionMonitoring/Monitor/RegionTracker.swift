#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// What one fix says of an area, by the accuracy-aware rule.
enum Verdict: Equatable {
    case inside
    case outside
    /// The fix's error circle straddles the edge (with the hysteresis): it decides nothing.
    case undecided

    /// The verdict of a fix `signedDistance` metres inside the edge (negative: outside) with `accuracy`.
    static func of(signedDistance: Double, accuracy: Double, hysteresis: Double) -> Verdict {
        if signedDistance > accuracy { return .inside }
        if -signedDistance - accuracy > hysteresis { return .outside }
        return .undecided
    }
}

/// One region's state machine: its state, the state the fixes last proved, a new state pointed to
/// but not confirmed yet, dwell, and for a line the side the device was last proven on.
struct RegionTracker: Sendable {
    /// A new state some fixes point to, not yet confirmed.
    struct Candidate: Sendable {
        var state: RegionState
        var first: Date
        var count: Int
    }

    /// Where the device was last proven to be against a line, and the fixes since.
    struct LineTrail: Sendable {
        var side: Double
        var fixes: [(date: Date, point: GeoCoordinate)]
    }

    let identifier: String
    let condition: RegionCondition
    /// The region's own rules, in place of the monitor's (see ``RegionMonitor/add(_:identifier:assuming:rules:)``).
    var rules: MonitoringRules?
    var state: RegionState
    var proven: RegionState?
    var candidate: Candidate?
    var satisfiedSince: Date?
    var dwelt = false
    var lastEvent: RegionEvent?
    var trail: LineTrail?
    var lastLineFix: (date: Date, point: GeoCoordinate)?

    init(identifier: String, condition: RegionCondition, assuming state: RegionState) {
        self.identifier = identifier
        self.condition = condition
        self.state = state
        proven = state == .unknown ? nil : state
    }

    var isLine: Bool {
        if case .line = condition { true } else { false }
    }

    /// Whether a fix far from the region (outside its box and margin) can change anything: only
    /// when the region is not already quietly outside.
    var needsEveryFix: Bool {
        isLine || state != .unsatisfied || candidate != nil
    }

    var record: RegionRecord {
        RegionRecord(condition: condition, state: state, provenState: proven, lastEvent: lastEvent)
    }

    /// Takes a usable fix; returns the events it makes.
    mutating func update(with fix: Location, point: GeoCoordinate, date: Date, accuracy: Double, rules monitorRules: MonitoringRules, farAway: Bool) -> [RegionEvent] {
        let rules = self.rules ?? monitorRules
        if case let .line(line) = condition {
            guard accuracy <= rules.maximumAccuracy else { return [] }
            return updateLine(line, fix: fix, point: point, date: date, accuracy: accuracy)
        }
        let verdict: Verdict
        if accuracy > rules.maximumAccuracy {
            verdict = .undecided
        } else if farAway {
            verdict = .outside
        } else {
            verdict = .of(signedDistance: condition.signedDistance(from: point) ?? 0, accuracy: accuracy, hysteresis: rules.hysteresis)
        }
        var events: [RegionEvent] = []
        let pointing: RegionState? = switch verdict {
        case .inside: .satisfied
        case .outside: .unsatisfied
        case .undecided: nil
        }
        if let pointing {
            if pointing == state {
                candidate = nil
            } else {
                if candidate?.state == pointing {
                    candidate!.count += 1
                } else {
                    candidate = Candidate(state: pointing, first: date, count: 1)
                }
                if let candidate, Self.isConfirmed(candidate, at: date, by: rules.confirmation) {
                    events += adopt(candidate, fix: fix, date: date)
                }
            }
        }
        if state == .satisfied, candidate == nil {
            if satisfiedSince == nil { satisfiedSince = date }
            if let dwell = dwell(monitorRules), !dwelt, let since = satisfiedSince, date.timeIntervalSince(since) >= dwell.seconds {
                dwelt = true
                events.append(event(.dwell, state: .satisfied, date: date, fix: fix, first: nil))
            }
        }
        return events
    }

    /// How long inside makes a dwell event: by the region's own rules, else the monitor's. An
    /// anchor only by its own: a boat at anchor is meant to stay, and the monitor's dwell (60 s
    /// by default) is for areas one arrives in.
    func dwell(_ monitorRules: MonitoringRules) -> Duration? {
        if case .anchor = condition { return rules?.dwell }
        return (rules ?? monitorRules).dwell
    }

    static func isConfirmed(_ candidate: Candidate, at date: Date, by confirmation: MonitoringRules.Confirmation) -> Bool {
        switch confirmation {
        case let .fixes(count): candidate.count >= count
        case let .duration(duration): date.timeIntervalSince(candidate.first) >= duration.seconds
        }
    }

    private mutating func adopt(_ candidate: Candidate, fix: Location, date: Date) -> [RegionEvent] {
        let before = proven
        state = candidate.state
        proven = candidate.state
        self.candidate = nil
        if candidate.state == .satisfied, before != .satisfied {
            satisfiedSince = date
            dwelt = false
        }
        // Back to the state proven before a spell of unknown: nothing happened. Proven outside
        // the first time: nothing to say either (there was no enter to undo).
        guard before != candidate.state, !(before == nil && candidate.state == .unsatisfied) else { return [] }
        let kind: RegionEvent.Kind
        if candidate.state == .satisfied {
            kind = .enter
        } else if case .anchor = condition {
            kind = .drag
        } else {
            kind = .exit
        }
        return [event(kind, state: candidate.state, date: date, fix: fix, first: candidate.first)]
    }

    /// No usable fix for the rules' time: the area's state is unknown (its proven state is kept).
    mutating func becomeUnknown(at date: Date) -> [RegionEvent] {
        candidate = nil
        trail = nil
        lastLineFix = nil
        guard !isLine, state != .unknown else { return [] }
        state = .unknown
        return [event(.unknown, state: .unknown, date: date, fix: nil, first: nil)]
    }

    private mutating func event(_ kind: RegionEvent.Kind, state: RegionState, date: Date, fix: Location?, first: Date?, direction: CrossingDirection? = nil) -> RegionEvent {
        let event = RegionEvent(identifier: identifier, state: state, kind: kind, date: date, location: fix, firstIndication: first, direction: direction)
        lastEvent = event
        return event
    }

    /// A line: a crossing is counted when the device, proven on one side (its error circle clear
    /// of the line's extension), is proven on the other, and its path between crosses the line
    /// itself; it is dated between the two consecutive fixes whose move crosses it.
    private mutating func updateLine(_ line: CrossingLine, fix: Location, point: GeoCoordinate, date: Date, accuracy: Double) -> [RegionEvent] {
        if state == .unknown { state = .unsatisfied }
        let offset = line.signedOffset(of: point)
        let side: Double? = abs(offset) > accuracy ? (offset > 0 ? 1 : -1) : nil
        defer { lastLineFix = (date, point) }
        guard var current = trail else {
            if let side { trail = LineTrail(side: side, fixes: [(date, point)]) }
            return []
        }
        current.fixes.append((date, point))
        if current.fixes.count > 3600 { current.fixes.removeSubrange(1..<(current.fixes.count - 3600)) }
        guard let side else {
            trail = current
            return []
        }
        defer { trail = LineTrail(side: side, fixes: [(date, point)]) }
        guard side != current.side else { return [] }
        for (a, b) in zip(current.fixes, current.fixes.dropFirst()).reversed() {
            if let crossing = line.crossing(from: a.point, to: b.point) {
                let moment = a.date.addingTimeInterval(b.date.timeIntervalSince(a.date) * crossing.fraction)
                return [event(.cross, state: .satisfied, date: moment, fix: fix, first: nil, direction: crossing.direction)]
            }
        }
        return []
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
