import DBus
import Foundation
import Simulators
import Testing

/// `PrivateBus`, the bus the D-Bus tests run on, leaves nothing behind.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct PrivateBusTests {
    @Test func stoppingEndsItsConnectionsAndRemovesItsFolder() async throws {
        let bus = try await PrivateBus()
        #expect(FileManager.default.fileExists(atPath: bus.folder + "/socket"))
        let connection = try DBusConnection(.address(bus.address))
        _ = try await connection.uniqueName()
        bus.stop()
        #expect(!FileManager.default.fileExists(atPath: bus.folder), "stop() left \(bus.folder)")
        await connection.waitUntilClosed()
        _ = await bus.waitUntilExit()  // returns: dbus-daemon has exited
        bus.stop()  // again: nothing more to do
    }

    @Test func aBusLetGoRemovesItsFolder() async throws {
        var bus: PrivateBus? = try await PrivateBus()
        let folder = try #require(bus?.folder)
        #expect(FileManager.default.fileExists(atPath: folder))
        bus = nil
        #expect(!FileManager.default.fileExists(atPath: folder))
    }
}
