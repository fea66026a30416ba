import Foundation

/// A private, real gpsd fed from a log file by `gpsfake` (Debian's gpsd-clients), for tests.
///
/// gpsd starts reading a device at its first watcher, so a second client would miss the start of
/// the log. This wrapper runs `gpsfake -i` (it waits for a line on its input before each sentence)
/// and holds it until you call ``release()``: connect every client first, then let the log play.
///
/// ```swift
/// let fake = try await GPSFake(log: URL(fileURLWithPath: "fixtures/nmea/greenwich-walk.nmea"))
/// // ...connect clients to 127.0.0.1:fake.port and wait until they watch...
/// fake.release()
/// _ = await fake.waitUntilExit()   // gpsd exits when the log is done; clients see it close
/// ```
public final class GPSFake: Sendable {
    /// The port the private gpsd listens on, on 127.0.0.1.
    public let port: UInt16
    /// The log being played.
    public let log: URL
    private let process: ChildProcess

    /// Whether `gpsfake` and `gpsd` are installed (`apt-get install gpsd gpsd-clients`).
    public static var isAvailable: Bool {
        ["gpsfake", "gpsd"].allSatisfy { name in
            ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"].contains {
                FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
            }
        }
    }

    /// An error starting gpsfake, with what it printed.
    public struct StartError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Starts gpsfake on `log` with `cycle` between sentences, on `port` (a free one by default),
    /// and returns once its gpsd is listening and waiting for ``release()``.
    public init(log: URL, cycle: Duration = .milliseconds(5), port: UInt16? = nil) async throws {
        let port = try port ?? Self.freePort()
        let seconds = String(format: "%.4f", GPSDScript.seconds(cycle))
        // gpsd refuses to start without a runtime directory and logs D-Bus noise; neither matters here.
        let process = try ChildProcess("gpsfake", ["-i", "-1", "-q", "-W", "1", "-c", seconds, "-P", "\(port)", log.path])
        guard await process.waitForLine(where: { $0.contains("gpsfake: line 1:") || $0.contains("gpsfake: packet 1") }) != nil else {
            let status = await process.waitUntilExit()
            let said = (process.lines(.error) + process.lines(.output)).suffix(5).joined(separator: " | ")
            throw StartError(description: "gpsfake on \(log.path) exited with status \(status) before playing: \(said)")
        }
        self.port = port
        self.log = log
        self.process = process
    }

    /// Lets the log play: gpsfake feeds every sentence, then stops its gpsd.
    public func release() {
        process.feedRepeatedly("\n")
    }

    /// Waits until gpsfake (and so its gpsd) has exited; returns its exit status.
    public func waitUntilExit() async -> Int32 {
        await process.waitUntilExit()
    }

    /// Stops gpsfake and its gpsd now.
    public func stop() {
        process.terminate()
    }

    /// A TCP port on 127.0.0.1 that nothing was listening on a moment ago.
    public static func freePort() throws -> UInt16 {
        let (socket, port) = try Sockets.listen(port: 0)
        close(socket)
        return port
    }
}
