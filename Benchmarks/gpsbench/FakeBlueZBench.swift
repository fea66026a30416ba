import ArgumentParser
import Foundation
import WorkoutSimulators
#if canImport(Glibc)
import Glibc
#endif

/// `gpsbench fake-bluez --bus ADDRESS --device ADDRESS:SENSORS ... --every MICROSECONDS`: the fake
/// BlueZ with devices riding a seeded model (a strap, a speed and cadence sensor, a power meter)
/// or running their own (a foot pod's runner, a treadmill, a trainer), for
/// `scripts/bench.d/75-bluetooth-sensor.py` and `77-trainer.py` (and for trying `workout record
/// --sensor` by hand): prints `ready`, then serves until killed, printing each device's
/// notifications sent when it ends (on SIGTERM).
struct FakeBlueZBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-bluez",
        abstract: "Serve the fake BlueZ with devices riding a seeded model until killed.")

    @Option(help: "The D-Bus address of the bus to serve on.")
    var bus: String

    @Option(help: ArgumentHelp(
        "A device: its address and what it measures (heart-rate, speed-and-cadence, power, foot-pod, treadmill, trainer), joined by commas.",
        valueName: "address:sensor,..."))
    var device: [String]

    @Option(help: ArgumentHelp("Each device sends one notification per sensor this often.", valueName: "microseconds"))
    var every: Int = 1_000_000

    func run() async throws {
        let bluez = try await FakeBlueZ(bus: bus)
        var devices: [FakeBluetoothDevice] = []
        for (index, text) in device.enumerated() {
            let parts = text.split(separator: ":")
            guard parts.count == 7 else { throw ValidationError("--device takes AA:BB:CC:DD:EE:FF:sensor,..., not \(text)") }
            let sensors = try parts[6].split(separator: ",").map { name -> FakeBluetoothDevice.Sensor in
                switch name {
                case "heart-rate": return .heartRate
                case "speed-and-cadence": return .speedAndCadence
                case "power": return .power
                case "foot-pod": return .runningSpeedAndCadence
                case "treadmill": return .treadmill
                case "trainer": return .indoorBike
                default: throw ValidationError("no sensor \(name): heart-rate, speed-and-cadence, power, foot-pod, treadmill or trainer")
                }
            }
            let address = parts[0..<6].joined(separator: ":")
            devices.append(try await bluez.add(FakeBluetoothDevice(address: address, name: "Fake \(index + 1)", sensors: sensors)))
        }
        // A foot pod, a treadmill or a trainer runs its own; the others ride the seeded model.
        let riding = devices.enumerated().map { index, device in
            device.fitnessMachine != nil || device.sensors == [.runningSpeedAndCadence]
                ? device.run(every: .microseconds(every)) : device.ride(seed: UInt64(index + 1), every: .microseconds(every))
        }
        signal(SIGTERM, SIG_IGN)
        let terminated = DispatchSource.makeSignalSource(signal: SIGTERM)
        let (ended, end) = AsyncStream.makeStream(of: Void.self)
        terminated.setEventHandler { end.finish() }
        terminated.resume()
        _ = "ready\n".withCString { write(1, $0, strlen($0)) }
        for await _ in ended {}
        riding.forEach { $0.cancel() }
        for device in devices { print("\(device.address) sent \(device.sentNotifications)") }
        bluez.stop()
    }
}
