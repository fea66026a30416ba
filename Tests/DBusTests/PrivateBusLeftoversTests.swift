import Foundation
import Simulators
import Testing

/// What a process killed outright leaves of its private bus (a running `dbus-daemon` and its
/// folder under the temporary directory) is stopped and removed by the next bus made on the
/// machine; a live owner's bus, and a process that took a gone daemon's pid, are left alone.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct PrivateBusLeftoversTests {
    /// A folder `private-bus-OWNER-SUFFIX` in `directory`, with a bus configuration and, when
    /// given, the daemon's pid as a bus writes them.
    static func folder(in directory: String, owner: pid_t, _ suffix: String, daemon: pid_t? = nil) throws -> String {
        let folder = directory + "/private-bus-\(owner)-\(suffix)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try PrivateBus.configuration(listeningOn: folder + "/socket").write(toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        if let daemon { try "\(daemon)\n".write(toFile: folder + "/daemon.pid", atomically: true, encoding: .utf8) }
        return folder
    }

    @Test func aKilledOwnersBusIsStoppedAndRemoved() async throws {
        let directory = NSTemporaryDirectory() + "bus-leftovers-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }  // a temporary folder: nothing to keep
        // An owner that has gone: a process started and reaped.
        let ended = try ChildProcess("/bin/true", [])
        _ = await ended.waitUntilExit()
        let gone = ended.processIdentifier

        // The killed owner's bus, its daemon still running.
        let left = try Self.folder(in: directory, owner: gone, "a1b2c3")
        let daemon = try ChildProcess(try #require(PrivateBus.executable), ["--config-file=" + left + "/bus.conf", "--nofork", "--nopidfile", "--print-address=1"])
        #expect(await daemon.waitForLine { $0.hasPrefix("unix:") } != nil, "\(daemon.lines(.error))")
        try "\(daemon.processIdentifier)\n".write(toFile: left + "/daemon.pid", atomically: true, encoding: .utf8)
        // A gone owner's folder whose pid file names a process that is not its daemon (the pid
        // taken since), and a live owner's bus folder (this process's).
        let stranger = try ChildProcess("/bin/cat", [])  // reads its open input: running until told
        let reused = try Self.folder(in: directory, owner: gone, "d4e5f6", daemon: stranger.processIdentifier)
        let live = try Self.folder(in: directory, owner: getpid(), "g7h8i9", daemon: stranger.processIdentifier)

        PrivateBus.removeLeftovers(in: directory)
        _ = await daemon.waitUntilExit()  // the suite's time limit fails a daemon left running
        #expect(!FileManager.default.fileExists(atPath: left), "the killed owner's folder removed")
        #expect(!FileManager.default.fileExists(atPath: reused))
        #expect(stranger.exitStatus == nil, "the process that took the pid is not stopped")
        #expect(FileManager.default.fileExists(atPath: live + "/bus.conf"), "a live owner's bus is left alone")
        stranger.terminate()
        _ = await stranger.waitUntilExit()
    }

    /// A bus's own folder is named for its process, so that the next one can tell.
    @Test func aBusFolderIsNamedForItsProcess() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let name = URL(fileURLWithPath: bus.folder).lastPathComponent
        #expect(name.hasPrefix("private-bus-\(getpid())-"), "\(name)")
        #expect(try String(contentsOfFile: bus.folder + "/daemon.pid", encoding: .utf8).isEmpty == false)
    }
}
