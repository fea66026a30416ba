#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A D-Bus message bus of your own for a test: Debian's `dbus-daemon` with a system-bus
/// configuration in a temporary folder, listening on a Unix socket there, and allowing every
/// call, name and signal. Fakes of system services (GeoClue, BlueZ) and real ones (`geoclue`) run
/// on it, and so does the code under test, without touching the machine's own system bus (or
/// needing one: many test machines and containers have none).
///
/// ```swift
/// let bus = try await PrivateBus()
/// defer { bus.stop() }
/// let connection = try DBusConnection(.address(bus.address))
/// // A child process finds it as its system bus:
/// let child = Process()
/// child.executableURL = url
/// child.environment = bus.environment
/// try child.run()
/// ```
///
/// Programs that use the system bus follow `DBUS_SYSTEM_BUS_ADDRESS`; ``environment`` sets it.
/// The bus is stopped by ``stop()`` or when this object goes away, and its folder removed. A
/// process killed outright (SIGKILL, a crash) stops nothing: its folder is named for it
/// (`private-bus-PID-XXXXXX`), so the next bus made on the machine stops the `dbus-daemon` it left
/// and removes the folder (``removeLeftovers(in:)``).
public final class PrivateBus: Sendable {
    /// The bus's address, such as `unix:path=/tmp/private-bus-4242-1a2b3c/socket`.
    public let address: String
    /// The folder holding its configuration and socket.
    public let folder: String
    private let process: ChildProcess

    /// Where `dbus-daemon` is installed, if it is.
    public static let executable: String? = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether `dbus-daemon` is installed (`apt-get install dbus-daemon`).
    public static var isAvailable: Bool {
        executable != nil
    }

    /// Why the bus did not start, with what `dbus-daemon` printed.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        /// What went wrong, and what the program printed.
        public var description: String
    }

    /// Starts a bus and returns once it accepts connections.
    public init() async throws {
        guard let executable = Self.executable else {
            throw StartError(description: "dbus-daemon is not installed (apt-get install dbus-daemon)")
        }
        let temporary = FileManager.default.temporaryDirectory.path
        Self.removeLeftovers(in: temporary)
        var template = Array((temporary + "/private-bus-\(getpid())-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw StartError(description: "could not make a folder for the bus: \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        let socket = folder + "/socket"
        let configuration = folder + "/bus.conf"
        try Self.configuration(listeningOn: socket).write(toFile: configuration, atomically: true, encoding: .utf8)
        let process = try ChildProcess(executable, ["--config-file=" + configuration, "--nofork", "--nopidfile", "--print-address=1"])
        // Unwritten, a daemon this process leaves when killed is not stopped by the next bus (its
        // folder still goes): nothing this bus needs.
        try? "\(process.processIdentifier)\n".write(toFile: folder + "/daemon.pid", atomically: true, encoding: .utf8)
        guard let line = await process.waitForLine(where: { $0.hasPrefix("unix:") }) else {
            let status = await process.waitUntilExit()
            Self.remove(folder)
            throw StartError(description: "dbus-daemon exited (\(status)) without a bus: " + process.lines(.error).suffix(3).joined(separator: " | "))
        }
        // dbus-daemon prints the address with the bus's guid (",guid=..."), which a client may
        // check but need not give: messages read better without it.
        self.address = String(line.split(separator: ",").first { !$0.hasPrefix("guid=") } ?? Substring(line))
        self.folder = folder
        self.process = process
    }

    deinit {
        stop()
    }

    /// The environment a child process needs to take this bus for its system bus: the current
    /// one with `DBUS_SYSTEM_BUS_ADDRESS` set to ``address``.
    public var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": address]) { $1 }
    }

    /// Stops the bus and removes its folder (its configuration and socket): every connection to it
    /// ends. Calling it again does nothing more.
    public func stop() {
        process.terminate()
        Self.remove(folder)
    }

    /// Removes `folder` and what is in it. dbus-daemon unlinks its socket as it exits, which may be
    /// while this runs: a removal of the whole folder at once stops at the first file gone
    /// meanwhile and leaves the folder, so each entry is removed on its own, and one gone is no
    /// matter.
    private static func remove(_ folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {  // a folder gone already holds nothing
            try? FileManager.default.removeItem(atPath: folder + "/" + name)  // one gone meanwhile is no matter
        }
        rmdir(folder)
    }

    /// Stops the `dbus-daemon` and removes the folder of each bus in `directory` whose owner has
    /// gone without stopping it (killed, or crashed): a folder `private-bus-PID-...` whose process
    /// `PID` is no more. A daemon is stopped only if it is still the one started there (its
    /// command line names the folder's configuration), never another process that took its pid.
    /// Every bus made calls it on the temporary directory first.
    public static func removeLeftovers(in directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {  // no directory: nothing left in it
            guard name.hasPrefix("private-bus-"),
                  let owner = name.dropFirst("private-bus-".count).split(separator: "-").first.flatMap({ pid_t($0) }),
                  owner > 0, kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            let folder = directory + "/" + name
            // A folder without the file (made before it was written) has no daemon to stop.
            if let text = try? String(contentsOfFile: folder + "/daemon.pid", encoding: .utf8),
               let daemon = text.split(separator: "\n").first.flatMap({ pid_t($0) }), daemon > 0,
               let commandLine = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(daemon)/cmdline")),  // gone already: nothing to stop
               String(decoding: commandLine, as: UTF8.self).contains("--config-file=" + folder + "/bus.conf") {
                kill(daemon, SIGTERM)
            }
            remove(folder)
        }
    }

    /// Waits until `dbus-daemon` has exited; returns its exit status.
    public func waitUntilExit() async -> Int32 {
        await process.waitUntilExit()
    }

    /// A system bus's configuration that allows everything, listening on `socket` only. It loads
    /// none of the machine's policy files (`/etc/dbus-1/system.d`), whose rules name users such as
    /// `geoclue` that a test does not run as.
    package static func configuration(listeningOn socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_type="method_call"/>
            <allow send_type="signal"/>
            <allow send_type="method_return"/>
            <allow send_type="error"/>
            <allow receive_type="method_call"/>
            <allow receive_type="signal"/>
            <allow receive_type="method_return"/>
            <allow receive_type="error"/>
          </policy>
        </busconfig>
        """
    }
}
