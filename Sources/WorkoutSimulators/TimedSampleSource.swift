import Foundation
import GPSCore
import LocationCore
import SimulatorsCore
import Workout

/// A fake sensor that plays samples given in advance on a clock, each when the clock has run from
/// `origin` to its end: for tests of code that records indoors, where no fixes come to follow (a
/// trainer's speed, distance and power, a foot pod's, a strap's heart rate). On a
/// `VirtualClock` a test moves time and finds the samples up to then taken.
///
/// ```swift
/// let clock = VirtualClock()
/// let time = FixTime(startingAt: start, clock: clock)
/// let trainer = TimedSampleSource(samples: ride, startingAt: start, clock: clock)
/// let session = WorkoutSession(store: store, samples: [trainer], configuration: .init(activityType: .cycling),
///                              clock: clock, now: time.now)
/// try session.start()
/// await clock.advance(by: .seconds(3_600))
/// ```
///
/// ``stop()`` ends the stream; samples not yet due are not sent. Started again, it plays from the
/// clock's time then (samples due before are skipped, as a sensor measured them while no one listened).
public final class TimedSampleSource: SampleSource {
    private let samples: [QuantitySample]
    private let origin: Date
    private let clock: ElapsedClock
    /// When the clock was at `origin` (its reading at the source's making).
    private let startedAt: Duration
    private let playing = Locked<(task: Task<Void, Never>?, continuation: AsyncStream<QuantitySample>.Continuation?)>((nil, nil))

    /// Plays `samples` (in any order: they are sent by their ends), the clock's time now being `origin`.
    public init(samples: [QuantitySample], startingAt origin: Date, clock: some Clock<Duration> = ContinuousClock()) {
        self.samples = samples.sorted { ($0.end, $0.start, $0.type.rawValue) < ($1.end, $1.start, $1.type.rawValue) }
        self.origin = origin
        self.clock = ElapsedClock(clock)
        startedAt = self.clock.now
    }

    /// How many samples it plays in all.
    public var sampleCount: Int { samples.count }

    public func start() -> AsyncStream<QuantitySample> {
        let (stream, continuation) = AsyncStream.makeStream(of: QuantitySample.self)
        play(continuation) { continuation.yield($0) }
        return stream
    }

    /// Plays the samples into `deliver` from the clock's task, as each falls due: a session on a
    /// `VirtualClock` has taken a second's samples when the clock has moved past it.
    public func start(delivering deliver: @escaping @Sendable (QuantitySample) -> Void) -> Bool {
        play(nil, deliver)
        return true
    }

    private func play(_ continuation: AsyncStream<QuantitySample>.Continuation?, _ deliver: @escaping @Sendable (QuantitySample) -> Void) {
        let (samples, origin, startedAt) = (samples, origin, startedAt)
        let task = clock.pacedTask { clock in
            let skipped = clock.now - startedAt
            let already = origin.addingTimeInterval(skipped.seconds)
            for sample in samples where sample.end >= already {
                let due = startedAt + .seconds(sample.end.timeIntervalSince(origin))
                guard (try? await clock.sleep(until: due)) != nil else { break }  // cancelled: stop() came
                deliver(sample)
            }
            continuation?.finish()
        }
        let previous = playing.withLock { playing in
            defer { playing = (task, continuation) }
            return playing
        }
        previous.task?.cancel()
        previous.continuation?.finish()
    }

    public func stop() {
        let current = playing.withLock { playing in
            defer { playing = (nil, nil) }
            return playing
        }
        current.task?.cancel()
        current.continuation?.finish()
    }

    deinit {
        stop()
    }
}
