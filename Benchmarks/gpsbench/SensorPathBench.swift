import ArgumentParser
import BluetoothGATT
import Foundation
import LocationFacade
import Simulators
import Workout

/// `gpsbench sensor-path --rate N --seconds S --store PATH`: the path of a Bluetooth measurement
/// inside the process, without the bus: `rate` Heart Rate Measurements a second (as a strap's
/// notifications carry them, with RR intervals) decoded and handed to a live session as samples,
/// which takes them and writes them to a store file beside 1 Hz fixes, for `seconds` of fixes on a
/// `VirtualClock`; for `scripts/bench.d/75-bluetooth-sensor.py`. Prints the CPU time per
/// notification (decoding, the session, the writes), less that of the same session without them.
struct SensorPathBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensor-path",
        abstract: "Decode heart-rate notifications into a live session on a virtual clock; print JSON.")

    @Option(help: "Notifications a second.")
    var rate = 1_000

    @Option(help: "Seconds of fixes.")
    var seconds = 120

    @Option(help: "The store file (created; removed after).")
    var store: String

    /// Notifications decoded into samples, handed over a second at a time as the replay's clock
    /// moves: the session reads them as it would a sensor's.
    final class DecodedStrap: SampleSource {
        let continuation: AsyncStream<QuantitySample>.Continuation
        let stream: AsyncStream<QuantitySample>

        init() {
            (stream, continuation) = AsyncStream.makeStream(of: QuantitySample.self)
        }

        func start() -> AsyncStream<QuantitySample> { stream }
        func stop() { continuation.finish() }

        /// Decodes `notifications` and hands their samples over, dated from `time`, `spacing` apart.
        func send(_ notifications: [[UInt8]], from time: Date, spacing: Double) {
            for (index, bytes) in notifications.enumerated() {
                guard let measurement = try? HeartRateMeasurement(bytes: bytes), let rate = measurement.heartRate else { continue }
                let at = time.addingTimeInterval(Double(index) * spacing)
                continuation.yield(QuantitySample(type: .heartRate, value: Double(rate), at: at))
                for interval in measurement.rrIntervals {
                    continuation.yield(QuantitySample(type: .heartbeatInterval, value: interval, at: at))
                }
            }
        }
    }

    func run() async throws {
        // A strap's notifications: a rate, and now and then the interval of a beat.
        let notifications = (0..<rate).map { index in
            HeartRateMeasurement(heartRate: 140 + index % 7, rrIntervals: index % (rate / 2 + 1) == 0 ? [0.428] : []).bytes
        }
        let without = try await record(notifications: nil)
        let with = try await record(notifications: notifications)
        let count = rate * seconds
        print(#"{"notifications":\#(count),"samples":\#(with.samples),"#
            + #""cpu_per_notification_us":\#((with.cpu - without.cpu) / Double(count) * 1e6)}"#)
    }

    /// The CPU time of a session of `seconds` fixes, with a strap sending `notifications` each
    /// second, and the heart-rate samples saved.
    private func record(notifications: [[UInt8]]?) async throws -> (cpu: Double, samples: Int) {
        let track = SyntheticTrack.generate(count: seconds + 1, seed: 75)
        try? FileManager.default.removeItem(atPath: store)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let workouts = try WorkoutStore(path: store)
        let clock = VirtualClock()
        let device = ReplayLocationSource(locations: track, clock: clock)
        let strap = DecodedStrap()
        let session = WorkoutSession(store: workouts, source: device, samples: [strap], configuration: .init(activityType: .cycling))
        let before = SessionBench.cpuSeconds()
        try session.start()
        // Each second's measurements once the second has begun (its fix is out), dated within it.
        for second in 0..<seconds {
            await clock.advance(by: .seconds(1))
            if let notifications, let time = track[second].time {
                strap.send(notifications, from: time.addingTimeInterval(0.0005), spacing: 1 / Double(rate))
            }
            await Task.yield()
        }
        await clock.advance(by: .seconds(1))
        let workout = try await session.end()
        let cpu = SessionBench.cpuSeconds() - before
        return (cpu, try await workouts.samples(of: workout.id, type: .heartRate).count)
    }
}
