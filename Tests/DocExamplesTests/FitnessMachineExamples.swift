import BluetoothGATT
import Testing

// The examples of BluetoothGATT's foot pod and fitness machine values, as printed in their `///`
// comments and the module's DocC article. ReadmeTests checks that each example is here; the tests
// below run them.

enum FitnessMachineExamples {
    // BluetoothGATT/RunningSpeedAndCadence.swift
    static func footPod() throws -> RSCMeasurement {
        let stride = try RSCMeasurement(bytes: [0x07, 0x00, 0x03, 0xAA, 0x8C, 0x00, 0x10, 0x27, 0x00, 0x00])
        // stride.speed == 3.0 m/s, stride.cadence == 170, stride.strideLength == 1.4, stride.isRunning
        return stride
    }

    // BluetoothGATT/FitnessMachineFeature.swift
    static func features() throws -> FitnessMachineFeature {
        let features = try FitnessMachineFeature(bytes: [0x02, 0x40, 0x00, 0x00, 0x08, 0x20, 0x00, 0x00])
        // features.machine == [.cadence, .powerMeasurement], features.targets == [.power, .indoorBikeSimulation]
        return features
    }

    // BluetoothGATT/IndoorBikeData.swift
    static func ride() throws -> IndoorBikeData {
        let ride = try IndoorBikeData(bytes: [0x44, 0x00, 0xE8, 0x03, 0xB4, 0x00, 0xFA, 0x00])
        // ride.speed == 10 km/h in m/s, ride.cadence == 90, ride.power == 250
        return ride
    }

    // BluetoothGATT/TreadmillData.swift
    static func run() throws -> TreadmillData {
        let run = try TreadmillData(bytes: [0x0C, 0x00, 0x52, 0x03, 0xDC, 0x05, 0x00, 0x0F, 0x00, 0x14, 0x00])
        // run.speed == 8.5 km/h in m/s, run.totalDistance == 1500, run.incline == 1.5 % at 2.0°
        return run
    }

    // BluetoothGATT/SupportedRange.swift
    @ExampleValues static func ranges() throws -> [Any] {
        let speeds = try SupportedRange(.speed, bytes: [0x64, 0x00, 0xD0, 0x07, 0x0A, 0x00])  // 1 to 20 km/h by 0.1
        try speeds.check(10 / 3.6)       // 10 km/h: inside, and on a step
        speeds.contains(25 / 3.6)        // false
    }

    // BluetoothGATT/FitnessMachineControlPoint.swift
    static func controlPoint() throws -> (FitnessMachineControlPoint.Request, [UInt8]) {
        let request = FitnessMachineControlPoint.Request.setIndoorBikeSimulation(IndoorBikeSimulation(grade: 4.5))
        let written = try request.bytes          // [0x11, 0x00, 0x00, 0xC2, 0x01, 0x28, 0x33]
        let read = try FitnessMachineControlPoint.Request(bytes: written)  // what a trainer reads
        return (read, written)
    }

    // BluetoothGATT/FitnessMachineControlPoint+Response.swift
    static func response() throws -> FitnessMachineControlPoint.Response {
        let answer = try FitnessMachineControlPoint.Response(bytes: [0x80, 0x05, 0x01])
        // answer.opCode == .setTargetPower, answer.result == .success
        return answer
    }

    // BluetoothGATT/FitnessMachineStatus.swift
    static func status() throws -> FitnessMachineStatus {
        let status = try FitnessMachineStatus(bytes: [0x08, 0xC8, 0x00])  // .targetPowerChanged(200)
        return status
    }

    // BluetoothGATT/TrainingStatus.swift
    static func training() throws -> TrainingStatus {
        let training = try TrainingStatus(bytes: [0x01, 0x02, 0x57, 0x61, 0x72, 0x6D])  // .warmingUp, "Warm"
        return training
    }

    // BluetoothGATT.docc/BluetoothGATT.md
    static func article(_ range: SupportedRange) throws -> [UInt8] {
        let trainer = try IndoorBikeData(bytes: [0x44, 0x00, 0xE8, 0x03, 0xB4, 0x00, 0xFA, 0x00])
        // trainer.power == 250, trainer.cadence == 90
        try range.check(300)                                      // before asking for 300 W
        let request = try FitnessMachineControlPoint.Request.setTargetPower(300).bytes
        _ = trainer
        return request
    }
}

/// The examples do what their comments say.
@Suite("API reference examples: foot pods and fitness machines")
struct FitnessMachineExampleTests {
    @Test func theyReadWhatTheySay() throws {
        let stride = try FitnessMachineExamples.footPod()
        #expect(stride.speed == 3 && stride.cadence == 170 && stride.strideLength == 1.4 && stride.isRunning)
        let features = try FitnessMachineExamples.features()
        #expect(features.machine == [.cadence, .powerMeasurement] && features.targets == [.power, .indoorBikeSimulation])
        let ride = try FitnessMachineExamples.ride()
        #expect(ride.speed == 1000.0 / 360 && ride.cadence == 90 && ride.power == 250)
        let run = try FitnessMachineExamples.run()
        #expect(run.speed == 850.0 / 360 && run.totalDistance == 1500 && run.incline == .init(inclination: 1.5, rampAngle: 2))
        #expect(try FitnessMachineExamples.ranges().last as? Bool == false)
        let (read, written) = try FitnessMachineExamples.controlPoint()
        #expect(written == [0x11, 0x00, 0x00, 0xC2, 0x01, 0x28, 0x33] && read == .setIndoorBikeSimulation(IndoorBikeSimulation(grade: 4.5)))
        let answer = try FitnessMachineExamples.response()
        #expect(answer.opCode == .setTargetPower && answer.result == .success)
        #expect(try FitnessMachineExamples.status() == .targetPowerChanged(200))
        #expect(try FitnessMachineExamples.training() == TrainingStatus(status: .warmingUp, string: "Warm"))
        #expect(try FitnessMachineExamples.article(SupportedRange(.power, minimum: 0, maximum: 2000, increment: 1)) == [0x05, 0x2C, 0x01])
    }
}
