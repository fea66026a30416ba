import BluetoothSensors
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
        let seconds = interval.seconds
        // The model's own time, from 0: only the event times in the notifications carry it.
        let riding = Locked((model: RideModel(seed: seed), player: SamplePlayer(samples: [], wheelCircumference: wheelCircumference), time: 0.0))
        return keepTime(every: interval, clock: clock) { [self] in
            let notifications = riding.withLock { riding in
                riding.time += seconds
                let samples = riding.model.next(after: seconds, at: Date(timeIntervalSince1970: riding.time))
                return riding.player.measurements(of: samples, sensors: sensors)
            }
            for notification in notifications { send(notification.bytes, as: notification.sensor) }
        }
    }

    /// Runs its fitness machine (a treadmill, a trainer), or its foot pod, on `clock`: every
    /// `interval`, the machine moves on (``FakeFitnessMachine/advance(by:)``: the rider's power or
    /// the brake, the bike's speed, the belt) and sends its data (Indoor Bike Data or Treadmill
    /// Data); a foot pod sends a runner's RSC Measurement (3.2 m/s give or take 0.2 over a minute,
    /// 172 steps a minute, the stride and the total distance that make). It sends whether a
    /// client has notifications on or not, until the returned task is cancelled. On a
    /// `VirtualClock` a test moved by a second finds the second's data sent; on a real clock it
    /// keeps time on a thread of its own.
    ///
    /// ```swift
    /// let riding = trainer.run(clock: clock)
    /// defer { riding.cancel() }
    /// trainer.updateFitnessMachine { $0.rider = .init(power: 250, cadence: 95) }
    /// ```
    public func run(every interval: Duration = .seconds(1), clock: some Clock<Duration> = ContinuousClock()) -> Task<Void, Never> {
        precondition(interval > .zero, "FakeBluetoothDevice.run: the interval must be longer than zero")
        let seconds = interval.seconds
        if let sensor = sensors.first(where: { $0.machineKind != nil }) {
            return keepTime(every: interval, clock: clock) { [self] in
                let data = state.withLock { state -> [UInt8]? in
                    state.machine?.advance(by: seconds)
                    return state.machine?.data
                }
                if let data { send(data, as: sensor) }
            }
        }
        guard sensors.contains(.runningSpeedAndCadence) else { return Task {} }
        let runner = Locked((time: 0.0, distance: 0.0))
        return keepTime(every: interval, clock: clock) { [self] in
            let (time, distance) = runner.withLock { runner in
                runner.time += seconds
                runner.distance += (3.2 + 0.2 * sin(runner.time / 60 * 2 * .pi)) * seconds
                return runner
            }
            let speed = 3.2 + 0.2 * sin(time / 60 * 2 * .pi)
            send(RSCMeasurement(speed: speed, cadence: 172, strideLength: speed * 60 / 86, totalDistance: distance, isRunning: true))
        }
    }

    /// Calls `tick` every `interval` of `clock` until the returned task is cancelled: paced on a
    /// test clock (moved by a second, it finds the second's ticks done); on real time, on a
    /// thread of its own, as the fake gpsd's timeline: a device measures on while the test
    /// process's concurrency threads are busy (a whole package's tests beside it), instead of
    /// falling silent for seconds and sending the seconds' notifications at once.
    private func keepTime(every interval: Duration, clock: some Clock<Duration>, _ tick: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        @Sendable func run(_ clock: ElapsedClock) async {
            var deadline = Duration.zero
            while !Task.isCancelled {
                deadline += interval
                do { try await clock.sleep(until: deadline) } catch { return }
                tick()
            }
        }
        let clock = ElapsedClock(clock)
        if clock.pacesTasks { return clock.pacedTask(run) }
        let executor = DedicatedThreadExecutor()
        return Task(executorPreference: executor) {
            await run(clock)
            executor.finish()
        }
    }
}

extension Double {
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double {
        Swift.min(Swift.max(self, low), high)
    }
}
