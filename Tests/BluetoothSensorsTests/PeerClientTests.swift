import BluetoothSensors
import DBus
import Foundation
import Simulators
import Testing
import TestSupport
import WorkoutSimulators

/// The fake BlueZ held to BlueZ by a client we did not write: bleak (PyPI, over dbus-fast) finds
/// the strap by a scan, connects, reads where it is worn, and reads the same heart rates from the
/// same notifications as our sensor, each decoded by its own code.
@Suite(
    .enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"),
    .enabled(if: BLEPeers.isAvailable, "\(BLEPeers.missing)"),
    .timeLimit(.minutes(1)))
struct PeerClientTests {
    /// What the strap sends: every form of the measurement a strap may send.
    static let sent: [HeartRateMeasurement] = [
        HeartRateMeasurement(heartRate: 72),
        HeartRateMeasurement(heartRate: 141, rrIntervals: [0.42578125]),
        HeartRateMeasurement(heartRate: 300, rrIntervals: [0.2001953125, 0.19921875]),  // past 255: 16 bits
        HeartRateMeasurement(heartRate: 150, energyExpended: 1234, rrIntervals: [0.400390625]),
        HeartRateMeasurement(heartRate: nil),  // contact sensed, none: no value
        HeartRateMeasurement(heartRate: 152, contactSupported: false),  // no contact sensing
        HeartRateMeasurement(heartRate: 153, rrIntervals: [0.390625, 0.392578125, 0.3935546875]),
    ]

    @Test func bleakReadsTheSameHeartRatesAsOurSensor() async throws {
        let bus = try await PrivateBus()
        let bluez = try await FakeBlueZ(bus: bus.address)
        defer {
            bluez.stop()
            bus.stop()
        }
        let strap = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:01", name: "HRM-Pro", sensors: [.heartRate], batteryPercent: 77))
        let bleak = try ChildProcess(
            try #require(BLEPeers.python), [BLEPeers.script("bleak_heart_rate.py"), strap.address, "\(Self.sent.count)"],
            environment: ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "BLEAK_LOGGING": "1"]) { $1 })
        defer { bleak.terminate() }
        let found = await bleak.waitForLine { $0 == "ready" || $0.contains("error") }
        try #require(found == "ready", "bleak: \(bleak.lines(.output)) \(bleak.lines(.error).suffix(40).joined(separator: "\n"))")
        let device = try #require(try JSONSerialization.jsonObject(with: Data(bleak.lines(.output)[0].utf8)) as? [String: Any])
        #expect(device["name"] as? String == "HRM-Pro")
        #expect(device["body_location"] as? Int == Int(BodySensorLocation.chest.rawValue))
        #expect((device["services"] as? [String])?.contains(BluetoothUUID.heartRateService) == true)
        // Ours joins the connection bleak made (a connected strap no longer advertises: bleak,
        // which finds devices by their advertisements, has to come first).
        let sensor = BluetoothSensor(address: strap.address, bus: .address(bus.address))
        let ours = BlueZClientTests.Collected(sensor.start())
        await BlueZClientTests.waitForConnection(sensor)
        #expect(strap.connections == 1)
        #expect(sensor.status.batteryPercent == 77 && sensor.status.bodySensorLocation == .chest)

        for measurement in Self.sent { #expect(strap.send(measurement)) }
        #expect(await bleak.waitUntilExit() == 0, "\(bleak.lines(.error).suffix(5))")
        let read = try bleak.lines(.output).dropFirst(2).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        // The bytes bleak got are those sent, in order; its decoding and ours agree with what was sent.
        #expect(read.compactMap { $0["bytes"] as? String } == Self.sent.map { $0.bytes.map { String(format: "%02x", $0) }.joined() })
        let expectedRates = Self.sent.compactMap(\.heartRate).map(Double.init)
        #expect(read.compactMap { $0["heart_rate"] as? Double } == expectedRates)
        #expect(read.flatMap { $0["rr"] as? [Double] ?? [] } == Self.sent.flatMap(\.rrIntervals))
        await ours.waitFor(expectedRates.count, of: .heartRate)
        #expect(ours.of(.heartRate) == expectedRates)
        #expect(ours.of(.heartbeatInterval) == Self.sent.flatMap(\.rrIntervals))
        sensor.stop()
    }
}

