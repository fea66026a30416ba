#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import DBus
import GeoClue
import SimulatorsCore

/// The real GeoClue (Debian's `geoclue-2.0`), run privately for a test: on a `PrivateBus`, with a
/// configuration of its own, reading positions from an `NMEASocketServer` and from nothing else.
///
/// ```swift
/// let bus = try await PrivateBus()
/// let receiver = try NMEASocketServer(path: bus.folder + "/nmea.sock")
/// let geoclue = try await SystemGeoClue(bus: bus, nmeaSocket: receiver.path)
/// let agent = try await GeoClueAgent(bus: .address(bus.address))
/// // ...GeoClueLocationSource(desktopID:bus: .address(bus.address)) now gets what receiver plays
/// ```
///
/// GeoClue 2.6 reads only `/etc/geoclue/geoclue.conf`. So that a test neither touches nor depends
/// on the machine's file, GeoClue runs in a mount namespace of its own (`unshare -m`), where its
/// configuration is bind-mounted over that path: this needs root (or a user namespace that allows
/// mounts). ``isAvailable`` says whether this machine can.
public final class SystemGeoClue: Sendable {
    /// Where GeoClue's service program is installed.
    public static let executable = "/usr/libexec/geoclue"
    /// The configuration file it is given.
    public let configurationPath: String
    private let process: ChildProcess

    /// Why GeoClue did not start, with what it printed.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        /// What went wrong, and what the program printed.
        public var description: String
    }

    /// Whether GeoClue, `unshare` and root are there to run it privately; otherwise, why not.
    public static var unavailableReason: String? {
        if !FileManager.default.isExecutableFile(atPath: executable) { return "GeoClue is not installed (apt-get install geoclue-2.0)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") { return "unshare is not installed (util-linux)" }
        if getuid() != 0 { return "running GeoClue with a configuration of its own needs a private mount namespace, which needs root" }
        return nil
    }

    /// Whether this machine can run it (see ``unavailableReason``).
    public static var isAvailable: Bool { unavailableReason == nil }

    /// Starts GeoClue on `bus`, reading NMEA from the Unix socket `nmeaSocket`, taking agents
    /// with the ids in `agents`, and returns once it owns its name on the bus.
    public init(bus: PrivateBus, nmeaSocket: String, agents: [String] = ["geoclue-demo-agent"]) async throws {
        if let reason = Self.unavailableReason { throw StartError(description: reason) }
        let configurationPath = bus.folder + "/geoclue.conf"
        try Self.configuration(agents: agents).write(toFile: configurationPath, atomically: true, encoding: .utf8)
        let script = "mount --bind \"$1\" /etc/geoclue/geoclue.conf && exec \"$2\" -t 0 --nmea-socket \"$3\""
        let connection = try DBusConnection(.address(bus.address))
        defer { connection.close() }
        let owners = try await connection.nameOwners(of: GeoClueNames.service)
        let process = try ChildProcess(
            "/usr/bin/unshare", ["-m", "/bin/sh", "-c", script, "geoclue", configurationPath, Self.executable, nmeaSocket],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "G_MESSAGES_DEBUG": "all"])
        let started = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await owner in owners where owner != nil { return true }
                return false
            }
            group.addTask {
                _ = await process.waitUntilExit()
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard started else {
            process.terminate()
            let status = await process.waitUntilExit()
            throw StartError(description: "GeoClue exited (\(status)) before it was on the bus: " + process.lines(.error).suffix(5).joined(separator: " | "))
        }
        self.configurationPath = configurationPath
        self.process = process
    }

    deinit {
        process.terminate()
    }

    /// Stops GeoClue (SIGTERM).
    public func stop() {
        process.terminate()
    }

    /// Kills GeoClue at once (SIGKILL), as a crash would.
    public func kill() {
        process.send(signal: SIGKILL)
    }

    /// Waits until GeoClue has exited; returns its exit status.
    public func waitUntilExit() async -> Int32 {
        await process.waitUntilExit()
    }

    /// What GeoClue has logged so far (its debug log included).
    public var log: [String] {
        process.lines(.error) + process.lines(.output)
    }

    /// A configuration with the NMEA source alone, the agents `agents`, and nothing else.
    static func configuration(agents: [String]) -> String {
        """
        [agent]
        whitelist=\(agents.joined(separator: ";"))

        [network-nmea]
        enable=true

        [3g]
        enable=false

        [cdma]
        enable=false

        [modem-gps]
        enable=false

        [wifi]
        enable=false

        [compass]
        enable=false

        [static-source]
        enable=false

        """
    }
}
