import DBus
import Foundation
import GPSCore
import Simulators
import Testing
import TestSupport

/// The process's one connection per bus (`DBusConnection.shared`): its holders share one unique
/// name (one socket, one thread), it lasts while one holds it, and a holder that let go can no
/// longer use it.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct DBusSharedConnectionTests {
    @Test func holdersShareOneConnectionUntilTheLastLetsGo() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let observer = try DBusConnection(.address(bus.address))
        defer { observer.close() }
        var first: DBusConnection? = try DBusConnection.shared(.address(bus.address))
        let second = try DBusConnection.shared(.address(bus.address))
        let name = try await first!.uniqueName()
        #expect(try await second.uniqueName() == name, "two holders, two connections")
        #expect(first!.isShared && second.isShared)
        let own = try DBusConnection(.address(bus.address))
        defer { own.close() }
        #expect(try await own.uniqueName() != name, "a connection of its own is not the shared one")

        let owners = try await observer.nameOwners(of: name)
        var changes = owners.makeAsyncIterator()
        #expect(await changes.next() == .some(name))
        first = nil  // one holder let go: the connection stays for the other
        #expect(try await second.nameOwner(of: "org.freedesktop.DBus") == "org.freedesktop.DBus")
        #expect(try await DBusConnection.shared(.address(bus.address)).uniqueName() == name, "a new holder finds it open")
        second.close()  // the last holder: the connection closes
        #expect(await changes.next() == .some(nil), "the shared connection left the bus")
        #expect(try await DBusConnection.shared(.address(bus.address)).uniqueName() != name, "the next holder opens a new one")
    }

    @Test func aHolderThatLetGoCannotCallThroughIt() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let holder = try DBusConnection.shared(.address(bus.address))
        let other = try DBusConnection.shared(.address(bus.address))
        defer { other.close() }
        holder.close()
        #expect(holder.isClosed && !other.isClosed)
        let error = try await #require(throws: DBusError.self) {
            try await holder.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
        }
        #expect(error.name == .disconnected && error.member == "GetId", "\(error)")
        #expect(error.bus == "the bus at \(bus.address)")
        _ = try await other.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
    }
}
