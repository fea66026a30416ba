import Foundation
import LocationCore
import SimulatorsCore
import Workout

/// A deterministic recorded run for tests and benchmarks: a workout, its 1 Hz route from
/// `SyntheticTrack` and one heart-rate sample per route point. The same arguments always give
/// the same run, bit for bit, so a test can rebuild what another process saved.
///
/// ```swift
/// let run = SyntheticRun(index: 0, points: 10_800)          // a three-hour run
/// try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
/// ```
public struct SyntheticRun: Sendable {
    /// The workout: running, from the first point's time to the last's, with an id and an
    /// external id made from `index`.
    public var workout: WorkoutRecord
    /// The route: `points` fixes one second apart.
    public var route: [Location]
    /// One heart-rate sample (120 to 170 count/min, whole numbers) at each point's time.
    public var samples: [QuantitySample]

    /// Run number `index`: it starts `index` days after `SyntheticTrack/defaultStartTime`, and
    /// its id is ``id(_:)``. Its distance is the sum of the route's great-circle steps.
    public init(index: Int, points: Int, activityType: WorkoutActivityType = .running) {
        let start = SyntheticTrack.defaultStartTime.addingTimeInterval(Double(index) * 86_400)
        let route = SyntheticTrack.generate(count: points, startTime: start, seed: UInt64(index + 1))
        var random = SeededRandom(seed: UInt64(1_000 + index))
        samples = route.map { QuantitySample(type: .heartRate, value: random.uniform(120, 170).rounded(), at: $0.time!) }
        var distance = 0.0
        for (from, to) in zip(route, route.dropFirst()) {
            distance += from.distance(to: to)
        }
        workout = WorkoutRecord(
            id: Self.id(index), activityType: activityType, start: start,
            end: start.addingTimeInterval(Double(max(0, points - 1))),
            totals: WorkoutTotals(distance: distance),
            metadata: WorkoutMetadata(sourceApp: "SyntheticRun", externalID: "synthetic-run-\(index)"))
        self.route = route
    }

    /// `00000000-0000-4000-8000-` followed by `index` in twelve hexadecimal digits.
    public static func id(_ index: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012llx", UInt64(index)))!
    }
}
