#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry

/// Which pass of the course a fix is on: a hidden Markov model decoded online (Viterbi), as
/// Newson and Krumm match GPS to roads and Valhalla's Meili does, with the course's passes near
/// the fix as the states.
///
/// - The states of a fix are the places the course passes within the search radius
///   (``Polyline/passes(near:within:separation:)``): one on a plain road, two at the crossing of
///   a figure of eight or on an out-and-back's shared road, one a lap on a circuit.
/// - Emission: a fix's distance from the pass is Gaussian with its accuracy (at least 5 m):
///   cost ½(d/σ)².
/// - Transition: the distance moved along the course between two passes should be the straight
///   distance between the two fixes (Newson and Krumm's `|route − great circle|`), over β = 5 m
///   plus a quarter of the straight distance (a tunnel's minute on a curving road is longer along
///   the course than straight). Moving backwards costs that too, plus ``backwardCost`` and the
///   heading must then point against the course; a fix's heading (when moving) is compared with
///   the course's there, `2(1 − cos δ)`.
/// - Costs are negative log-probabilities; each state keeps the least cost of reaching it, so the
///   decision at a fix is the cheapest state, reached by the cheapest path (online Viterbi, with no
///   lag: a head unit must answer at each fix). A jump to another branch costs its length, so one
///   odd fix cannot take the rider there, and a whole run of fixes there can.
struct CourseMatcher: Sendable {
    struct State: Sendable {
        var projection: PolylineProjection
        var cost: Double
    }

    /// The cost of moving backwards along the course between two fixes.
    static let backwardCost = 4.0
    /// The weight of a heading against the pass.
    static let headingWeight = 2.0
    /// States kept from one fix to the next.
    static let maximumStates = 8

    private(set) var states: [State] = []
    private var lastPoint: GeoCoordinate?

    /// Forgets every state: the next fix starts afresh (joined anywhere).
    mutating func reset() {
        states = []
        lastPoint = nil
    }

    /// Takes a fix at `point` with `accuracy` metres, and its `heading` (degrees true, nil when
    /// not moving or not known), given the course's `passes` near it (not empty); returns the state
    /// it is matched to and whether it moved backwards along the course.
    mutating func match(
        _ point: GeoCoordinate, accuracy: Double, heading: Double?, passes: [PolylineProjection], line: Polyline
    ) -> PolylineProjection {
        let sigma = max(5, accuracy)
        let moved = lastPoint.map { $0.distance(to: point) } ?? 0
        let beta = 5 + 0.25 * moved
        var next: [State] = []
        next.reserveCapacity(passes.count)
        for pass in passes {
            let emission = 0.5 * (pass.distance / sigma) * (pass.distance / sigma)
            let bearing = line.points[pass.segment].bearing(to: line.points[pass.segment + 1])
            var best = Double.infinity
            if states.isEmpty {
                // The first fix: heading along the course, and earlier passes first (a loop's start
                // before its finish).
                best = Self.headingCost(heading, bearing) + pass.distanceAlong * 1e-6
            } else {
                for state in states {
                    let along = pass.distanceAlong - state.projection.distanceAlong
                    var cost = state.cost
                    if along >= -2 {
                        cost += abs(along - moved) / beta + Self.headingCost(heading, bearing)
                    } else {
                        cost += abs(-along - moved) / beta + Self.backwardCost + Self.headingCost(heading, bearing + 180)
                    }
                    best = min(best, cost)
                }
            }
            next.append(State(projection: pass, cost: best + emission))
        }
        next.sort { $0.cost < $1.cost }
        if next.count > Self.maximumStates { next.removeLast(next.count - Self.maximumStates) }
        let least = next[0].cost
        for index in next.indices { next[index].cost -= least }
        states = next
        lastPoint = point
        return next[0].projection
    }

    /// `2(1 − cos δ)` for the angle δ between `heading` and `bearing`; 0 without a heading.
    @inline(__always)
    static func headingCost(_ heading: Double?, _ bearing: Double) -> Double {
        guard let heading else { return 0 }
        return headingWeight * (1 - cos((heading - bearing) * .pi / 180))
    }
}
