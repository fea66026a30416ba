import Foundation
import GPSCore
import Simulators
import Testing
import TestSupport
import WorkoutSimulators

/// `workout sensors` and `workout record --sensor` against the fake BlueZ on a private bus, run as
/// a user runs them (`--bus` names the bus, as `DBUS_SYSTEM_BUS_ADDRESS` would).
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct SensorCommandTests {
    static let strap = "C0:FF:EE:00:00:01"
    static let cadence = "C0:FF:EE:00:00:02"
    static let meter = "C0:FF:EE:00:00:03"

    let folder: String
    var store: String { folder + "/workouts.sqlite" }

    init() throws {
        folder = NSTemporaryDirectory() + "workout-sensors-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func workout(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(Repository.builtExecutable("workout").path, arguments)
    }

    func run(_ arguments: [String]) async throws -> (status: Int32, output: [String], error: [String]) {
        let process = try workout(arguments)
        let status = await process.waitUntilExit()
        return (status, process.lines(.output), process.lines(.error))
    }

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// A ride to the north at 8 m/s, a fix a second for an hour (longer than any test lets it
    /// run): the test ends the recording.
    func writeRide() throws -> String {
        let path = folder + "/ride.gpx"
        var text = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        let start = 1_714_557_600
        for index in 0..<3600 {
            let time = RFC3339.string(from: Date(timeIntervalSince1970: Double(start + index)), fractionDigits: 0)
            text += #"<trkpt lat="\#(51.0 + Double(index) * 8 / 111_195)" lon="0.5"><ele>20</ele><time>\#(time)</time></trkpt>"#
        }
        text += "</trkseg></trk></gpx>\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `workout sensors` lists the devices BlueZ knows and those a scan finds, with their workout
    /// services and battery; `--json` as one object each.
    @Test func sensorsListsWhatBlueZKnowsAndAScanFinds() async throws {
        let bus = try await PrivateBus()
        let bluez = try await FakeBlueZ(bus: bus.address)
        defer {
            bluez.stop()
            bus.stop()
        }
        try await bluez.add(FakeBluetoothDevice(address: Self.strap, name: "HRM-Pro", sensors: [.heartRate], batteryPercent: 64))
        try await bluez.add(FakeBluetoothDevice(address: Self.meter, name: "Assioma", sensors: [.power], batteryPercent: nil, knownBeforeScan: false))

        let known = try await run(["sensors", "--scan", "0", "--bus", bus.address])
        #expect(known.status == 0, "\(known.error)")
        #expect(known.output == ["\(Self.strap)  HRM-Pro  heart rate  -58 dBm  battery 64%"], "\(known.output)")

        let scanned = try await run(["sensors", "--scan", "0.3", "--bus", bus.address, "--json"])
        #expect(scanned.status == 0, "\(scanned.error)")
        let objects = try scanned.output.map(json)
        #expect(objects.compactMap { $0["address"] as? String } == [Self.strap, Self.meter])
        #expect(objects.last?["services"] as? [String] == ["power"] && objects.last?["name"] as? String == "Assioma")
        #expect(objects.first?["battery"] as? Int == 64 && objects.last?["battery"] == nil)
    }

    /// A foot pod, a treadmill and a trainer are listed with what they say they support: what they
    /// measure, the targets they take and their ranges (a speed in km/h in the text, m/s in the
    /// JSON), each connected for the reading and let go again; `--help` says so.
    @Test func sensorsListsFootPodsTreadmillsAndTrainersWithWhatTheySupport() async throws {
        let bus = try await PrivateBus()
        let bluez = try await FakeBlueZ(bus: bus.address)
        defer {
            bluez.stop()
            bus.stop()
        }
        let pod = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:05", name: "Stryd", sensors: [.runningSpeedAndCadence], batteryPercent: nil))
        let treadmill = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:0A", name: "Treadmill", sensors: [.treadmill], batteryPercent: nil))
        let trainer = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:10", name: "KICKR", sensors: [.indoorBike, .power], batteryPercent: nil))

        let listed = try await run(["sensors", "--scan", "0", "--bus", bus.address])
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output == [
            "C0:FF:EE:00:00:05  Stryd  running speed and cadence  -58 dBm",
            "  foot pod: measures speed, cadence, stride length, total distance, walking or running",
            "C0:FF:EE:00:00:0A  Treadmill  fitness machine  -58 dBm",
            "  treadmill: measures total distance, inclination; takes speed (1 km/h to 20 km/h by 0.01 km/h), inclination (-3 % to 15 % by 0.5 %)",
            "C0:FF:EE:00:00:10  KICKR  power, fitness machine  -58 dBm",
            "  indoor bike: measures cadence, total distance, resistance level, power; takes resistance (0 to 20 by 1), power (0 W to 1,500 W by 1 W), indoor bike simulation",
        ], "\(listed.output)")
        #expect(!pod.isConnected && !treadmill.isConnected && !trainer.isConnected, "each let go after the reading")
        #expect(pod.connections == 1 && trainer.connections == 1)

        let json = try await run(["sensors", "--scan", "0", "--bus", bus.address, "--json"])
        #expect(json.status == 0, "\(json.error)")
        let objects = try json.output.map(self.json)
        try #require(objects.count == 3, "a line per sensor: \(json.output) \(json.error)")
        #expect((objects[0]["foot_pod"] as? [String: Any])?["features"] as? [String] == ["stride length", "total distance", "walking or running"])
        let machine = try #require(objects[2]["fitness_machine"] as? [String: Any])
        #expect(machine["type"] as? String == "indoor bike" && machine["training_status"] as? String == "idle")
        #expect(machine["targets"] as? [String] == ["resistance", "power", "indoor bike simulation"])
        let power = try #require((machine["ranges"] as? [String: Any])?["power"] as? [String: Any])
        #expect(power["minimum"] as? Double == 0 && power["maximum"] as? Double == 1_500 && power["increment"] as? Double == 1 && power["unit"] as? String == "W")
        let speed = try #require(((objects[1]["fitness_machine"] as? [String: Any])?["ranges"] as? [String: Any])?["speed"] as? [String: Any])
        #expect(speed["unit"] as? String == "m/s" && abs((speed["maximum"] as? Double ?? 0) - 20 / 3.6) < 1e-9)

        let help = try await run(["sensors", "--help"])
        #expect(help.output.joined(separator: " ").contains("foot pods, treadmills, trainers"), "\(help.output)")
        #expect(help.output.joined(separator: " ").contains("the targets it takes"), "\(help.output)")
    }

    /// No BlueZ on the bus, BlueZ without an adapter, an adapter powered off, no bus at all: each
    /// exits 69 with what is missing and what to do, before anything is recorded.
    @Test func withoutBlueZOrAPoweredAdapterSensorsAndRecordExit69() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let ride = try writeRide()
        func expectUnavailable(_ needle: String, bus address: String) async throws {
            for arguments in [
                ["sensors", "--scan", "0", "--bus", address],
                ["record", "--store", store, "--simulate", ride, "--sensor", Self.strap, "--bus", address],
            ] {
                let result = try await run(arguments)
                #expect(result.status == 69, "\(arguments[0]): \(result.error)")
                #expect(result.error.contains { $0.contains(needle) }, "\(arguments[0]): \(result.error)")
            }
        }
        try await expectUnavailable("BlueZ (org.bluez) is not available on the bus at \(bus.address): no program owns org.bluez there", bus: bus.address)
        try await expectUnavailable("BlueZ (org.bluez) is not available", bus: "unix:path=\(folder)/no-bus")

        let withoutAdapter = try await FakeBlueZ(bus: bus.address, adapterAddress: nil)
        try await expectUnavailable("has no Bluetooth adapter", bus: bus.address)
        withoutAdapter.stop()

        // On a bus of its own: the bus may not yet have seen the fake before it go, and still
        // give org.bluez to that one (a fresh-clone run failed so).
        let secondBus = try await PrivateBus()
        defer { secondBus.stop() }
        let poweredOff = try await FakeBlueZ(bus: secondBus.address, powered: false)
        defer { poweredOff.stop() }
        try await expectUnavailable("The Bluetooth adapter hci0 is powered off. Turn it on (bluetoothctl power on).", bus: secondBus.address)
        let listed = FileManager.default.fileExists(atPath: store) ? try await run(["list", "--store", store]).output : []
        #expect(listed.isEmpty, "nothing was recorded: \(listed)")
    }

    @Test(arguments: [
        (["--sensor", "C0:FF:EE:00:00"], "--sensor takes a Bluetooth address"),
        (["--sensor", Self.strap, "--sensor", Self.strap.lowercased()], "is given 2 times"),
        (["--bus", "unix:path=/x"], "give a --sensor too"),
        (["--sensor", Self.strap, "--wheel-circumference", "2105"], "--wheel-circumference is in metres"),
        (["--sensor", Self.strap, "--heart-rate-simulate", "3"], "give one or the other"),
    ])
    func badSensorOptionsExit64(arguments: [String], message: String) async throws {
        let result = try await run(["record", "--store", store, "--simulate", "ride.gpx"] + arguments)
        #expect(result.status == 64)
        #expect(result.error.contains { $0.contains(message) }, "\(result.error)")
    }
}
