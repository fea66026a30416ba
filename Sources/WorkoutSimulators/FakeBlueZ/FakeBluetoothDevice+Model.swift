import Foundation
import GPSCore
import LocationCore
import SimulatorsCore
import Workout

extension FakeBluetoothDevice {
    /// A ride made up from a seed, for a device with no recording to follow: heart rate, cadence,
    /// power and speed that wander as a rider's do, the same for the same seed on every machine.
    public struct RideModel: Sendable {
        private var random: SeededRandom
        private var heartRate = 125.0
        private var cadence = 85.0
        private var power = 190.0
        private var speed = 8.0

        /// The ride of `seed`.
        public init(seed: UInt64) {
            random = SeededRandom(seed: seed)
        }

        /// The next values, `seconds` after the last: each moves a little towards a wandering
        /// target (heart rate 110 to 175 beats/min, cadence 70 to 100 rpm, power 120 to 320 W,
        /// speed 5 to 12 m/s).
        public mutating func next(after seconds: Double, at time: Date) -> [QuantitySample] {
            let step = min(1, max(seconds, 0))
            heartRate = (heartRate + random.uniform(-2, 2) * step).clamped(110, 175)
            cadence = (cadence + random.uniform(-3, 3) * step).clamped(70, 100)
            power = (power + random.uniform(-15, 15) * step).clamped(120, 320)
            speed = (speed + random.uniform(-0.3, 0.3) * step).clamped(5, 12)
            return [
                QuantitySample(type: .heartRate, value: heartRate.rounded(), at: time),
                QuantitySample(type: .power, value: power.rounded(), at: time),
                QuantitySample(type: .cadence, value: cadence.rounded(), at: time),
                QuantitySample(type: .speed, value: speed, at: time),
            ]
        }
    }

    /// Sends the ride of `seed` as its sensors would, every `interval` of `clock`, until the
    /// returned task is cancelled: one notification per sensor each time (a heart rate with the
    /// beats since the last; revolutions for cadence and speed; a power), whether a client has
    /// notifications on or not, as a device sends what it measures. On a real clock it keeps time
    /// on a thread of its own, so it keeps its pace while the process's concurrency threads are busy.
    ///
    /// ```swift
    /// let riding = strap.ride(seed: 7)
    /// defer { riding.cancel() }
    /// ```
    ///
    /// A short interval makes a load: every millisecond, a thousand notifications per second.
    public func ride(
        seed: UInt64, every interval: Duration = .seconds(1), clock: some Clock<Duration> = ContinuousClock(), wheelCircumference: Double = 2.105
    ) -> Task<Void, Never> {
        precondition(interval > .zero, "FakeBluetoothDevice.ride: the interval must be longer than zero")
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) * 1e-18
        @Sendable func ride(_ clock: ElapsedClock) async {
            var model = RideModel(seed: seed)
            var player = SamplePlayer(samples: [], wheelCircumference: wheelCircumference)
            // The model's own time, from 0: only the event times in the notifications carry it.
            var modelTime = 0.0
            var deadline = Duration.zero
            while !Task.isCancelled {
                deadline += interval
                do { try await clock.sleep(until: deadline) } catch { return }
                modelTime += seconds
                let samples = model.next(after: seconds, at: Date(timeIntervalSince1970: modelTime))
                for notification in player.measurements(of: samples, sensors: sensors) {
                    send(notification.bytes, as: notification.sensor)
                }
            }
        }
        let clock = ElapsedClock(clock)
        // Paced: a test clock moved by a second finds the second's notifications sent.
        if clock.pacesTasks { return clock.pacedTask(ride) }
        // On real time, on a thread of its own, as the fake gpsd's timeline: a sensor measures on
        // while the test process's concurrency threads are busy (a whole package's tests beside
        // it), instead of falling silent for seconds and sending the seconds' notifications at once.
        let executor = DedicatedThreadExecutor()
        return Task(executorPreference: executor) {
            await ride(clock)
            executor.finish()
        }
    }
}

extension Double {
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double {
        Swift.min(Swift.max(self, low), high)
    }
}
