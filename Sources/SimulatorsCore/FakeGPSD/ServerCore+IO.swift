#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore

extension ServerCore {
    /// Starts the thread that accepts, reads commands and writes output. After a shutdown none
    /// starts: what the server opened since is closed at once.
    func launchIOThread() {
        let (launches, closing) = mutate { state -> (Bool, [Int32]) in
            switch state.lifecycle {
            case .notRunning:
                state.lifecycle = .running(closing: .nothing)
                return (true, [])
            case .running, .stopping:
                return (false, [])
            case .stopped:
                return (false, closeEverything(&state))
            }
        }
        closing.forEach { close($0) }
        if launches { Threads.detach { [self] in runIOLoop() } }
    }

    /// The I/O thread: it alone reads, writes, accepts and closes sockets, always with the lock
    /// released; under the lock it only takes and files what the other threads and the sockets
    /// have to exchange.
    private func runIOLoop() {
        while true {
            let plan: (fds: [pollfd], closing: [Int32]) = mutate { state in
                var closing: [Int32] = []
                switch state.lifecycle {
                case .notRunning:
                    preconditionFailure("the I/O thread runs before launchIOThread() said so")
                case .stopping, .stopped:
                    state.lifecycle = .stopped
                    return ([], closeEverything(&state))  // no fds: the thread ends
                case .running(closing: .nothing):
                    break
                case .running(closing: .listener):
                    closing = closeListener(&state)
                case .running(closing: .everything):
                    closing = closeEverything(&state)
                }
                state.lifecycle = .running(closing: .nothing)
                var fds = [pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0)]
                if state.listener >= 0 {
                    fds.append(pollfd(fd: state.listener, events: Int16(POLLIN), revents: 0))
                }
                for (fd, connection) in state.connections {
                    let events = POLLIN | (connection.output.isEmpty ? 0 : POLLOUT)
                    fds.append(pollfd(fd: fd, events: Int16(events), revents: 0))
                }
                return (fds, closing)
            }
            plan.closing.forEach { close($0) }
            var fds = plan.fds
            guard !fds.isEmpty else { return }
            if poll(&fds, nfds_t(fds.count), -1) < 0 && errno != EINTR { return }
            if fds[0].revents != 0 { wake.drain() }
            let listener = state.withLock { $0.listener }
            for entry in fds.dropFirst() where entry.revents != 0 {
                if entry.fd == listener {
                    acceptAll(from: listener)
                } else if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    readCommands(from: entry.fd)
                }
            }
            flushAll()
        }
    }

    private func acceptAll(from listener: Int32) {
        var clients: [Int32] = []
        while let client = Sockets.accept(listener) { clients.append(client) }
        guard !clients.isEmpty else { return }
        let banner = versionReport()
        mutate { state in
            for client in clients {
                var connection = Connection()
                connection.output.appendReport(banner)
                state.connections[client] = connection
                state.accepted += 1
            }
        }
    }

    /// Writes what each connection has waiting, as much as its socket takes, and closes those that
    /// failed or were asked to close once flushed.
    private func flushAll() {
        let pending: [(fd: Int32, bytes: [UInt8])] = state.withLock { state in
            state.connections.compactMap { fd, connection in
                connection.output.isEmpty ? nil : (fd, connection.output.prefix(Self.roomThreshold * 4))
            }
        }
        var written: [Int32: Int?] = [:]
        for (fd, bytes) in pending { written[fd] = Sockets.write(bytes, to: fd) }
        let closing: [Int32] = mutate { state in
            var closing: [Int32] = []
            for fd in Array(state.connections.keys) {
                guard var connection = state.connections[fd] else { continue }
                if let count = written[fd] {
                    guard let count else {
                        closing.append(fd)
                        state.connections[fd] = nil
                        continue
                    }
                    connection.output.removeFirst(count)
                }
                if connection.closeWhenFlushed && connection.output.isEmpty {
                    closing.append(fd)
                    state.connections[fd] = nil
                } else {
                    state.connections[fd] = connection
                }
            }
            return closing
        }
        closing.forEach { close($0) }
    }

    private func readCommands(from fd: Int32) {
        switch Sockets.read(fd) {
        case .wouldBlock:
            return
        case .closed:
            let known = mutate { $0.connections.removeValue(forKey: fd) != nil }
            if known { close(fd) }
        case let .bytes(bytes):
            let startWaiter = mutate { state -> CheckedContinuation<Void, Never>? in
                guard var connection = state.connections[fd] else { return nil }
                connection.input.append(contentsOf: bytes)
                var commands: [GPSDCommand] = []
                while let command = GPSDCommand.next(from: &connection.input) { commands.append(command) }
                state.connections[fd] = connection
                var startWaiter: CheckedContinuation<Void, Never>?
                for command in commands {
                    if let waiter = respond(to: command, on: fd, in: &state) { startWaiter = waiter }
                }
                return startWaiter
            }
            startWaiter?.resume()
        }
    }

    // MARK: - The protocol

    /// Answers `command`. A WATCH that enables reports starts the timeline: it returns then the
    /// timeline task that waited for the start, for the caller to resume once the lock is released.
    private func respond(to command: GPSDCommand, on fd: Int32, in state: inout State) -> CheckedContinuation<Void, Never>? {
        state.requests += 1
        var startWaiter: CheckedContinuation<Void, Never>?
        switch command {
        case let .watch(options):
            guard !ignoresWatch, var connection = state.connections[fd] else { return nil }
            if let options {
                connection.watching = options.enable
                connection.deviceFilter = options.enable ? options.device : nil
                if options.enable {
                    connection.output.appendReport(devicesReport(state))
                    startWaiter = state.timelinePhase.start()
                }
            }
            connection.output.appendReport(watchReport(connection))
            state.connections[fd] = connection
        case .poll:
            let report = pollReport(state, now: clock.now)
            state.connections[fd]?.output.appendReport(report)
        case .devices:
            let report = devicesReport(state)
            state.connections[fd]?.output.appendReport(report)
        case .version:
            state.connections[fd]?.output.appendReport(versionReport())
        case let .unknown(text):
            let message = "Unrecognized request '\(text.prefix(40))'"
            state.connections[fd]?.output.appendReport(#"{"class":"ERROR","message":\#(GPSDReportWriter.quoted(message))}"#)
        }
        return startWaiter
    }

    func versionReport() -> String {
        #"{"class":"VERSION","release":"3.22","rev":"3.22 (fake gpsd, swift-gps-facade Simulators)","proto_major":3,"proto_minor":14}"#
    }

    func devicesReport(_ state: State) -> String {
        let list = devices(state).map { GPSDReportWriter.device(path: $0, driver: "Simulated", activated: startedAt) }
        return #"{"class":"DEVICES","devices":[\#(list.joined(separator: ","))]}"#
    }

    private func watchReport(_ connection: Connection) -> String {
        var report = #"{"class":"WATCH","enable":\#(connection.watching),"json":\#(connection.watching),"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false"#
        if let device = connection.deviceFilter { report += #","device":\#(GPSDReportWriter.quoted(device))"# }
        return report + "}"
    }

    /// gpsd's answer to `?POLL;`: the time of its host clock (the script's, see ``HostClock``; the
    /// system clock before any TPV with a time was sent) and the latest TPV and SKY of each device.
    private func pollReport(_ state: State, now: Duration) -> String {
        let active = devices(state).filter { state.latestTPV[$0] != nil }
        let tpv = active.compactMap { state.latestTPV[$0] }
        let sky = active.compactMap { state.latestSKY[$0] }
        let time = state.hostClock.date(at: now, rate: timeRate) ?? Date()
        return #"{"class":"POLL","time":"\#(RFC3339.string(from: time))","active":\#(active.count),"tpv":[\#(tpv.joined(separator: ","))],"gst":[],"sky":[\#(sky.joined(separator: ","))]}"#
    }
}

/// A request from a gpsd client: `?WATCH={...};`, `?POLL;`, `?DEVICES;`, `?VERSION;`.
enum GPSDCommand: Equatable {
    struct WatchOptions: Equatable {
        var enable: Bool
        var device: String?
    }

    /// `?WATCH;` (options nil: report the policy) or `?WATCH={...}`.
    case watch(WatchOptions?)
    case poll
    case devices
    case version
    case unknown(String)

    /// Takes the next complete command off the front of `input`, or returns nil (leaving an
    /// incomplete one in place). Commands end with `;` or a newline; a WATCH's JSON may not.
    static func next(from input: inout [UInt8]) -> GPSDCommand? {
        var start = 0
        while start < input.count, [UInt8(ascii: ";"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: " ")].contains(input[start]) {
            start += 1
        }
        guard start < input.count else {
            input.removeAll()
            return nil
        }
        // The command runs to a `;` or newline outside its JSON, or to the end of its JSON object.
        let found: (end: Int, consumed: Int)? = input.withUnsafeBufferPointer { bytes in
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "{"):
                    guard let end = JSONScan.endOfValue(in: bytes, from: index) else { return nil }
                    let terminator = end < bytes.count && (bytes[end] == UInt8(ascii: ";") || bytes[end] == UInt8(ascii: "\n"))
                    return (end, terminator ? end + 1 : end)
                case UInt8(ascii: ";"), UInt8(ascii: "\n"):
                    return (index, index + 1)
                default:
                    index += 1
                }
            }
            return nil
        }
        guard let found else { return nil }
        let text = String(decoding: input[start..<found.end], as: UTF8.self).trimmingWhitespace()
        input.removeFirst(found.consumed)
        return parse(text)
    }

    static func parse(_ text: String) -> GPSDCommand {
        switch text {
        case "?POLL": return .poll
        case "?DEVICES": return .devices
        case "?VERSION": return .version
        case "?WATCH": return .watch(nil)
        default: break
        }
        guard text.hasPrefix("?WATCH=") else { return .unknown(text) }
        struct Request: Decodable {
            var enable: Bool?
            var device: String?
        }
        guard let request = try? JSONDecoder().decode(Request.self, from: Data(text.dropFirst("?WATCH=".count).utf8)) else {  // not JSON: an unknown request, as to gpsd
            return .unknown(text)
        }
        return .watch(WatchOptions(enable: request.enable ?? true, device: request.device))
    }
}
