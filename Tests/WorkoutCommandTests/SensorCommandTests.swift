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

    /// `workout record --sensor` three times records heart rate, cadence and power from a strap,
    /// a speed and cadence sensor and a power meter riding a seeded model, dated by the ride's
    /// fixes, into a saved workout whose laps have them. The strap drops out in the middle: a
    /// line says it was lost, another that it is back, and the JSON counts the gap.
    @Test func recordingFromThreeSensorsSavesThemPerLap() async throws {
        let bus = try await PrivateBus()
        let bluez = try await FakeBlueZ(bus: bus.address)
        defer {
            bluez.stop()
            bus.stop()
        }
        let strap = try await bluez.add(FakeBluetoothDevice(address: Self.strap, name: "HRM-Pro", sensors: [.heartRate], batteryPercent: 81))
        let cadence = try await bluez.add(FakeBluetoothDevice(address: Self.cadence, name: "CAD", sensors: [.speedAndCadence]))
        let meter = try await bluez.add(FakeBluetoothDevice(address: Self.meter, name: "Assioma", sensors: [.power]))
        // Ten measurements a second of real time each: the ride plays 10 times as fast, so one a
        // second of the ride's time.
        let riding = [strap, cadence, meter].enumerated().map { $0.element.ride(seed: UInt64($0.offset + 1), every: .milliseconds(100)) }
        defer { riding.forEach { $0.cancel() } }

        let recorder = try workout([
            "record", "--store", store, "--simulate", try writeRide(), "--speed", "10", "--activity", "cycling", "--auto-lap", "150",
            "--sensor", Self.strap, "--sensor", Self.cadence.lowercased(), "--sensor", Self.meter, "--bus", bus.address, "--json",
        ])
        // Every sensor notifying, or the recorder gone: whichever comes first.
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for device in [strap, cadence, meter] { await device.waitUntil(notifying: device.sensors[0]) }
            }
            group.addTask { _ = await recorder.waitUntilExit() }
            await group.next()
            group.cancelAll()
        }
        try #require(recorder.exitStatus == nil, "\(recorder.lines(.error))")
        // Some seconds of the ride, the strap out of range, back, and some more.
        await strap.waitUntil(sentNotifications: 30)
        strap.disconnect()
        await strap.waitUntil(connections: 2, notifying: .heartRate)
        let sentBefore = strap.sentNotifications
        await strap.waitUntil(sentNotifications: sentBefore + 50)
        recorder.send(signal: SIGINT)
        #expect(await recorder.waitUntilExit() == 0, "\(recorder.lines(.error))")

        let errors = recorder.lines(.error)
        #expect(errors.contains { $0.contains("sensor \(Self.strap) (HRM-Pro) connected: heart rate, battery 81%, worn on the chest") }, "\(errors)")
        #expect(errors.contains { $0.contains("sensor \(Self.meter) (Assioma) connected: power") }, "\(errors)")
        #expect(errors.contains { $0.contains("sensor \(Self.strap) (HRM-Pro) was lost; connecting again") }, "\(errors)")
        #expect(errors.contains { $0.contains("sensor \(Self.strap) (HRM-Pro) is back after") }, "\(errors)")
        let recorded = try json(try #require(recorder.lines(.output).first))
        let samples = try #require(recorded["samples"] as? [String: [String: Any]])
        for type in ["heart_rate", "cadence", "power", "speed", "distance", "heartbeat_interval"] {
            #expect((samples[type]?["count"] as? Int ?? 0) > 10, "\(type): \(samples[type] ?? [:])")
        }
        // The model's ranges: the values are the sensors', not made up here.
        #expect((110...175).contains(samples["heart_rate"]?["maximum"] as? Double ?? 0))
        #expect((120...320).contains(samples["power"]?["maximum"] as? Double ?? 0))
        let laps = try #require(recorded["laps"] as? [[String: Any]])
        #expect(laps.count >= 4, "\(laps.count) laps of 150 m")
        // The laps between the first (the recording starts at once: a sensor may connect a few
        // seconds into it) and the last (it may be a moment long) have cadence and power; heart
        // rate all but one at most: 150 m is under 2 s here, and the strap is gone about as long.
        let middle = laps.dropFirst().dropLast().map { $0["samples"] as? [String: Any] ?? [:] }
        #expect(middle.allSatisfy { $0["cadence"] != nil && $0["power"] != nil }, "\(middle.map(\.keys))")
        #expect(middle.filter { $0["heart_rate"] == nil }.count <= 1, "\(middle.map(\.keys))")
        let sensors = try #require(recorded["sensors"] as? [[String: Any]])
        #expect(sensors.compactMap { $0["address"] as? String } == [Self.strap, Self.cadence, Self.meter])
        #expect(sensors.allSatisfy { ($0["measurements"] as? Int ?? 0) > 10 })
        #expect(sensors.first?["gaps"] as? Int == 1 && sensors.first?["battery"] as? Int == 81)
        #expect(sensors.dropFirst().allSatisfy { $0["gaps"] as? Int == 0 })
        #expect(!strap.isConnected && !cadence.isConnected && !meter.isConnected, "the recording disconnects its sensors as it ends")
        // `workout show` prints each type to its sensors' precision: the times between beats to the millisecond.
        let shown = try await run(["show", "--store", store, try #require(recorded["id"] as? String)])
        let intervals = try #require(shown.output.first { $0.contains("heartbeat interval") }, "\(shown.output)")
        #expect(intervals.wholeMatch(of: #/  heartbeat interval avg 0\.\d{3} max \d\.\d{3} s \(\d+ samples\)/#) != nil, "\(intervals)")
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
