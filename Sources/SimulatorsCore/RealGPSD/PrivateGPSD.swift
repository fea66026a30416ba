#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// A real `gpsd` of your own for a test: on a free port of 127.0.0.1, reading the devices you give
/// it (typically ``FakeSerialDevice`` paths), in the foreground, stopped with ``stop()`` or when
/// this object goes away.
///
/// ```swift
/// let device = try FakeSerialDevice()
/// let gpsd = try await PrivateGPSD(devices: [device.path])
/// defer { gpsd.stop() }
/// let manager = LocationManager(source: GPSDClient(host: "127.0.0.1", port: gpsd.port))
/// ```
///
/// It runs `gpsd -N -n -b -S PORT DEVICE...`: reading the devices from the start (`-n`), so a
/// client that connects late finds a cached fix as with a system gpsd, and read-only (`-b`), so
/// it never sends configuration strings to a fake receiver.
public final class PrivateGPSD: Sendable {
    /// The port gpsd listens on, on 127.0.0.1.
    public let port: UInt16
    /// The devices it reads.
    public let devices: [String]
    private let process: ChildProcess

    /// Where gpsd is installed, if it is.
    public static let executable: String? = ["/usr/sbin/gpsd", "/usr/bin/gpsd", "/usr/local/sbin/gpsd"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether gpsd is installed (`apt-get install gpsd`).
    public static var isAvailable: Bool {
        executable != nil
    }

    /// Why gpsd did not start, with what it printed.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Starts gpsd on `port` (a free one by default) and returns once it accepts connections.
    /// Without an explicit port, a start that fails is tried again on another port, up to three times.
    public init(devices: [String], port: UInt16? = nil, debugLevel: Int = 0) async throws {
        guard let executable = Self.executable else {
            throw StartError(description: "gpsd is not installed (apt-get install gpsd)")
        }
        var failures: [String] = []
        for _ in 0..<(port == nil ? 3 : 1) {
            let candidate = try port ?? GPSFake.freePort()
            var arguments = ["-N", "-n", "-b", "-S", "\(candidate)"]
            if debugLevel > 0 { arguments += ["-D", "\(debugLevel)"] }
            let process = try ChildProcess(executable, arguments + devices)
            if await GPSFake.acceptsConnections(candidate) {
                self.port = candidate
                self.devices = devices
                self.process = process
                return
            }
            process.terminate()
            let status = await process.waitUntilExit()
            failures.append("status \(status) on port \(candidate): " + process.lines(.error).suffix(2).joined(separator: " | "))
        }
        throw StartError(description: "gpsd did not start: " + failures.joined(separator: "; "))
    }

    deinit {
        process.terminate()
    }

    /// Stops gpsd (SIGTERM).
    public func stop() {
        process.terminate()
    }

    /// Waits until gpsd has exited; returns its exit status.
    public func waitUntilExit() async -> Int32 {
        await process.waitUntilExit()
    }

    /// What gpsd printed on standard error (its log, with `debugLevel` above 0).
    public var log: [String] {
        process.lines(.error)
    }
}
