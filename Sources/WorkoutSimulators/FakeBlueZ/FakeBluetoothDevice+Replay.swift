import BluetoothSensors
import Foundation
import GPSCore
import GPX
import LocationFacade
import Workout

/// A fake device driven by a recording: its heart rates, cadences, powers and speeds sent as
/// notifications while a location source's fixes reach their times, as a real sensor's would come
/// beside a GPS on a ride.
extension FakeBluetoothDevice {
    /// Sends `samples` (heart rate, cadence, power, speed; others are ignored), each when
    /// `source` reports a fix at or after its time, as the device's sensors would: heart rate as
    /// a Heart Rate Measurement; cadence as crank revolutions and speed as wheel revolutions
    /// (of a wheel of `wheelCircumference` metres) in CSC or Cycling Power measurements; power in
    /// Cycling Power measurements. Stops when the returned observation is cancelled.
    ///
    /// ```swift
    /// let ride = try ReplayRecording(contentsOf: url).device(clock: clock)
    /// let playing = meter.play(try FakeBluetoothDevice.samples(ofGPX: url.path), following: ride)
    /// ```
    public func play(_ samples: [QuantitySample], following source: any LocationSource, wheelCircumference: Double = 2.105) -> LocationObservation {
        let sorted = samples.filter { [.heartRate, .cadence, .power, .speed].contains($0.type) }.sorted { $0.start < $1.start }
        let player = Locked(SamplePlayer(samples: sorted, wheelCircumference: wheelCircumference))
        return source.addObserver { [self] event in
            guard case let .location(fix) = event, let time = fix.time else { return }
            let due = player.withLock { $0.take(until: time, sensors: sensors) }
            for notification in due { send(notification.bytes, as: notification.sensor) }
        }
    }

    /// The heart rates, cadences and powers of a GPX file's track points, each at its point's time.
    public static func samples(ofGPX path: String) throws(GPXError) -> [QuantitySample] {
        var samples: [QuantitySample] = []
        _ = try GPXReader().read(fileAt: path) { event in
            guard case let .trackPoint(point) = event, let time = point.time?.date else { return }
            if let rate = point.heartRate { samples.append(QuantitySample(type: .heartRate, value: rate, at: time)) }
            if let cadence = point.cadence { samples.append(QuantitySample(type: .cadence, value: cadence, at: time)) }
            if let power = point.power { samples.append(QuantitySample(type: .power, value: power, at: time)) }
            if let speed = point.speed { samples.append(QuantitySample(type: .speed, value: speed, at: time)) }
        }
        return samples
    }
}

/// Turns samples into the notifications a device would send: counts of revolutions that grow
/// with cadence and speed, and their last event times.
struct SamplePlayer: Sendable {
    let samples: [QuantitySample]
    let wheelCircumference: Double
    private var next = 0
    private var crank = Revolutions()
    private var wheel = Revolutions()
    private var lastPower: Int?

    /// A revolution counter and the time of its last whole revolution.
    private struct Revolutions {
        var turns = 0.0
        var lastTurnTime = 0.0
        var rate = 0.0
        var time: Double?

        /// Moves on to `now` at `rate` turns per second.
        mutating func advance(to now: Double, rate newRate: Double) {
            if let time, now > time, rate > 0 {
                let before = turns.rounded(.down)
                turns += rate * (now - time)
                let whole = turns.rounded(.down)
                if whole > before { lastTurnTime = now - (turns - whole) / rate }
            }
            time = now
            rate = newRate
        }

        func data(eventUnit: Double) -> RevolutionData {
            RevolutionData(
                revolutions: UInt32(truncatingIfNeeded: Int(turns.rounded(.down))),
                eventTime: UInt16(truncatingIfNeeded: Int((lastTurnTime / eventUnit).rounded(.down))))
        }
    }

    init(samples: [QuantitySample], wheelCircumference: Double) {
        self.samples = samples
        self.wheelCircumference = wheelCircumference
    }

    /// The notifications of the samples up to `time`, for a device with `sensors`.
    mutating func take(until time: Date, sensors: [FakeBluetoothDevice.Sensor]) -> [(sensor: FakeBluetoothDevice.Sensor, bytes: [UInt8])] {
        var due: [(sensor: FakeBluetoothDevice.Sensor, bytes: [UInt8])] = []
        while next < samples.count, samples[next].start <= time {
            let sample = samples[next]
            next += 1
            let now = sample.start.timeIntervalSince1970
            switch sample.type {
            case .heartRate where sensors.contains(.heartRate):
                let rate = Int(sample.value.rounded())
                due.append((.heartRate, HeartRateMeasurement(heartRate: rate, rrIntervals: rate > 0 ? [60 / Double(rate)] : []).bytes))
            case .cadence:
                crank.advance(to: now, rate: sample.value / 60)
                if sensors.contains(.speedAndCadence) {
                    due.append((.speedAndCadence, CSCMeasurement(wheel: nil, crank: crank.data(eventUnit: 1.0 / 1024)).bytes))
                } else if sensors.contains(.power), let lastPower {
                    due.append((.power, CyclingPowerMeasurement(power: lastPower, crank: crank.data(eventUnit: 1.0 / 1024)).bytes))
                }
            case .speed where sensors.contains(.speedAndCadence):
                wheel.advance(to: now, rate: sample.value / wheelCircumference)
                due.append((.speedAndCadence, CSCMeasurement(wheel: wheel.data(eventUnit: 1.0 / 1024), crank: nil).bytes))
            case .power where sensors.contains(.power):
                lastPower = Int(sample.value.rounded())
                crank.advance(to: now, rate: crank.rate)
                due.append((.power, CyclingPowerMeasurement(power: lastPower!, crank: crank.time == nil ? nil : crank.data(eventUnit: 1.0 / 1024)).bytes))
            default:
                continue
            }
        }
        return due
    }
}
