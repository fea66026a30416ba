import ArgumentParser
import BluetoothGATT

/// `gpsbench gatt-decode --count N`: the time to decode one notification of a Heart Rate
/// Measurement, Indoor Bike Data, Treadmill Data and an RSC Measurement, each from 64 different
/// values as a device sends them (every field its kind has), for
/// `scripts/bench.d/76-gatt-decoders.py`. The four take turns in rounds, so each is measured
/// beside the others on the same machine at the same time; the median round counts. Prints JSON:
/// nanoseconds per notification for each, and the first value's bytes (for the peers).
struct GATTDecodeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt-decode",
        abstract: "Decode Bluetooth notifications of four kinds in turns; print nanoseconds per notification as JSON.")

    @Option(help: "Notifications of each kind decoded per round.")
    var count = 200_000

    @Option(help: "Rounds (the median counts).")
    var rounds = 7

    func run() throws {
        let values = 0..<64
        let strap = values.map { HeartRateMeasurement(heartRate: 120 + $0, energyExpended: 400 + $0, rrIntervals: [0.5 + Double($0) / 1024]).bytes }
        let bike = values.map { index in
            IndoorBikeData(speed: 8 + Double(index) / 10, averageSpeed: 7.5, cadence: 85 + Double(index) / 2, averageCadence: 84,
                           totalDistance: Double(10_000 + index), resistanceLevel: 12, power: 200 + index, averagePower: 190,
                           expendedEnergy: ExpendedEnergy(total: 300 + index, perHour: 700, perMinute: 12), heartRate: 140 + index % 20,
                           metabolicEquivalent: 8.5, elapsedTime: .seconds(1_800 + index), remainingTime: .seconds(600)).bytes
        }
        let treadmill = values.map { index in
            TreadmillData(speed: 3 + Double(index) / 100, averageSpeed: 2.9, totalDistance: Double(5_000 + index),
                          incline: .init(inclination: 1.5, rampAngle: 0.9), elevationGain: .init(positive: 12.3, negative: 4.5),
                          pace: 0.2, averagePace: 0.2, expendedEnergy: ExpendedEnergy(total: 250 + index, perHour: 650, perMinute: 11),
                          heartRate: 150 + index % 20, metabolicEquivalent: 9.2, elapsedTime: .seconds(1_200 + index),
                          remainingTime: .seconds(600), beltForce: .init(force: 20, powerOutput: 180)).bytes
        }
        let footPod = values.map { RSCMeasurement(speed: 3 + Double($0) / 100, cadence: 170 + $0 % 10, strideLength: 1.2, totalDistance: Double(4_000 + $0), isRunning: true).bytes }

        let kinds: [(String, ([UInt8]) -> Int)] = [
            ("heart_rate_measurement", { (try? HeartRateMeasurement(bytes: $0))?.heartRate ?? 0 }),  // all decode: the sum shows it
            ("indoor_bike_data", { (try? IndoorBikeData(bytes: $0))?.power ?? 0 }),
            ("treadmill_data", { (try? TreadmillData(bytes: $0))?.heartRate ?? 0 }),
            ("rsc_measurement", { (try? RSCMeasurement(bytes: $0))?.cadence ?? 0 }),
        ]
        let inputs = [strap, bike, treadmill, footPod]
        var times = Array(repeating: [Double](), count: kinds.count)
        var checksums = Array(repeating: 0, count: kinds.count)
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            for (index, (_, decode)) in kinds.enumerated() {
                let notifications = inputs[index]
                var sum = 0
                let started = clock.now
                for step in 0..<count { sum &+= decode(notifications[step & 63]) }
                let elapsed = clock.now - started
                times[index].append((Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(count))
                checksums[index] = sum
            }
        }
        let fields = kinds.indices.map { index in
            let sorted = times[index].sorted()
            let hex = inputs[index][0].map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            return #""\#(kinds[index].0)":{"ns":\#(sorted[sorted.count / 2]),"bytes":\#(inputs[index][0].count),"hex":"\#(hex)","#
                + #""checksum":\#(checksums[index])}"#
        }
        print("{" + fields.joined(separator: ",") + #","count":\#(count)}"#)
    }
}
