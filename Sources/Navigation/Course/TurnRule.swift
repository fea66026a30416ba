import Geometry

/// How turns are computed from a course's geometry where its file gives no cue.
///
/// At each position of the course, the heading change is the bearing of the course over the
/// `window` metres after it less the bearing over the `window` metres before it (the positions
/// `window` metres along either side, not the neighbouring vertices: a road drawn with a point
/// every metre turns no more than one drawn every 50). Where that change stays beyond
/// `threshold` degrees one way, a turn is made at the position of the largest change, named by
/// its size: slight under `slight` degrees, sharp from `sharp`, a u-turn from `uTurn`, a plain
/// left or right between. Turns closer than `window` to the start or the finish, or to each other
/// (the larger kept), are not made. Forks cannot be told from a line alone: a file's own fork
/// cues are kept as they are.
public struct TurnRule: Sendable, Hashable {
    /// Metres either side of a position over which its heading change is measured (default 25).
    public var window: Double
    /// Degrees of heading change that make a turn (default 30).
    public var threshold: Double
    /// Below this many degrees a turn is slight (default 50).
    public var slight: Double
    /// From this many degrees a turn is sharp (default 120).
    public var sharp: Double
    /// From this many degrees a turn is a u-turn (default 160).
    public var uTurn: Double

    public init(window: Double = 25, threshold: Double = 30, slight: Double = 50, sharp: Double = 120, uTurn: Double = 160) {
        self.window = window
        self.threshold = threshold
        self.slight = slight
        self.sharp = sharp
        self.uTurn = uTurn
    }

    /// The kind of a turn of `change` degrees (positive to the right, as bearings grow clockwise).
    public func kind(ofChange change: Double) -> CoursePointKind? {
        let size = abs(change)
        guard size >= threshold else { return nil }
        if size >= uTurn { return .uTurn }
        let right = change > 0
        if size < slight { return right ? .slightRight : .slightLeft }
        if size >= sharp { return right ? .sharpRight : .sharpLeft }
        return right ? .right : .left
    }

    /// The heading change in degrees (-180...180, positive right) at `distance` metres along `line`.
    public func headingChange(along line: Polyline, at distance: Double) -> Double {
        let here = line.coordinate(atDistance: distance)
        let before = line.coordinate(atDistance: distance - window)
        let after = line.coordinate(atDistance: distance + window)
        var change = here.bearing(to: after) - before.bearing(to: here)
        if change > 180 { change -= 360 } else if change < -180 { change += 360 }
        return change
    }

    /// The turns of `line`, in order along it.
    public func turns(along line: Polyline) -> [CoursePoint] {
        let length = line.length
        guard length > 2 * window else { return [] }
        var turns: [CoursePoint] = []
        var changes: [Double] = []
        // The run of positions turning one way beyond the threshold: its largest change.
        var best: (distance: Double, change: Double)?
        func close() {
            guard let turn = best, let kind = kind(ofChange: turn.change) else { return }
            best = nil
            let point = CoursePoint(
                kind: kind, name: kind.displayName, coordinate: line.coordinate(atDistance: turn.distance),
                distance: turn.distance, origin: .computed)
            if let last = turns.last, turn.distance - last.distance < window {
                // Two turns within the window: the larger is the turn.
                if abs(turn.change) > abs(changes[changes.count - 1]) {
                    turns[turns.count - 1] = point
                    changes[changes.count - 1] = turn.change
                }
            } else {
                turns.append(point)
                changes.append(turn.change)
            }
        }
        for distance in line.distances where distance >= window && distance <= length - window {
            let change = headingChange(along: line, at: distance)
            if abs(change) >= threshold {
                if let current = best, (current.change > 0) == (change > 0) {
                    if abs(change) > abs(current.change) { best = (distance, change) }
                } else {
                    close()
                    best = (distance, change)
                }
            } else {
                close()
            }
        }
        close()
        return turns
    }
}
