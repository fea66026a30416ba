import ArgumentParser
import CommandSupport
import DBus
import Foundation
import GeoClue
import GeoClueSimulators
import LocationCore
import Simulators
import Testing

// The examples of DBus, GeoClue, GeoClueSimulators and CommandSupport, as printed in their `///`
// comments and DocC articles, in functions that give them what they name. ReadmeTests checks that
// each example is here; the tests below run those that need nothing outside the process.

enum ServicesExamples {
    // DBus/DBusConnection.swift
    static func connection() async throws {
        let bus = try DBusConnection(.system)          // DBUS_SYSTEM_BUS_ADDRESS, or the usual socket
        let client = try await bus.call(
            "org.freedesktop.GeoClue2", path: "/org/freedesktop/GeoClue2/Manager",
            interface: "org.freedesktop.GeoClue2.Manager", member: "GetClient")
        _ = client
    }

    // DBus/DBusConnection.swift
    static func signals(_ bus: DBusConnection, _ clientPath: String) async throws {
        let updates = try await bus.signals(matching: DBusMatchRule(
            sender: "org.freedesktop.GeoClue2", path: clientPath,
            interface: "org.freedesktop.GeoClue2.Client", member: "LocationUpdated"))
        for await signal in updates { print(signal.arguments) }
    }

    // DBus/DBusError.swift
    static func errors(_ bus: DBusConnection) async throws {
        do {
            _ = try await bus.call("org.freedesktop.GeoClue2", path: "/org/freedesktop/GeoClue2/Manager",
                                   interface: "org.freedesktop.GeoClue2.Manager", member: "GetClient")
        } catch let error as DBusError where error.name == .serviceUnknown {
            print("GeoClue is not running on \(error.bus)")
        }
    }

    // DBus/DBusInterface.swift
    static func interface(_ bus: DBusConnection) async throws -> DBusExportedInterface {
        var agent = DBusInterface("org.freedesktop.GeoClue2.Agent")
        agent.addProperty("MaxAccuracyLevel", .uint32(8))
        agent.addMethod("AuthorizeApp", input: "su", output: "bu") { call in
            [.boolean(true), call.arguments[1]]
        }
        let exported = try await bus.export(agent, at: "/org/freedesktop/GeoClue2/Agent")
        return exported
    }

    // DBus/DBusProxy.swift
    static func proxy(_ bus: DBusConnection, _ clientPath: String) async throws {
        let client = DBusProxy(bus, destination: "org.freedesktop.GeoClue2", path: clientPath,
                               interface: "org.freedesktop.GeoClue2.Client")
        try await client.setProperty("DesktopId", to: "org.example.BikeComputer")
        try await client.call("Start")
    }

    // DBus/DBusSignal.swift
    @ExampleValues static func nameOwnerChanged() -> [Any] {
        // GeoClue's service coming and going:
        DBusMatchRule.nameOwnerChanged(of: "org.freedesktop.GeoClue2")
    }

    // DBus/DBusValue.swift
    static func values() -> [DBusValue] {
        let level: DBusValue = .uint32(8)                                    // "u"
        let path: DBusValue = .objectPath("/org/freedesktop/GeoClue2/Agent") // "o"
        let options = DBusValue.variantDictionary(["enable": .boolean(true)]) // "a{sv}"
        return [level, path, options]
    }

    // DBus.docc/DBus.md
    static func article() async throws {
        let bus = try DBusConnection(.system)
        let manager = DBusProxy(bus, destination: "org.freedesktop.GeoClue2",
                                path: "/org/freedesktop/GeoClue2/Manager", interface: "org.freedesktop.GeoClue2.Manager")
        let client = try await manager.call("GetClient")
        _ = client
    }

    // GeoClue/GeoClueAccuracyLevel.swift
    @ExampleValues static func accuracyLevels() -> [Any] {
        GeoClueAccuracyLevel(forAccuracy: 50)     // .exact
        GeoClueAccuracyLevel(forAccuracy: 3_000)  // .street
    }

    // GeoClue/GeoClueAgent.swift
    static func agent() async throws {
        let agent = try await GeoClueAgent(allowing: ["org.example.BikeComputer"])
        defer { agent.stop() }
        let source = GeoClueLocationSource(desktopID: "org.example.BikeComputer")
        _ = source
    }

    // GeoClue/GeoClueLocationSource.swift, GeoClue.docc/GeoClue.md
    static func source() async throws {
        let source = GeoClueLocationSource(desktopID: "org.example.BikeComputer")
        let manager = LocationManager(source: source)
        let fix = try await manager.requestLocation(timeout: .seconds(30))
        _ = fix
    }

    // GeoClueSimulators/FakeGeoClue.swift
    static func fakeGeoClue(_ walk: URL) async throws {
        let bus = try await PrivateBus()
        let clock = VirtualClock()
        let fake = try await FakeGeoClue(bus: bus.address, source: try ReplayRecording(contentsOf: walk).device(clock: clock))
        let agent = try await GeoClueAgent(bus: .address(bus.address))
        let manager = LocationManager(source: GeoClueLocationSource(desktopID: "org.example.App", bus: .address(bus.address)))
        _ = (fake, agent, manager)
    }

    // GeoClueSimulators.docc/GeoClueSimulators.md
    static func fakeGeoClueArticle(_ walk: URL, _ clock: VirtualClock) async throws {
        let bus = try await PrivateBus()
        let fake = try await FakeGeoClue(bus: bus.address, source: ReplayRecording(contentsOf: walk).device(clock: clock))
        let agent = try await GeoClueAgent(bus: .address(bus.address))
        let manager = LocationManager(source: GeoClueLocationSource(desktopID: "org.example.App", bus: .address(bus.address)))
        _ = (fake, agent, manager)
    }

    // GeoClueSimulators/SystemGeoClue.swift
    static func systemGeoClue() async throws {
        let bus = try await PrivateBus()
        let receiver = try NMEASocketServer(path: bus.folder + "/nmea.sock")
        let geoclue = try await SystemGeoClue(bus: bus, nmeaSocket: receiver.path)
        let agent = try await GeoClueAgent(bus: .address(bus.address))
        // ...GeoClueLocationSource(desktopID:bus: .address(bus.address)) now gets what receiver plays
        _ = (geoclue, agent)
    }

    // CommandSupport/ExitStatus.swift
    static func exitStatus(_ error: any Error) throws {
        Output.error("locate once: \(error)")
        throw ExitCode(.unavailable)
    }
}

/// The examples that need nothing outside the process do what their comments say.
@Suite("API reference examples: services")
struct ServicesExampleTests {
    @Test func theValuesAreTheOnesTheExamplesSay() {
        let levels = ServicesExamples.accuracyLevels().compactMap { $0 as? GeoClueAccuracyLevel }
        #expect(levels == [.exact, .street])
        #expect(ServicesExamples.values().map(\.signature) == ["u", "o", "a{sv}"])
        #expect(ServicesExamples.nameOwnerChanged().first is DBusMatchRule)
    }
}
