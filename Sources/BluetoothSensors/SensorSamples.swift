#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WorkoutCore

/// Turns one sensor's notifications into workout samples: heart rate and the times between beats
/// from a strap; speed, distance and cadence from a speed and cadence sensor; power, cadence and
/// speed from a power meter; speed, cadence and distance from a foot pod; speed, cadence, power,
/// heart rate and distance from a fitness machine (`SensorSamples+FitnessMachines.swift`). It
/// keeps what the next notification is read against (the last revolution counts and total
/// distances), so it lives as long as a sensor's run: a distance counted on across a dropped
/// connection covers the gap. Each type comes from one characteristic at a time (``SampleSelection``).
struct SensorSamples: Sendable {
    /// The wheel's circumference in metres: the distance of one revolution.
    let wheelCircumference: Double
    private var wheel = RevolutionCounter(counterBits: 32, eventTimeUnit: 1.0 / 1024)
    private var crank = RevolutionCounter(counterBits: 16, eventTimeUnit: 1.0 / 1024)
    private var powerWheel = RevolutionCounter(counterBits: 32, eventTimeUnit: 1.0 / 2048)
    private var powerCrank = RevolutionCounter(counterBits: 16, eventTimeUnit: 1.0 / 1024)
    /// When the last wheel revolution was counted (for a distance sample's start).
    private var lastWheelSample: Date?
    var selection = SampleSelection()
    var footPodDistance = TotalDistance.footPod
    var bikeDistance = TotalDistance.fitnessMachine(maximumSpeed: TotalDistance.cyclingSpeed)
    var treadmillDistance = TotalDistance.fitnessMachine(maximumSpeed: TotalDistance.runningSpeed)
    /// What the measurements say beside their samples, for the sensor's status.
    var readings = MeasuredReadings()

    init(wheelCircumference: Double) {
        self.wheelCircumference = wheelCircumference
    }

    /// The samples of the notification `bytes` of the characteristic `uuid`, received at `date`
    /// (`now` on a monotonic clock); a machine's heart rate is left out while `strapGivesHeartRate`.
    /// Throws ``MalformedNotification``.
    mutating func samples(
        of uuid: String, _ bytes: [UInt8], at date: Date, now: Duration, strapGivesHeartRate: Bool = false
    ) throws(MalformedNotification) -> [QuantitySample] {
        let source: SampleSelection.Source
        var samples: [QuantitySample]
        switch uuid {
        case BluetoothUUID.heartRateMeasurement:
            let measurement = try HeartRateMeasurement(bytes: bytes)
            readings.strapGivesHeartRate = measurement.heartRate != nil
            (source, samples) = (.heartRate, heartRate(measurement, at: date))
        case BluetoothUUID.cscMeasurement:
            let measurement = try CSCMeasurement(bytes: bytes)
            samples = []
            if let data = measurement.wheel { samples += wheelSamples(wheel.add(data, receivedAt: now), at: date) }
            if let data = measurement.crank { samples += cadence(crank.add(data, receivedAt: now), at: date) }
            source = .cyclingSpeedAndCadence
        case BluetoothUUID.cyclingPowerMeasurement:
            let measurement = try CyclingPowerMeasurement(bytes: bytes)
            // Power put into the pedals (below 0) is no power out of them.
            samples = [QuantitySample(type: .power, value: Double(max(0, measurement.power)), at: date)]
            if let data = measurement.crank { samples += cadence(powerCrank.add(data, receivedAt: now), at: date) }
            if let data = measurement.wheel { samples += wheelSamples(powerWheel.add(data, receivedAt: now), at: date) }
            source = .cyclingPower
        case BluetoothUUID.rscMeasurement:
            (source, samples) = (.runningSpeedAndCadence, footPod(try RSCMeasurement(bytes: bytes), at: date, now: now))
        case BluetoothUUID.indoorBikeData:
            (source, samples) = (.indoorBike, indoorBike(try IndoorBikeData(bytes: bytes), at: date, now: now))
        case BluetoothUUID.treadmillData:
            (source, samples) = (.treadmill, treadmill(try TreadmillData(bytes: bytes), at: date, now: now))
        default:
            return []
        }
        if strapGivesHeartRate, source != .heartRate { samples.removeAll { $0.type == .heartRate } }
        return selection.keep(samples, from: source, now: now)
    }

    /// A heart rate when the strap has one, and one sample per beat interval, the last ending at
    /// `date` and each before it ending where the next begins.
    private func heartRate(_ measurement: HeartRateMeasurement, at date: Date) -> [QuantitySample] {
        var samples: [QuantitySample] = []
        if let rate = measurement.heartRate { samples.append(QuantitySample(type: .heartRate, value: Double(rate), at: date)) }
        var end = date
        var intervals: [QuantitySample] = []
        for interval in measurement.rrIntervals.reversed() where interval > 0 {
            let start = end.addingTimeInterval(-interval)
            intervals.append(QuantitySample(type: .heartbeatInterval, value: interval, start: start, end: end))
            end = start
        }
        return samples + intervals.reversed()
    }

    /// Speed and the distance covered since the last revolution counted (0 once the wheel stopped).
    private mutating func wheelSamples(_ reading: RevolutionCounter.Reading?, at date: Date) -> [QuantitySample] {
        switch reading {
        case nil:
            return []
        case .stopped:
            lastWheelSample = date
            return [QuantitySample(type: .speed, value: 0, at: date)]
        case let .revolving(rate, revolutions):
            defer { lastWheelSample = date }
            var samples = [QuantitySample(type: .speed, value: rate * wheelCircumference, at: date)]
            let start = lastWheelSample ?? date.addingTimeInterval(-Double(revolutions) / rate)
            if start < date {
                samples.append(QuantitySample(type: .distance, value: Double(revolutions) * wheelCircumference, start: start, end: date))
            }
            return samples
        }
    }

    /// Cadence in revolutions per minute (0 once the crank stopped).
    private func cadence(_ reading: RevolutionCounter.Reading?, at date: Date) -> [QuantitySample] {
        switch reading {
        case nil: []
        case .stopped: [QuantitySample(type: .cadence, value: 0, at: date)]
        case let .revolving(rate, _): [QuantitySample(type: .cadence, value: rate * 60, at: date)]
        }
    }
}
