import Foundation
import GPX
import LocationCore
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
    /// time or a heart rate give no sample. The samples start where the fixes start: a replay
    /// started partway into the file (`startOffset`, or a session resumed after a crash) gets
    /// none of the heart rates before its first fix. A looping replay's later passes get none.
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
public final class GPXHeartRateReplay: SampleSource {
    /// How many heart rates the file has.
    public let sampleCount: Int
    /// The index of the next heart rate to give, and whether a fix has come.
    private let follower: FixFollower<(next: Int, started: Bool)>

    init(samples: [(time: Date, rate: Double)], source: any LocationSource) {
        sampleCount = samples.count
        follower = FixFollower(source: source, initial: (0, false)) { state, fix in
            guard let time = fix.time else { return [] }
            var next = state.next
            defer { state = (next, true) }
            if !state.started {
                // The heart rates before the first fix are not this replay's.
                while next < samples.count, samples[next].time < time { next += 1 }
            }
            var due: [QuantitySample] = []
            while next < samples.count, samples[next].time <= time {
                due.append(QuantitySample(type: .heartRate, value: samples[next].rate, at: samples[next].time))
                next += 1
            }
            return due
        }
    }

    /// Starts following the fixes: each of the file's heart rates once the fixes reach its time,
    /// until ``stop()``.
    public func start() -> AsyncStream<QuantitySample> {
        follower.start()
    }

    /// Stops following the fixes and ends the stream.
    public func stop() {
        follower.stop()
    }
}
