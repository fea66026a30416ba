import Foundation
import GPX
import LocationFacade
import Synchronization
import Workout

extension FakeHeartRateSensor {
    /// Replays the heart rates of a GPX file's track points (the `hr` of Garmin's
    /// TrackPointExtension, or any extension the reader takes a heart rate from), each at its
    /// point's time, as `source` reports fixes that reach that time. With `source` a replay of the
    /// same file (`ReplayRecording(contentsOf:).device(...)`), a recorded run plays back with its
    /// heart rate, in step with its fixes at any speed.
    ///
    /// ```swift
    /// let run = try ReplayRecording(contentsOf: URL(fileURLWithPath: "run.gpx")).device(speed: 10)
    /// let session = WorkoutSession(store: store, source: run,
    ///                              heartRate: try FakeHeartRateSensor.replay(heartRatesOf: "run.gpx", following: run),
    ///                              configuration: .init(activityType: .running))
    /// ```
    ///
    /// The file is read once, here: its heart rates are held (16 bytes each). Points without a
    /// time or a heart rate give no sample. A looping replay's later passes get none.
    public static func replay(heartRatesOf path: String, following source: any LocationSource) throws(GPXError) -> GPXHeartRateReplay {
        var samples: [(time: Date, rate: Double)] = []
        _ = try GPXReader().read(fileAt: path) { event in
            if case let .trackPoint(point) = event, let time = point.time, let rate = point.heartRate {
                samples.append((time.date, rate))
            }
        }
        return GPXHeartRateReplay(samples: samples, source: source)
    }
}

/// ``FakeHeartRateSensor/replay(heartRatesOf:following:)``: a GPX file's heart rates, each given
/// when the fixes reach its time.
public final class GPXHeartRateReplay: HeartRateSource {
    private struct State: Sendable {
        var next = 0
        var continuation: AsyncStream<QuantitySample>.Continuation?
        var observation: LocationObservation?
    }

    private let samples: [(time: Date, rate: Double)]
    private let source: any LocationSource
    private let state = Mutex(State())

    init(samples: [(time: Date, rate: Double)], source: any LocationSource) {
        self.samples = samples
        self.source = source
    }

    /// How many heart rates the file has.
    public var sampleCount: Int { samples.count }

    public func start() -> AsyncStream<QuantitySample> {
        let (stream, continuation) = AsyncStream.makeStream(of: QuantitySample.self)
        let observation = source.addObserver { [weak self] event in
            guard let self, case let .location(fix) = event, let time = fix.time else { return }
            take(upTo: time)
        }
        state.withLock { state in
            state.continuation = continuation
            state.observation = observation
        }
        return stream
    }

    public func stop() {
        let continuation = state.withLock { state in
            defer {
                state.continuation = nil
                state.observation = nil
            }
            return state.continuation
        }
        continuation?.finish()
    }

    /// Gives every heart rate not yet given whose time is `time` or earlier.
    private func take(upTo time: Date) {
        let due: ([QuantitySample], AsyncStream<QuantitySample>.Continuation)? = state.withLock { state in
            guard let continuation = state.continuation else { return nil }
            var due: [QuantitySample] = []
            while state.next < samples.count, samples[state.next].time <= time {
                due.append(QuantitySample(type: .heartRate, value: samples[state.next].rate, at: samples[state.next].time))
                state.next += 1
            }
            return (due, continuation)
        }
        guard let (due, continuation) = due else { return }
        for sample in due { continuation.yield(sample) }
    }
}
