#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// Records what a gpsd sends to a watching client, line for line, into a replay log that
/// ``ReplayRecording``, ``ReplayLocationSource`` and `locate replay` read back (the same format
/// `gpspipe -w` writes: one JSON report per line).
///
/// ```swift
/// let recorder = GPSDLogRecorder(host: "127.0.0.1", port: 2947)
/// let summary = try await recorder.record(to: URL(fileURLWithPath: "drive.json"), duration: .seconds(600))
/// print(summary.reports, summary.fixes)
/// ```
///
/// It speaks gpsd's protocol on a plain socket rather than through libgps, so that the log holds
/// exactly the bytes gpsd sent, reports libgps does not decode included.
public struct GPSDLogRecorder: Sendable {
    public var host: String
    public var port: UInt16
    /// Watch only this device (all when `nil`).
    public var device: String?
    /// How long to wait for the TCP connection.
    public var connectTimeout: Duration

    /// What a recording holds.
    public struct Summary: Sendable, Hashable {
        /// Lines written.
        public var reports: Int
        /// TPV reports with a 2D or 3D fix among them.
        public var fixes: Int
        /// Whether gpsd closed the connection before the duration was up.
        public var serverClosed: Bool
    }

    public init(host: String = "localhost", port: UInt16 = 2947, device: String? = nil, connectTimeout: Duration = .seconds(5)) {
        self.host = host
        self.port = port
        self.device = device
        self.connectTimeout = connectTimeout
    }

    /// Watches gpsd and appends each report to `url` (created or truncated) until `duration` has
    /// passed on `clock` (forever when `nil`), gpsd closes the connection, or the task is cancelled
    /// (which ends the recording normally: the log keeps what arrived).
    ///
    /// - Throws: `LocationError/unreachable(host:port:reason:)` when gpsd cannot be reached, or
    ///   the error creating the file.
    public func record(
        to url: URL, duration: Duration? = nil, clock: some Clock<Duration> = ContinuousClock()
    ) async throws -> Summary {
        let socket = try await connect()
        defer { close(socket) }
        var watch = #"?WATCH={"enable":true,"json":true"#
        if let device { watch += #","device":"# + GPSDReportWriter.quoted(device) }
        watch += "};\n"
        guard watch.withCString({ send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }) > 0 else {
            throw LocationError.connectionLost(host: host, port: port, reason: String(cString: strerror(errno)))
        }
        let output = try FileDescriptorOutput(creatingAt: url.path)
        defer { output.close() }

        let elapsed = ElapsedClock(clock)
        let deadline = duration.map { elapsed.now + $0 }
        var summary = Summary(reports: 0, fixes: 0, serverClosed: false)
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !Task.isCancelled {
            if let deadline, elapsed.now >= deadline { break }
            // Short waits, so that the deadline (on any clock) and cancellation are noticed.
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 50)
            if ready == 0 {
                await Task.yield()
                continue
            }
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            let count = read(socket, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                summary.serverClosed = true
                break
            }
            pending.append(contentsOf: buffer[0..<count])
            var lines: [UInt8] = []
            var start = 0
            while let end = pending[start...].firstIndex(of: 0x0A) {
                var line = pending[start..<end]
                if line.last == 0x0D { line = line.dropLast() }
                start = end + 1
                guard !line.isEmpty else { continue }
                lines.append(contentsOf: line)
                lines.append(0x0A)
                summary.reports += 1
                if Self.isFix(line) { summary.fixes += 1 }
            }
            pending.removeFirst(start)
            try output.write(lines)
        }
        return summary
    }

    private static func isFix(_ line: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: line, as: UTF8.self)
        return text.contains(#""class":"TPV""#) && (text.contains(#""mode":2"#) || text.contains(#""mode":3"#))
    }

    /// A connected TCP socket to gpsd, within ``connectTimeout``.
    private func connect() async throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw LocationError.unreachable(host: host, port: port, reason: String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        let milliseconds = Int32(connectTimeout.components.seconds * 1000 + connectTimeout.components.attoseconds / 1_000_000_000_000_000)
        while let info = candidate {
            candidate = info.pointee.ai_next
            let socket = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard socket >= 0 else { continue }
            let flags = fcntl(socket, F_GETFL)
            _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
            var connected = Glibc.connect(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
            if !connected && errno == EINPROGRESS {
                var poller = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                if poll(&poller, 1, milliseconds) == 1 {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
                    connected = error == 0
                    if error != 0 { errno = error }
                } else {
                    errno = ETIMEDOUT
                }
            }
            if connected {
                _ = fcntl(socket, F_SETFL, flags)
                return socket
            }
            reason = String(cString: strerror(errno))
            close(socket)
        }
        throw LocationError.unreachable(host: host, port: port, reason: reason)
    }
}
