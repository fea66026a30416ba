import DBus
import Foundation
import Simulators
import Testing
import TestSupport

/// Objects of our own on the bus: properties read and set through `org.freedesktop.DBus.Properties`
/// with their changes announced, signals in order, introspection, object managers and names; and
/// the same objects held to clients we did not write (GLib's `gdbus`, libdbus's `dbus-send`).
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct DBusObjectTests {
    @Test func propertiesAreReadOneByOneAndAllAtOnce() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        #expect(try await test.client.property("Level", of: DBusTestBus.interface, at: DBusTestBus.path, on: DBusTestBus.service) == .uint32(8))
        let all = try await test.client.properties(of: DBusTestBus.interface, at: DBusTestBus.path, on: DBusTestBus.service)
        #expect(all == ["Level": .uint32(8), "Name": .string("first")])
    }

    @Test func aWritablePropertyIsSetThroughItsHandlerAndItsChangeAnnounced() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let changes = try await test.client.signals(matching: DBusMatchRule(
            path: DBusTestBus.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await test.client.setProperty("Name", of: DBusTestBus.interface, at: DBusTestBus.path, on: DBusTestBus.service, to: "second")
        #expect(test.setValues.recorded == ["second"])
        #expect(test.exported.value(of: "Name") == "second")
        var iterator = changes.makeAsyncIterator()
        let change = try #require(await iterator.next())
        #expect(change.arguments.first == .string(DBusTestBus.interface))
        #expect(change.arguments.dropFirst().first?.stringKeyedValue == ["Name": "second"])
    }

    @Test func aSetTheHandlerRefusesChangesNothing() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let error = try await #require(throws: DBusError.self) {
            try await test.client.setProperty("Name", of: DBusTestBus.interface, at: DBusTestBus.path, on: DBusTestBus.service, to: "refused")
        }
        #expect(error.name == .accessDenied && error.message == "not that name")
        #expect(test.exported.value(of: "Name") == "first")
        let readOnly = try await #require(throws: DBusError.self) {
            try await test.client.setProperty("Level", of: DBusTestBus.interface, at: DBusTestBus.path, on: DBusTestBus.service, to: .uint32(1))
        }
        #expect(readOnly.name == .propertyReadOnly, "\(readOnly)")
        #expect(test.exported.value(of: "Level") == .uint32(8))
    }

    @Test func aPropertyChangedByItsOwnerIsAnnouncedWithItsValue() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let changes = try await test.client.signals(matching: DBusMatchRule(sender: DBusTestBus.service, member: "PropertiesChanged"))
        try test.exported.setValue(.uint32(4), for: "Level")
        try test.exported.setValue(.uint32(4), for: "Level")  // unchanged: not announced again
        try test.exported.setValue(.uint32(6), for: "Level")
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.arguments.dropFirst().first?.stringKeyedValue == ["Level": .uint32(4)])
        #expect(await iterator.next()?.arguments.dropFirst().first?.stringKeyedValue == ["Level": .uint32(6)])
        #expect(try await test.client.property("Level", of: DBusTestBus.interface, at: DBusTestBus.path, on: DBusTestBus.service) == .uint32(6))
        #expect(throws: DBusError.self) { try test.exported.setValue(.string("wrong type"), for: "Level") }
        #expect(throws: DBusError.self) { try test.exported.setValue(.uint32(1), for: "Absent") }
    }

    @Test func signalsArriveInOrder() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let rule = DBusMatchRule(sender: DBusTestBus.service, path: DBusTestBus.path, interface: DBusTestBus.interface, member: "Tick")
        let ticks = try await test.client.signals(matching: rule)
        for index in 0..<50 { try test.exported.emit("Tick", [.uint32(UInt32(index)), .uint64(UInt64(index) * 1000)]) }
        var received: [Int] = []
        for await tick in ticks {
            received.append(tick.arguments.first?.intValue ?? -1)
            if received.count == 50 { break }
        }
        #expect(received == Array(0..<50))
        #expect(throws: DBusError.self) { try test.exported.emit("Tick", [.string("wrong")]) }
        #expect(throws: DBusError.self) { try test.exported.emit("Tock") }
    }

    @Test func aSignalStreamEndsWhenTheConnectionCloses() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let ticks = try await test.client.signals(matching: DBusMatchRule(member: "Tick"))
        test.client.close()
        var count = 0
        for await _ in ticks { count += 1 }
        #expect(count == 0)
    }

    @Test func aMatchTheBusRefusesIsAnError() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        await #expect(throws: DBusError.self) {
            _ = try await test.client.signals(matching: DBusMatchRule(path: "not a path"))
        }
    }

    @Test func introspectionListsWhatWasExported() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let reply = try await test.client.call(
            DBusTestBus.service, path: DBusTestBus.path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        let xml = try #require(reply.first?.stringValue)
        for name in ["<interface name=\"org.example.Echo\">", "<method name=\"Swap\">", "<property name=\"Level\" type=\"u\" access=\"read\">",
                     "<property name=\"Name\" type=\"s\" access=\"readwrite\">", "<signal name=\"Tick\">"] {
            #expect(xml.contains(name), "\(name) in \(xml)")
        }
    }

    @Test func namesHaveOwnersWhoComeAndGo() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        #expect(try await test.client.nameOwner(of: DBusTestBus.service) == (try await test.server.uniqueName()))
        #expect(try await test.client.nameOwner(of: "org.example.Nobody") == nil)
        let owners = try await test.client.nameOwners(of: "org.example.Later")
        var iterator = owners.makeAsyncIterator()
        #expect(await iterator.next() == .some(nil))
        let later = try DBusConnection(.address(test.bus.address))
        try await later.requestName("org.example.Later")
        #expect(await iterator.next() == .some(try await later.uniqueName()))
        await #expect(throws: DBusError.self) { try await test.server.requestName("org.example.Later") }
        later.close()
        #expect(await iterator.next() == .some(nil))
    }

    @Test func anObjectManagerListsAndAnnouncesTheObjectsBelowIt() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let manager = try await test.server.addObjectManager(at: "/org/example")
        defer { manager.cancel() }
        let announcements = try await test.client.signals(matching: DBusMatchRule(
            sender: DBusTestBus.service, interface: "org.freedesktop.DBus.ObjectManager"))
        var sensor = DBusInterface("org.example.Sensor")
        sensor.addProperty("Rate", .uint32(60))
        let exported = try await test.server.export(sensor, at: "/org/example/sensors/one")
        exported.announce()
        var iterator = announcements.makeAsyncIterator()
        let added = try #require(await iterator.next())
        #expect(added.member == "InterfacesAdded")
        #expect(added.arguments.first == .objectPath("/org/example/sensors/one"))
        #expect(added.arguments.dropFirst().first?.stringKeyedValue?["org.example.Sensor"]?.stringKeyedValue == ["Rate": .uint32(60)])

        let managed = try await test.client.call(
            DBusTestBus.service, path: "/org/example", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
        let objects = try #require(managed.first?.stringKeyedValue)
        #expect(objects["/org/example/sensors/one"]?.stringKeyedValue?["org.example.Sensor"]?.stringKeyedValue == ["Rate": .uint32(60)])
        #expect(objects["/org/example/Echo"] != nil)

        exported.remove(announcing: true)
        let removed = try #require(await iterator.next())
        #expect(removed.member == "InterfacesRemoved")
        #expect(removed.arguments == [.objectPath("/org/example/sensors/one"), .stringArray(["org.example.Sensor"])])
        let after = try await test.client.call(
            DBusTestBus.service, path: "/org/example", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
        #expect(after.first?.stringKeyedValue?["/org/example/sensors/one"] == nil)
    }

    // MARK: - Held to clients we did not write

    /// GLib's D-Bus implementation (`gdbus`) calls our method and reads our property.
    @Test(.enabled(if: Repository.hasProgram("gdbus"), "needs gdbus (libglib2.0-bin)"))
    func gdbusCallsOurObjects() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let called = try ChildProcess("gdbus", [
            "call", "--address", test.bus.address, "--dest", DBusTestBus.service, "--object-path", DBusTestBus.path,
            "--method", "org.example.Echo.Swap", "one", "2", "3.5",
        ])
        #expect(await called.waitUntilExit() == 0, "\(called.lines(.error))")
        #expect(called.lines() == ["(3.5, 2, 'one')"])
        let read = try ChildProcess("gdbus", [
            "call", "--address", test.bus.address, "--dest", DBusTestBus.service, "--object-path", DBusTestBus.path,
            "--method", "org.freedesktop.DBus.Properties.Get", DBusTestBus.interface, "Level",
        ])
        #expect(await read.waitUntilExit() == 0, "\(read.lines(.error))")
        #expect(read.lines() == ["(<uint32 8>,)"])
    }

    /// libdbus's `dbus-send` sends a signal our stream receives, and reads a property of the
    /// bus itself through our connection's peer.
    @Test(.enabled(if: Repository.hasProgram("dbus-send"), "needs dbus-send (dbus-bin)"))
    func dbusSendSignalsReachOurStream() async throws {
        let test = try await DBusTestBus()
        defer { test.stop() }
        let signals = try await test.client.signals(matching: DBusMatchRule(interface: "org.example.Outside", member: "Hello"))
        let sent = try ChildProcess("dbus-send", [
            "--bus=\(test.bus.address)", "--type=signal", "/org/example/Outside", "org.example.Outside.Hello",
            "string:from libdbus", "uint32:7", "array:int32:1,2,3",
        ])
        #expect(await sent.waitUntilExit() == 0, "\(sent.lines(.error))")
        var iterator = signals.makeAsyncIterator()
        let signal = try #require(await iterator.next())
        #expect(signal.path == "/org/example/Outside")
        #expect(signal.arguments == ["from libdbus", .uint32(7), .array(element: "i", [.int32(1), .int32(2), .int32(3)])])
        let features = try await test.client.property("Features", of: "org.freedesktop.DBus", at: "/org/freedesktop/DBus", on: "org.freedesktop.DBus")
        #expect(features.arrayValue != nil)
    }
}
