import Foundation
import GPSCore
import LocationCore
import SimulatorsCore
import Workout

/// A fake heart-rate strap: a plausible, seeded heart-rate series for a workout, for tests of code
/// that records, stores or analyses workouts. The same seed and route give the same samples on
/// every machine.
///
/// ```swift
/// let route = SyntheticTrack.generate(count: 3_600)
/// let heartRate = FakeHeartRateSensor(seed: 7).samples(for: route)
/// try await store.addSamples(heartRate, to: workout)
/// ```
///
/// The model is simple and physiological enough to exercise real code: effort comes from speed
/// (and climbing) along the route; the heart rate moves towards the rate for that effort with a
/// lag (about 25 s rising, 40 s falling, as a trained heart does); it drifts up slowly over a long
/// effort (cardiac drift); beat-to-beat noise is correlated, not white; values are whole beats per
/// minute between the resting and maximum rates.
public struct FakeHeartRateSensor: Sendable, Hashable {
    /// The rate at rest, and where a workout starts (count/min).
    public var restingRate: Double
    /// The highest rate it ever reports (count/min).
    public var maximumRate: Double
    /// The speed (m/s) that takes the heart to its maximum on the flat.
    public var maximumEffortSpeed: Double
    /// Seeds the noise.
    public var seed: UInt64

    /// A sensor with these rates (count/min), the speed (m/s) of maximum effort on the flat, and
    /// the seed of its noise.
    public init(restingRate: Double = 62, maximumRate: Double = 186, maximumEffortSpeed: Double = 6.5, seed: UInt64 = 1) {
        precondition(restingRate > 0 && maximumRate > restingRate, "the maximum rate must be above the resting rate")
        precondition(maximumEffortSpeed > 0, "the speed of maximum effort must be positive")
        self.restingRate = restingRate
        self.maximumRate = maximumRate
        self.maximumEffortSpeed = maximumEffortSpeed
        self.seed = seed
    }

    /// One sample at each fix's time, driven by the fixes' speeds (or the distance between them)
    /// and climbs. Fixes without a time are skipped.
    public func samples(for route: [Location]) -> [QuantitySample] {
        var model = Model(sensor: self)
        var samples: [QuantitySample] = []
        samples.reserveCapacity(route.count)
        var previous: Location?
        for fix in route {
            guard let time = fix.time else { continue }
            var elapsed = 1.0
            var speed = fix.speed ?? 0
            var climb = fix.climb ?? 0
            if let previous, let before = previous.time {
                elapsed = max(0, time.timeIntervalSince(before))
                if fix.speed == nil, elapsed > 0 { speed = previous.distance(to: fix) / elapsed }
                if fix.climb == nil, elapsed > 0, let from = previous.altitude, let to = fix.altitude { climb = (to - from) / elapsed }
            }
            previous = fix
            let rate = model.step(effort: effort(speed: speed, climb: climb), seconds: elapsed)
            samples.append(QuantitySample(type: .heartRate, value: rate, at: time))
        }
        return samples
    }

    /// A sample every `interval` from `start` for `duration` at a steady `effort` (0 at rest, 1 flat
    /// out): warm-up, plateau and drift without a route.
    public func samples(start: Date, duration: TimeInterval, interval: TimeInterval = 1, effort: Double) -> [QuantitySample] {
        precondition(interval > 0, "the interval must be positive")
        var model = Model(sensor: self)
        let count = Int((duration / interval).rounded(.down)) + 1
        return (0..<count).map { index in
            let rate = model.step(effort: min(max(effort, 0), 1), seconds: index == 0 ? 0 : interval)
            return QuantitySample(type: .heartRate, value: rate, at: start.addingTimeInterval(Double(index) * interval))
        }
    }

    /// A live sensor that follows `source`'s fixes as they come: a sample at each fix's time, by
    /// the same model as ``samples(for:)`` (the same samples for the same fixes and seed), in
    /// constant time and memory per fix. A `SampleSource` for a `WorkoutSession` recording
    /// from the same source.
    public func live(following source: any LocationSource) -> LiveFakeHeartRateSensor {
        LiveFakeHeartRateSensor(sensor: self, source: source)
    }

    /// Effort from speed, plus climbing (a vertical metre a second is worth about 10 m/s on the flat).
    fileprivate func effort(speed: Double, climb: Double) -> Double {
        min(max((speed + 10 * max(climb, 0)) / maximumEffortSpeed, 0), 1)
    }