/// Our client held to a BlueZ we did not write: python-dbusmock's `bluez5` template (Debian's
/// python3-dbusmock), with the GATT objects of a heart-rate strap added by a template of ours
/// (`scripts/peers/bluez5_gatt.py`, written from BlueZ's API documentation). It differs from our
/// fake where BlueZ may: the services are there before connecting (a known device's cache), and
/// `Connect` on a connected device is refused (`AlreadyConnected`).
@Suite(
    .enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"),
    .enabled(if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock"), "needs python3-dbusmock: scripts/test installs it"),
    .timeLimit(.minutes(1)))
struct DBusMockBlueZTests {
    static let address = "C0:FF:EE:00:00:07"

    /// dbusmock's BlueZ on a private bus, an adapter, and a strap with its heart-rate service.
    struct Mock {
        let bus: PrivateBus
        let process: ChildProcess
        let connection: DBusConnection
        let control: DBusProxy
        let device: String
        var measurement: String { device + "/service000c/char000d" }

        init() async throws {
            bus = try await PrivateBus()
            process = try ChildProcess(
                "/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", BLEPeers.script("bluez5_gatt.py")],
                environment: ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bus.address]) { $1 })
            connection = try DBusConnection(.address(bus.address))
            for await owner in try await connection.nameOwners(of: "org.bluez") where owner != nil { break }
            control = DBusProxy(connection, destination: "org.bluez", path: "/", interface: "org.bluez.Mock")
            _ = try await control.call("AddAdapter", ["hci0", "test"])
            device = try #require(try await control.call("AddDevice", ["hci0", .string(DBusMockBlueZTests.address), "Polar H10"]).first?.stringValue)
            _ = try await control.call("AddHeartRateService", [.objectPath(device), .byte(55)])
        }

        func stop() {
            connection.close()
            process.terminate()
            bus.stop()
        }

        func notify(_ bytes: [UInt8]) async throws {
            _ = try await control.call("Notify", [.objectPath(measurement), .array(element: "y", bytes.map(DBusValue.byte))])
        }

        func property(_ name: String, of path: String, _ interface: String) async throws -> DBusValue {
            try await DBusProxy(connection, destination: "org.bluez", path: path, interface: interface).property(name)
        }
    }

    @Test func ourSensorReadsAStrapOnDBusMocksBlueZ() async throws {
        let mock = try await Mock()
        defer { mock.stop() }
        let bluez = try BlueZ(bus: .address(mock.bus.address))
        defer { bluez.close() }
        let known = try #require(try await bluez.devices().first)
        #expect(known.address == Self.address && known.name == "Polar H10")
        #expect(known.workoutServices == ["heart rate", "battery"] && known.batteryPercent == 55 && !known.isConnected)

        let sensor = BluetoothSensor(address: Self.address, bus: .address(mock.bus.address))
        let collected = BlueZClientTests.Collected(sensor.start())
        await BlueZClientTests.waitForConnection(sensor)
        #expect(sensor.status.name == "Polar H10" && sensor.status.batteryPercent == 55 && sensor.status.bodySensorLocation == .chest)
        #expect(try await mock.property("Notifying", of: mock.measurement, "org.bluez.GattCharacteristic1").boolValue == true)

        let sent = [
            HeartRateMeasurement(heartRate: 64, rrIntervals: [0.9375]),
            HeartRateMeasurement(heartRate: 260),
            HeartRateMeasurement(heartRate: nil),
            HeartRateMeasurement(heartRate: 66, energyExpended: 12),
        ]
        for value in sent { try await mock.notify(value.bytes) }
        try await mock.notify([0x10])  // RR intervals announced, no rate: malformed
        await collected.waitFor(3, of: .heartRate)
        await BlueZClientTests.waitForStatus(sensor) { $0.dropped["truncated"] == 1 }
        #expect(collected.of(.heartRate) == [64, 260, 66])
        #expect(collected.of(.heartbeatInterval) == [0.9375])
        sensor.stop()
        await sensor.waitUntilIdle()
        #expect(try await mock.property("Notifying", of: mock.measurement, "org.bluez.GattCharacteristic1").boolValue == false, "stopping turns notifications off")
        #expect(try await mock.property("Connected", of: mock.device, "org.bluez.Device1").boolValue == false, "and disconnects what it connected")
    }

    /// A strap another program has connected (a phone app, bleak) is read on that connection, and
    /// left connected when the sensor stops.
    @Test func aStrapAnotherProgramConnectedIsLeftConnected() async throws {
        let mock = try await Mock()
        defer { mock.stop() }
        _ = try await DBusProxy(mock.connection, destination: "org.bluez", path: mock.device, interface: "org.bluez.Device1").call("Connect")
        let sensor = BluetoothSensor(address: Self.address, bus: .address(mock.bus.address))
        let collected = BlueZClientTests.Collected(sensor.start())
        await BlueZClientTests.waitForConnection(sensor)
        try await mock.notify(HeartRateMeasurement(heartRate: 99).bytes)
        await collected.waitFor(1, of: .heartRate)
        sensor.stop()
        await sensor.waitUntilIdle()
        #expect(try await mock.property("Notifying", of: mock.measurement, "org.bluez.GattCharacteristic1").boolValue == false)
        #expect(try await mock.property("Connected", of: mock.device, "org.bluez.Device1").boolValue == true)
    }
}
