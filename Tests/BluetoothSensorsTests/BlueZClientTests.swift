import BluetoothSensors
import DBus
import Foundation
import GPSCore
import LocationCore
import Simulators
import Testing
import TestSupport
import Workout
import WorkoutSimulators

/// Our BlueZ client and sensors against the fake BlueZ on a private `dbus-daemon`: discovery,
/// connection, notifications, malformed values, a device that goes away and comes back, a
/// battery that runs out.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct BlueZClientTests {
    static let strapAddress = "C0:FF:EE:00:00:01"
    static let cadenceAddress = "C0:FF:EE:00:00:02"
    static let meterAddress = "C0:FF:EE:00:00:03"

    /// A private bus with a fake BlueZ.
    struct World {
        let bus: PrivateBus
        let bluez: FakeBlueZ
        var address: DBusConnection.Address { .address(bus.address) }

        init(powered: Bool = true) async throws {
            bus = try await PrivateBus()
            bluez = try await FakeBlueZ(bus: bus.address, powered: powered)
        }

        func stop() {
            bluez.stop()
            bus.stop()
        }
    }

    /// A sensor's samples, collected as they come.
    final class Collected: Sendable {
        private let samples = Watched<[QuantitySample]>([])
        private let reader: Task<Void, Never>

        init(_ stream: AsyncStream<QuantitySample>) {
            let samples = self.samples
            reader = Task { for await sample in stream { samples.change { $0.append(sample) } } }
        }

        var all: [QuantitySample] { samples.value }
        func of(_ type: QuantityType) -> [Double] { all.filter { $0.type == type }.map(\.value) }

        /// Waits until `count` samples of `type` have come: each sample read wakes it.
        func waitFor(_ count: Int, of type: QuantityType) async {
            await samples.waitUntil { all in all.count { $0.type == type } >= count }
        }

        /// Waits until a sample of `type` ending at `date` has come: one of the samples a
        /// notification gives, which come in the order the sensor yields them (a treadmill's
        /// distance after its speed).
        func waitFor(_ type: QuantityType, endingAt date: Date) async {
            await samples.waitUntil { all in all.contains { $0.type == type && $0.end == date } }
        }

        /// Waits until the stream has ended.
        func waitUntilEnded() async { await reader.value }
    }

    /// Waits for a status of `sensor` for which `condition` holds: the sensor announces each change
    /// of its connection, battery, services, drops, gaps and last error (not of its notification
    /// count), and a reader that falls behind gets the latest, so `condition` must be one that
    /// stays true until the test changes something.
    static func waitForStatus(_ sensor: BluetoothSensor, where condition: (BluetoothSensorStatus) -> Bool) async {
        for await status in sensor.statusUpdates() where condition(status) { return }
    }

    static func waitForConnection(_ sensor: BluetoothSensor, count: Int = 1) async {
        var connections = 0
        for await status in sensor.statusUpdates() {
            if status.connection == .connected { connections += 1 }
            if connections >= count { return }
        }
    }

    @Test func discoveryListsTheAdapterAndTheDevicesAScanFinds() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.bluez.add(FakeBluetoothDevice(address: Self.strapAddress, name: "HRM-Pro", sensors: [.heartRate]))
        try await world.bluez.add(FakeBluetoothDevice(address: Self.meterAddress, name: "Assioma", sensors: [.power], knownBeforeScan: false))
        let bluez = try BlueZ(bus: world.address)
        defer { bluez.close() }
        let adapters = try await bluez.adapters()
        #expect(adapters.map(\.name) == ["hci0"] && adapters.first?.isPowered == true)
        #expect(try await bluez.devices().map(\.address) == [Self.strapAddress], "the advertising meter is unknown before a scan")
        // A scan's length is real time: a short one.
        let devices = try await bluez.scan(for: .milliseconds(300))
        #expect(!world.bluez.isDiscovering, "the scan stops at its end")
        #expect(devices.map(\.address) == [Self.strapAddress, Self.meterAddress])
        #expect(devices.first?.workoutServices == ["heart rate", "battery"] && devices.first?.batteryPercent == 90)
        #expect(devices.last?.name == "Assioma" && devices.last?.rssi == -58)
    }

    @Test func aStrapGivesHeartRateAndTheTimesBetweenBeats() async throws {
        let world = try await World()
        defer { world.stop() }
        let strap = try await world.bluez.add(FakeBluetoothDevice(address: Self.strapAddress, name: "HRM-Pro", sensors: [.heartRate]))
        let sensor = BluetoothSensor(address: Self.strapAddress, bus: world.address)
        let collected = Collected(sensor.start())
        await Self.waitForConnection(sensor)
        #expect(strap.isNotifying(.heartRate) && strap.isConnected)
        #expect(sensor.status.batteryPercent == 90 && sensor.status.bodySensorLocation == .chest && sensor.status.services == ["heart rate"])
        strap.send(HeartRateMeasurement(heartRate: 142, rrIntervals: [0.421875, 0.4296875]))  // 432 and 440 1/1024 s
        strap.send(HeartRateMeasurement(heartRate: nil))  // no skin contact: no value
        strap.send(HeartRateMeasurement(heartRate: 144))
        await collected.waitFor(2, of: .heartRate)
        #expect(collected.of(.heartRate) == [142, 144])
        #expect(collected.of(.heartbeatInterval) == [0.421875, 0.4296875])
        sensor.stop()
        await collected.waitUntilEnded()
        #expect(!strap.isConnected && !strap.isNotifying(.heartRate), "stopping turns notifications off and disconnects")
        #expect(sensor.status.connection == .stopped)
    }

    /// Speed, distance and cadence from revolution counts; 0 once nothing turns for 3 s of the
    /// sensor's clock.
    @Test func aSpeedAndCadenceSensorGivesSpeedDistanceAndCadence() async throws {
        let world = try await World()
        defer { world.stop() }
        let device = try await world.bluez.add(FakeBluetoothDevice(address: Self.cadenceAddress, name: "CAD", sensors: [.speedAndCadence]))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(
            configuration: .init(address: Self.cadenceAddress, bus: world.address, wheelCircumference: 2.0), clock: clock)
        let collected = Collected(sensor.start())
        await Self.waitForConnection(sensor)
        device.send(CSCMeasurement(wheel: RevolutionData(revolutions: 100, eventTime: 0), crank: RevolutionData(revolutions: 10, eventTime: 0)))
        await clock.advance(by: .seconds(1))
        // A second later: 4 wheel turns (8 m) and 1.5 crank turns... counted as whole ones: 1 (at 0.75 s).
        device.send(CSCMeasurement(wheel: RevolutionData(revolutions: 104, eventTime: 1024), crank: RevolutionData(revolutions: 11, eventTime: 768)))
        await collected.waitFor(1, of: .cadence)
        #expect(collected.of(.speed) == [8])
        #expect(collected.of(.distance) == [8])
        #expect(collected.of(.cadence) == [80])
        // Nothing turns for 3 s: speed and cadence 0, once.
        for _ in 0..<4 {
            await clock.advance(by: .seconds(1))
            device.send(CSCMeasurement(wheel: RevolutionData(revolutions: 104, eventTime: 1024), crank: RevolutionData(revolutions: 11, eventTime: 768)))
        }
        await collected.waitFor(2, of: .cadence)
        #expect(collected.of(.speed) == [8, 0] && collected.of(.cadence) == [80, 0])
        sensor.stop()
    }

    @Test func aPowerMeterGivesPowerAndCadence() async throws {
        let world = try await World()
        defer { world.stop() }
        let meter = try await world.bluez.add(FakeBluetoothDevice(address: Self.meterAddress, name: "Assioma", sensors: [.power]))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(address: Self.meterAddress, bus: world.address, clock: clock)
        let collected = Collected(sensor.start())
        await Self.waitForConnection(sensor)
        meter.send(CyclingPowerMeasurement(power: 210, crank: RevolutionData(revolutions: 500, eventTime: 0)))
        await clock.advance(by: .seconds(1))
        meter.send(CyclingPowerMeasurement(power: 230, crank: RevolutionData(revolutions: 501, eventTime: 683)))  // 2/3 s a turn: 90 rpm
        meter.send(CyclingPowerMeasurement(power: -15))  // put into the pedals: no power out
        await collected.waitFor(3, of: .power)
        #expect(collected.of(.power) == [210, 230, 0])
        #expect(collected.of(.cadence).map { $0.rounded() } == [90])
        sensor.stop()
    }

    /// A device riding a seeded model sends what the model makes, one notification per sensor a
    /// second: the sensor reads the model's heart rates and powers, in order, and cadences and
    /// speeds near the model's (revolutions are whole: a cadence is read when a turn ends).
    @Test func aRideModelIsReadAsTheModelMadeIt() async throws {
        let world = try await World()
        defer { world.stop() }
        let device = try await world.bluez.add(
            FakeBluetoothDevice(address: Self.meterAddress, name: "Bike", sensors: [.heartRate, .speedAndCadence, .power]))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(address: Self.meterAddress, bus: world.address, clock: clock)
        let collected = Collected(sensor.start())
        await Self.waitForConnection(sensor)
        let riding = device.ride(seed: 7, clock: clock)
        defer { riding.cancel() }
        let seconds = 20
        for second in 1...seconds {
            await clock.advance(by: .seconds(1))
            await sensor.waitUntil { $0.notifications >= 3 * second }
        }
        // A notification is counted as it is read, on the bus's thread; its samples reach the
        // stream's reader a moment later.
        await collected.waitFor(seconds, of: .heartRate)
        await collected.waitFor(seconds, of: .power)
        var model = FakeBluetoothDevice.RideModel(seed: 7)
        let made = (1...seconds).map { model.next(after: 1, at: Date(timeIntervalSince1970: Double($0))) }
        let value = { (type: QuantityType) in made.map { samples in samples.first { $0.type == type }!.value } }
        #expect(collected.of(.heartRate) == value(.heartRate))
        // A power meter's power: one per second.
        #expect(collected.of(.power) == value(.power))
        let speeds = collected.of(.speed)
        #expect(speeds.count >= seconds - 2 && speeds.allSatisfy { (5...12).contains($0) }, "\(speeds)")
        // The power meter and the speed and cadence sensor both count the crank: one series, the
        // speed and cadence sensor's (a cadence a second once its first turn is counted), not two.
        let cadences = collected.of(.cadence)
        #expect(cadences.count >= seconds - 2 && cadences.count <= seconds && cadences.allSatisfy { (70...100).contains($0.rounded()) }, "\(cadences)")
        // About 2 beats a second, each interval that of the heart rate when it beat.
        let beats = collected.of(.heartbeatInterval)
        #expect(beats.count >= 2 * (seconds - 2) && beats.allSatisfy { (60.0 / 175...60.0 / 110).contains($0) }, "\(beats.count)")
        #expect(sensor.status.dropped.isEmpty)
        sensor.stop()
    }

    /// A value that is not what the specification says is dropped and counted; the next one is read.
    @Test func malformedNotificationsAreCountedAndTheNextIsRead() async throws {
        let world = try await World()
        defer { world.stop() }
        let strap = try await world.bluez.add(FakeBluetoothDevice(address: Self.strapAddress, name: "HRM-Pro", sensors: [.heartRate]))
        let sensor = BluetoothSensor(address: Self.strapAddress, bus: world.address)
        let collected = Collected(sensor.start())
        await Self.waitForConnection(sensor)
        strap.send([0x01, 0x50], as: .heartRate)  // a 16-bit rate announced, one byte sent
        strap.send([], as: .heartRate)
        strap.send([0x00, 0x50, 0x01], as: .heartRate)
        strap.send(HeartRateMeasurement(heartRate: 120))
        await collected.waitFor(1, of: .heartRate)
        #expect(collected.of(.heartRate) == [120])
        // The drops of a batch reach the status after its samples reach the reader: await them.
        await Self.waitForStatus(sensor) { $0.dropped.values.reduce(0, +) >= 3 }
        #expect(sensor.status.dropped == ["truncated": 1, "empty": 1, "trailing_bytes": 1])
        sensor.stop()
    }

    /// A device that goes away mid-workout is connected again, with backoff; the gap is counted.
    @Test func aDeviceThatGoesAwayIsConnectedAgain() async throws {
        let world = try await World()
        defer { world.stop() }
        let strap = try await world.bluez.add(FakeBluetoothDevice(address: Self.strapAddress, name: "HRM-Pro", sensors: [.heartRate]))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(address: Self.strapAddress, bus: world.address, clock: clock)
        let collected = Collected(sensor.start())
        await Self.waitForConnection(sensor)
        strap.send(HeartRateMeasurement(heartRate: 130))
        await collected.waitFor(1, of: .heartRate)
        strap.disconnect(reachable: false)
        // The sensor's wait counts from when it says it waits: the clock moved on the status itself
        // is not lost to a sleep that has not begun yet.
        await Self.waitForStatus(sensor) { if case .waitingToReconnect = $0.connection { true } else { false } }
        #expect(sensor.status.gaps == 1 && sensor.status.lastError == .connectionFailed(address: Self.strapAddress, reason: "the device disconnected"))
        // Out of range: the next attempt fails, and waits longer.
        await clock.advance(by: .seconds(1))
        await Self.waitForStatus(sensor) { $0.connection == .waitingToReconnect(after: .seconds(2), attempt: 1) }
        strap.comeBack()
        await clock.advance(by: .seconds(2))
        await Self.waitForStatus(sensor) { $0.connection == .connected }
        #expect(strap.connections == 2 && sensor.status.gapTime == .seconds(3))
        strap.send(HeartRateMeasurement(heartRate: 131))
        await collected.waitFor(2, of: .heartRate)
        #expect(collected.of(.heartRate) == [130, 131])
        sensor.stop()
    }

    /// The battery as BlueZ reports it; when it runs out the device goes, and comes back charged.
    @Test func theBatteryIsShownAndAnEmptyOneDisconnects() async throws {
        let world = try await World()
        defer { world.stop() }
        let strap = try await world.bluez.add(FakeBluetoothDevice(address: Self.strapAddress, name: "HRM-Pro", sensors: [.heartRate], batteryPercent: 15))
        let sensor = BluetoothSensor(address: Self.strapAddress, bus: world.address)
        _ = Collected(sensor.start())
        await Self.waitForConnection(sensor)
        #expect(sensor.status.batteryPercent == 15)
        strap.setBattery(3)
        await Self.waitForStatus(sensor) { $0.batteryPercent == 3 }
        strap.setBattery(0)
        await Self.waitForStatus(sensor) { $0.gaps == 1 }
        #expect(!strap.isConnected)
        sensor.stop()
    }

    @Test func aDeviceThatOnlyAdvertisesIsFoundByAScan() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.bluez.add(FakeBluetoothDevice(address: Self.meterAddress, name: "Assioma", sensors: [.power], knownBeforeScan: false))
        let sensor = BluetoothSensor(address: Self.meterAddress, bus: world.address)
        _ = Collected(sensor.start())
        await Self.waitForConnection(sensor)
        #expect(sensor.status.name == "Assioma" && sensor.status.services == ["power"])
        sensor.stop()
    }

    /// Two sensors and a scanner in one process go through its one connection to the bus; each
    /// sensor gets its own device's measurements, and goes on when the other stops.
    @Test func sensorsAndTheScannerShareOneConnection() async throws {
        let world = try await World()
        defer { world.stop() }
        let strap = try await world.bluez.add(FakeBluetoothDevice(address: Self.strapAddress, name: "HRM-Pro", sensors: [.heartRate]))
        let meter = try await world.bluez.add(FakeBluetoothDevice(address: Self.meterAddress, name: "Assioma", sensors: [.power]))
        let observer = try DBusConnection(world.address)
        defer { observer.close() }
        func connections() async throws -> Int {
            try await observer.call(
                "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "ListNames",
                returning: [String].self
            ).filter { $0.hasPrefix(":") }.count
        }
        let before = try await connections()
        let bluez = try BlueZ(bus: world.address)
        defer { bluez.close() }
        let strapSensor = BluetoothSensor(address: Self.strapAddress, bus: world.address)
        let meterSensor = BluetoothSensor(address: Self.meterAddress, bus: world.address)
        let heartRates = Collected(strapSensor.start()), powers = Collected(meterSensor.start())
        await Self.waitForConnection(strapSensor)
        await Self.waitForConnection(meterSensor)
        #expect(try await bluez.devices().count == 2)
        #expect(try await connections() == before + 1, "two sensors and a scanner, one connection")
        strap.send(HeartRateMeasurement(heartRate: 131))
        meter.send(CyclingPowerMeasurement(power: 250))
        await heartRates.waitFor(1, of: .heartRate)
        await powers.waitFor(1, of: .power)
        #expect(heartRates.all.map(\.type) == [.heartRate] && powers.all.map(\.type) == [.power], "each its own device's")
        strapSensor.stop()
        await heartRates.waitUntilEnded()
        meter.send(CyclingPowerMeasurement(power: 260))
        await powers.waitFor(2, of: .power)
        #expect(powers.of(.power) == [250, 260])
        meterSensor.stop()
        await powers.waitUntilEnded()
    }

    @Test func noBlueZOnTheBusIsSaid() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        await #expect(throws: BluetoothError.bluezUnavailable(bus: "the bus at \(bus.address)", reason: "no program owns org.bluez there")) {
            _ = try await BlueZ(bus: .address(bus.address)).adapters()
        }
        let sensor = BluetoothSensor(address: Self.strapAddress, bus: .address(bus.address))
        _ = Collected(sensor.start())
        await Self.waitForStatus(sensor) { $0.lastError != nil }
        #expect(sensor.status.lastError == .bluezUnavailable(bus: "the bus at \(bus.address)", reason: "no program owns org.bluez there"))
        sensor.stop()
    }

    @Test func aPoweredOffAdapterIsSaid() async throws {
        let world = try await World(powered: false)
        defer { world.stop() }
        let bluez = try BlueZ(bus: world.address)
        await #expect(throws: BluetoothError.adapterOff(adapter: "hci0")) { _ = try await bluez.scan(for: .seconds(1)) }
    }
}
