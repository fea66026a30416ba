#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationFacade

extension ServerCore {
    /// Starts the thread that accepts, reads commands and writes output.
    func launchIOThread() {
        let shouldLaunch = state.withLock { state in
            defer { state.ioThreadRunning = true }
            return !state.ioThreadRunning
        }
        guard shouldLaunch else { return }
        Threads.detach { [self] in runIOLoop() }
    }

    private func runIOLoop() {
        while true {
            let plan: [pollfd]? = mutate { state in
                if state.stopped || state.goingDown { closeEverything(&state) }
                if state.closingListener { closeListener(&state) }
                if state.stopped { return nil }
                var fds = [pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0)]
                if state.listener >= 0 {
                    fds.append(pollfd(fd: state.listener, events: Int16(POLLIN), revents: 0))
                }
                for (fd, connection) in state.connections {
                    let events = POLLIN | (connection.output.isEmpty ? 0 : POLLOUT)
                    fds.append(pollfd(fd: fd, events: Int16(events), revents: 0))
                }
                return fds
            }
            guard var fds = plan else { return }
            if poll(&fds, nfds_t(fds.count), -1) < 0 && errno != EINTR { return }
            if fds[0].revents != 0 { wake.drain() }
            mutate { state in
                for entry in fds.dropFirst() where entry.revents != 0 {
                    if entry.fd == state.listener {
                        acceptAll(&state)
                    } else if state.connections[entry.fd] != nil, entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                        readCommands(from: entry.fd, in: &state)
                    }
                }
                flushAll(&state)
            }
        }
    }

    private func acceptAll(_ state: inout State) {
        while let client = Sockets.accept(state.listener) {
            var connection = Connection()
            connection.output.appendReport(versionReport())
            state.connections[client] = connection
            state.accepted += 1
        }
    }

    private func flushAll(_ state: inout State) {
        for fd in Array(state.connections.keys) {
            guard var connection = state.connections[fd] else { continue }
            let healthy = connection.output.write(to: fd)
            if !healthy || (connection.closeWhenFlushed && connection.output.isEmpty) {
                close(fd)
                state.connections[fd] = nil
            } else {
                state.connections[fd] = connection
            }
        }
    }

    private func readCommands(from fd: Int32, in state: inout State) {
        switch Sockets.read(fd) {
        case .wouldBlock:
            return
        case .closed:
            close(fd)
            state.connections[fd] = nil
        case let .bytes(bytes):
            state.connections[fd]!.input.append(contentsOf: bytes)
            while let command = GPSDCommand.next(from: &state.connections[fd]!.input) {
                respond(to: command, on: fd, in: &state)
            }
        }
    }

    // MARK: - The protocol

    private func respond(to command: GPSDCommand, on fd: Int32, in state: inout State) {
        state.requests += 1
        switch command {
        case let .watch(options):
            guard !ignoresWatch else { return }
            var connection = state.connections[fd]!
            if let options {
                connection.watching = options.enable
                connection.deviceFilter = options.enable ? options.device : nil
                if options.enable {
                    connection.output.appendReport(devicesReport())
                    if !state.started { state.started = true }
                }
            }
            connection.output.appendReport(watchReport(connection))
            state.connections[fd] = connection
        case .poll:
            state.connections[fd]!.output.appendReport(pollReport(state))
        case .devices:
            state.connections[fd]!.output.appendReport(devicesReport())
        case .version:
            state.connections[fd]!.output.appendReport(versionReport())
        case let .unknown(text):
            let message = "Unrecognized request '\(text.prefix(40))'"
            state.connections[fd]!.output.appendReport(#"{"class":"ERROR","message":\#(GPSDReportWriter.quoted(message))}"#)
        }
    }

    func versionReport() -> String {
        #"{"class":"VERSION","release":"3.22","rev":"3.22 (fake gpsd, swift-gps-facade Simulators)","proto_major":3,"proto_minor":14}"#
    }

    func devicesReport() -> String {
        let list = devices.map { GPSDReportWriter.device(path: $0, driver: "Simulated", activated: startedAt) }
        return #"{"class":"DEVICES","devices":[\#(list.joined(separator: ","))]}"#
    }

    private func watchReport(_ connection: Connection) -> String {
        var report = #"{"class":"WATCH","enable":\#(connection.watching),"json":\#(connection.watching),"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false"#
        if let device = connection.deviceFilter { report += #","device":\#(GPSDReportWriter.quoted(device))"# }
        return report + "}"
    }

    private func pollReport(_ state: State) -> String {
        let active = devices.filter { state.latestTPV[$0] != nil }
        let tpv = active.compactMap { state.latestTPV[$0] }
        let sky = active.compactMap { state.latestSKY[$0] }
        return #"{"class":"POLL","time":"\#(RFC3339.string(from: Date()))","active":\#(active.count),"tpv":[\#(tpv.joined(separator: ","))],"gst":[],"sky":[\#(sky.joined(separator: ","))]}"#
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
        guard let request = try? JSONDecoder().decode(Request.self, from: Data(text.dropFirst("?WATCH=".count).utf8)) else {
            return .unknown(text)
        }
        return .watch(WatchOptions(enable: request.enable ?? true, device: request.device))
    }
}
