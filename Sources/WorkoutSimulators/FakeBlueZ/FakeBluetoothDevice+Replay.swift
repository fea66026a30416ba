import BluetoothSensors
import Foundation
import GPSCore
import GPX
import LocationCore
import Workout

/// A fake device driven by a recording: its heart rates, cadences, powers and speeds sent as
/// notifications while a location source's fixes reach their times, as a real sensor's would come
/// beside a GPS on a ride.
extension FakeBluetoothDevice {
    /// Sends `samples` (heart rate, cadence, power, speed; others are ignored), each when
    /// `source` reports a fix at or after its time, as the device's sensors would: heart rate as
    /// a Heart Rate Measurement, with the intervals of the beats since the last; cadence as crank revolutions and speed as wheel revolutions
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
    private var beats = Beats()

    /// The heart's beats: a strap sends the intervals between the beats since its last
    /// notification (none when no beat came; at 1 Hz and 120 beats/min, two).
    private struct Beats {
        var lastBeat: Double?

        /// The intervals of the beats up to `now` at `rate` beats per second (at most 3, as a
        /// strap's notification holds a few).
        mutating func add(until now: Double, rate: Double) -> [Double] {
            guard rate > 0 else { return [] }
            let interval = 1 / rate
            guard let last = lastBeat else {
                lastBeat = now
                return []
            }
            var intervals: [Double] = []
            var beat = last + interval
            while beat <= now {
                intervals.append(interval)
                lastBeat = beat
                beat += interval
            }
            return Array(intervals.suffix(3))
        }
    }

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
            } else if time == nil {
                lastTurnTime = now  // it starts at the end of a turn, as a sensor first counts one
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
            due += notifications(for: samples[next], sensors: sensors)
            next += 1
        }
        return due
    }

    /// The notification `sample` makes on a device with `sensors`, if any: a heart rate with the
    /// beats since the last one; a cadence or speed as revolutions; a power.
    mutating func notifications(for sample: QuantitySample, sensors: [FakeBluetoothDevice.Sensor]) -> [(sensor: FakeBluetoothDevice.Sensor, bytes: [UInt8])] {
        let now = sample.start.timeIntervalSince1970
        switch sample.type {
        case .heartRate where sensors.contains(.heartRate):
            let rate = Int(sample.value.rounded())
            return [(.heartRate, HeartRateMeasurement(heartRate: rate, rrIntervals: beats.add(until: now, rate: Double(rate) / 60)).bytes)]
        case .cadence:
            crank.advance(to: now, rate: sample.value / 60)
            if sensors.contains(.speedAndCadence) {
                return [(.speedAndCadence, CSCMeasurement(wheel: nil, crank: crank.data(eventUnit: 1.0 / 1024)).bytes)]
            } else if sensors.contains(.power), let lastPower {
                return [(.power, CyclingPowerMeasurement(power: lastPower, crank: crank.data(eventUnit: 1.0 / 1024)).bytes)]
            }
            return []
        case .speed where sensors.contains(.speedAndCadence):
            wheel.advance(to: now, rate: sample.value / wheelCircumference)
            return [(.speedAndCadence, CSCMeasurement(wheel: wheel.data(eventUnit: 1.0 / 1024), crank: nil).bytes)]
        case .power where sensors.contains(.power):
            let power = Int(sample.value.rounded())
            lastPower = power
            crank.advance(to: now, rate: crank.rate)
            return [(.power, CyclingPowerMeasurement(power: power, crank: crank.time == nil ? nil : crank.data(eventUnit: 1.0 / 1024)).bytes)]
        default:
            return []
        }
    }

    /// One notification per sensor of a device with `sensors` for `samples` taken at one time (a
    /// heart rate, a cadence, a power, a speed): a speed and cadence sensor sends its wheel and
    /// crank together, a power meter its power with its crank.
    mutating func measurements(of samples: [QuantitySample], sensors: [FakeBluetoothDevice.Sensor]) -> [(sensor: FakeBluetoothDevice.Sensor, bytes: [UInt8])] {
        guard let now = samples.first?.start.timeIntervalSince1970 else { return [] }
        let value = { (type: QuantityType) in samples.first { $0.type == type }?.value }
        if let cadence = value(.cadence) { crank.advance(to: now, rate: cadence / 60) }
        if let speed = value(.speed) { wheel.advance(to: now, rate: speed / wheelCircumference) }
        var due: [(sensor: FakeBluetoothDevice.Sensor, bytes: [UInt8])] = []
        for sensor in sensors {
            switch sensor {
            case .heartRate:
                guard let rate = value(.heartRate).map({ Int($0.rounded()) }) else { continue }
                due.append((.heartRate, HeartRateMeasurement(heartRate: rate, rrIntervals: beats.add(until: now, rate: Double(rate) / 60)).bytes))
            case .speedAndCadence:
                let wheelData = wheel.time == nil ? nil : wheel.data(eventUnit: 1.0 / 1024)
                let crankData = crank.time == nil ? nil : crank.data(eventUnit: 1.0 / 1024)
                guard wheelData != nil || crankData != nil else { continue }
                due.append((.speedAndCadence, CSCMeasurement(wheel: wheelData, crank: crankData).bytes))
            case .power:
                guard let power = value(.power).map({ Int($0.rounded()) }) else { continue }
                lastPower = power
                due.append((.power, CyclingPowerMeasurement(power: power, crank: crank.time == nil ? nil : crank.data(eventUnit: 1.0 / 1024)).bytes))
            case .runningSpeedAndCadence, .treadmill, .indoorBike:
                continue  // a ride's samples are a cyclist's: a foot pod and a machine send their own (`send`, `run`)
            }
        }
        return due
    }
}
