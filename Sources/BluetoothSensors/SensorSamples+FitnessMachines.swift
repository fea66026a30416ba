#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WorkoutCore

/// What a foot pod's or a fitness machine's measurements say beside their samples, kept in the
/// sensor's status (``BluetoothSensorStatus``) as each is read, for a status line.
struct MeasuredReadings: Sendable, Hashable {
    /// A foot pod's last stride length, in metres.
    var strideLength: Double?
    /// A foot pod's last walking (`false`) or running (`true`), when it tells them apart.
    var isRunning: Bool?
    /// A treadmill's last inclination, in percent.
    var inclination: Double?
    /// A trainer's last resistance level.
    var resistanceLevel: Double?
    /// Whether the last heart-rate measurement had a heart rate (a strap with skin contact).
    var strapGivesHeartRate: Bool?

    /// Writes what was read into `status`.
    func apply(to status: inout BluetoothSensorStatus) {
        if let strideLength { status.strideLength = strideLength }
        if let isRunning { status.isRunning = isRunning }
        if let inclination { status.fitnessMachine?.inclination = inclination }
        if let resistanceLevel { status.fitnessMachine?.resistanceLevel = resistanceLevel }
    }
}

extension SensorSamples {
    /// A foot pod's speed (m/s) and cadence (footfalls a minute); its total distance as the
    /// metres since the last one, over their interval. The stride length goes to the status.
    mutating func footPod(_ measurement: RSCMeasurement, at date: Date, now: Duration) -> [QuantitySample] {
        var samples = [
            QuantitySample(type: .speed, value: measurement.speed, at: date),
            QuantitySample(type: .cadence, value: Double(measurement.cadence), at: date),
        ]
        if let total = measurement.totalDistance, let covered = footPodDistance.add(total, receivedAt: now, date: date) {
            samples.append(covered)
        }
        if let stride = measurement.strideLength { readings.strideLength = stride }
        if measurement.isRunning || readings.isRunning != nil { readings.isRunning = measurement.isRunning }
        return samples
    }

    /// A trainer's or an exercise bike's speed, cadence, power and heart rate, each when its flags
    /// announce it (a machine that splits its data over notifications sends a part at a time); its
    /// total distance as the metres since the last one.
    mutating func indoorBike(_ data: IndoorBikeData, at date: Date, now: Duration) -> [QuantitySample] {
        var samples: [QuantitySample] = []
        if let speed = data.speed { samples.append(QuantitySample(type: .speed, value: speed, at: date)) }
        if let cadence = data.cadence { samples.append(QuantitySample(type: .cadence, value: cadence, at: date)) }
        // Power put into the pedals (below 0) is no power out of them.
        if let power = data.power { samples.append(QuantitySample(type: .power, value: Double(max(0, power)), at: date)) }
        if let rate = data.heartRate, rate > 0 { samples.append(QuantitySample(type: .heartRate, value: Double(rate), at: date)) }
        if let total = data.totalDistance, let covered = bikeDistance.add(total, receivedAt: now, date: date) {
            samples.append(covered)
        }
        if let level = data.resistanceLevel { readings.resistanceLevel = level }
        return samples
    }

    /// A treadmill's belt speed and heart rate; its total distance as the metres since the last
    /// one. The inclination goes to the status.
    mutating func treadmill(_ data: TreadmillData, at date: Date, now: Duration) -> [QuantitySample] {
        var samples: [QuantitySample] = []
        if let speed = data.speed { samples.append(QuantitySample(type: .speed, value: speed, at: date)) }
        if let rate = data.heartRate, rate > 0 { samples.append(QuantitySample(type: .heartRate, value: Double(rate), at: date)) }
        if let total = data.totalDistance, let covered = treadmillDistance.add(total, receivedAt: now, date: date) {
            samples.append(covered)
        }
        if let incline = data.incline { readings.inclination = incline.inclination }
        return samples
    }
}
