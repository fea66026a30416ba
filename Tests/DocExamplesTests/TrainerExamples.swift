import BluetoothSensors
import DBus
import Foundation
import Simulators
import Testing
import WorkoutSimulators

// The examples of the foot pod, treadmill and trainer API (BluetoothSensors' control of a fitness
// machine, WorkoutSimulators' fakes of them), as printed in their `///` comments and the DocC
// articles. ReadmeTests checks that each example is here; the tests below run those that need
// nothing outside the process.

enum TrainerExamples {
    // BluetoothSensors/FitnessMachineControl.swift
    static func driveATrainer() async throws {
        let trainer = BluetoothSensor(address: "C0:FF:EE:00:00:10")
        _ = trainer.start(delivering: { sample in print(sample) })
        for await status in trainer.statusUpdates() where status.connection == .connected { break }
        try await trainer.fitnessMachine.requestControl()
        try await trainer.fitnessMachine.setTargetPower(200)     // ERG: 200 W at any cadence
        try await trainer.fitnessMachine.setSimulation(IndoorBikeSimulation(grade: 4))
    }

    // BluetoothSensors/BlueZ/BluetoothDeviceFeatures.swift
    static func listFeatures() async throws {
        let bluez = try BlueZ()
        for device in try await bluez.scan(for: .seconds(5)) {
            print(device.address, try await bluez.features(of: device))
        }
        // C0:FF:EE:00:00:10 indoor bike: measures cadence, total distance, resistance level, power; takes resistance
        //   (0 to 20 by 1), power (0 W to 1,500 W by 1 W), indoor bike simulation
    }

    // DBus/DBusConnection+Typed.swift
    static func prompt(_ bus: DBusConnection, _ controlPoint: String) async throws -> [DBusValue] {
        let answer = try await bus.readingPromptly {
            try await bus.call("org.bluez", path: controlPoint, interface: "org.bluez.GattCharacteristic1", member: "ReadValue", [.variantDictionary([:])])
        }
        return answer
    }

    // WorkoutSimulators/FakeBlueZ/TrainerPhysics.swift
    static func physics() -> TrainerPhysics {
        var bike = TrainerPhysics(mass: 85)
        for _ in 0..<120 { bike.advance(by: 1, power: 200, riding: IndoorBikeSimulation(grade: 0)) }
        // bike.speed is near bike.steadySpeed(power: 200, riding: IndoorBikeSimulation(grade: 0)): 7.0 m/s
        return bike
    }

    // WorkoutSimulators/FakeBlueZ/FakeBluetoothDevice+Model.swift
    static func runATrainer(_ trainer: FakeBluetoothDevice, _ clock: VirtualClock) {
        let riding = trainer.run(clock: clock)
        defer { riding.cancel() }
        trainer.updateFitnessMachine { $0.rider = .init(power: 250, cadence: 95) }
    }
}

@Suite struct TrainerExampleTests {
    @Test func theBikeSettlesAtTheSpeedItsPowerHolds() {
        let bike = TrainerExamples.physics()
        let steady = bike.steadySpeed(power: 200, riding: IndoorBikeSimulation(grade: 0))
        #expect(abs(bike.speed - steady) < 0.01 && abs(steady - 7.0) < 0.05, "\(bike.speed) \(steady)")
    }
}