    /// The heart's state as the workout goes on.
    fileprivate struct Model {
        let sensor: FakeHeartRateSensor
        var rate: Double
        var noise = 0.0
        var effortSeconds = 0.0
        var random: SeededRandom

        init(sensor: FakeHeartRateSensor) {
            self.sensor = sensor
            self.rate = sensor.restingRate
            self.random = SeededRandom(seed: sensor.seed)
        }

        /// Moves `seconds` on at `effort` and returns the rate, in whole beats per minute.
        mutating func step(effort: Double, seconds: Double) -> Double {
            let reserve = sensor.maximumRate - sensor.restingRate
            effortSeconds += effort * seconds
            let drift = min(0.08, effortSeconds / 3_600 * 0.04) * reserve  // up to 8 % of the reserve
            // The rate for an effort rises faster than linearly at low effort (as measured HR-speed curves do).
            let target = sensor.restingRate + reserve * min(1, pow(effort, 0.8)) + drift * effort
            let constant = target > rate ? 25.0 : 40.0
            rate += (target - rate) * (1 - exp(-seconds / constant))
            // AR(1) noise: about ±1.5 count/min, correlated over some ten seconds.
            let keep = exp(-seconds / 10)
            noise = noise * keep + random.uniform(-1, 1) * 2.6 * (1 - keep * keep).squareRoot()
            return min(max(rate + noise, sensor.restingRate - 3), sensor.maximumRate).rounded()
        }
    }
}

/// ``FakeHeartRateSensor/live(following:)``: samples as the fixes come.
public final class LiveFakeHeartRateSensor: SampleSource {
    private let follower: FixFollower<(model: FakeHeartRateSensor.Model, previous: Location?)>

    init(sensor: FakeHeartRateSensor, source: any LocationSource) {
        follower = FixFollower(source: source, initial: (FakeHeartRateSensor.Model(sensor: sensor), nil)) { state, fix in
            guard let time = fix.time else { return [] }
            var elapsed = 1.0
            var speed = fix.speed ?? 0
            var climb = fix.climb ?? 0
            if let previous = state.previous, let before = previous.time {
                elapsed = max(0, time.timeIntervalSince(before))
                if fix.speed == nil, elapsed > 0 { speed = previous.distance(to: fix) / elapsed }
                if fix.climb == nil, elapsed > 0, let from = previous.altitude, let to = fix.altitude { climb = (to - from) / elapsed }
            }
            state.previous = fix
            let rate = state.model.step(effort: sensor.effort(speed: speed, climb: climb), seconds: elapsed)
            return [QuantitySample(type: .heartRate, value: rate, at: time)]
        }
    }

    /// Starts following the fixes: a heart-rate sample at each fix's time, until ``stop()``.
    public func start() -> AsyncStream<QuantitySample> {
        follower.start()
    }

    /// Stops following the fixes and ends the stream.
    public func stop() {
        follower.stop()
    }
}

/// A sample source driven by a location source's fixes: each fix goes to `respond` with the
/// follower's state, and the samples it returns are given, in order.
final class FixFollower<State: Sendable>: Sendable {
    private struct Shared: Sendable {
        var state: State
        var continuation: AsyncStream<QuantitySample>.Continuation?
        var observation: LocationObservation?
    }

    private let source: any LocationSource
    private let shared: Locked<Shared>
    private let respond: @Sendable (inout State, Location) -> [QuantitySample]

    init(source: any LocationSource, initial: State, respond: @escaping @Sendable (inout State, Location) -> [QuantitySample]) {
        self.source = source
        self.shared = Locked(Shared(state: initial))
        self.respond = respond
    }

    func start() -> AsyncStream<QuantitySample> {
        let (stream, continuation) = AsyncStream.makeStream(of: QuantitySample.self)
        let observation = source.addObserver { [weak self] event in
            guard let self, case let .location(fix) = event else { return }
            take(fix)
        }
        shared.withLock { shared in
            shared.continuation = continuation
            shared.observation = observation
        }
        return stream
    }

    func stop() {
        let continuation = shared.withLock { shared in
            defer {
                shared.continuation = nil
                shared.observation = nil
            }
            return shared.continuation
        }
        continuation?.finish()
    }

    private func take(_ fix: Location) {
        let due: ([QuantitySample], AsyncStream<QuantitySample>.Continuation)? = shared.withLock { shared in
            guard let continuation = shared.continuation else { return nil }
            return (respond(&shared.state, fix), continuation)
        }
        guard let (samples, continuation) = due else { return }
        for sample in samples { continuation.yield(sample) }
    }
}
