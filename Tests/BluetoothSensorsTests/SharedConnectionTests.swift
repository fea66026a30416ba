import BluetoothSensors
import DBus
import Foundation
import GeoClue
import GeoClueSimulators
import GPSCore
import LocationCore
import Simulators
import Testing
import TestSupport
import Workout
import WorkoutSimulators

/// A program that records a ride with a strap and takes its positions from GeoClue goes through
/// one connection to the bus for both.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct SharedConnectionTests {
    @Test func aGeoClueSourceAndASensorShareOneConnection() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let bluez = try await FakeBlueZ(bus: bus.address)
        defer { bluez.stop() }
        let strap = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:01", name: "HRM-Pro", sensors: [.heartRate]))
        let device = FakeLocationSource()
        let geoclue = try await FakeGeoClue(bus: bus.address, source: device)
        defer { geoclue.stop() }
        let agent = try await GeoClueAgent(bus: .address(bus.address))
        defer { agent.stop() }
        let observer = try DBusConnection(.address(bus.address))
        defer { observer.close() }
        func connections() async throws -> Int {
            try await observer.call(
                "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "ListNames",
                returning: [String].self
            ).filter { $0.hasPrefix(":") }.count
        }
        let before = try await connections()

        let source = GeoClueLocationSource(desktopID: "org.example.BikeComputer", bus: .address(bus.address))
        let events = LocationEventRecorder(observing: source)
        source.start()
        defer { source.stop() }
        let sensor = BluetoothSensor(address: "C0:FF:EE:00:00:01", bus: .address(bus.address))
        var samples = sensor.start().makeAsyncIterator()
        defer { sensor.stop() }
        for await status in sensor.statusUpdates() where status.connection == .connected { break }
        _ = await events.waitUntil { $0.states.contains(.watching) }
        #expect(try await connections() == before + 1, "a GeoClue source and a sensor, one connection")

        strap.send(HeartRateMeasurement(heartRate: 128))
        #expect(await samples.next()?.value == 128)
        device.send(.location(Location(latitude: 51.4779, longitude: -0.0015, horizontalAccuracy: 5, time: Date())))
        let fix = await events.waitUntil { !$0.locations.isEmpty }.locations.first
        #expect(fix.map { abs($0.latitude - 51.4779) < 1e-6 } == true)
    }
}
