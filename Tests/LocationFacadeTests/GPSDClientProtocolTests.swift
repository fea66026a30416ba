import Clocks
import Foundation
import LocationFacade
import Simulators
import Testing

/// Protocol tier: the real GPSDClient (libgps underneath) against the fake gpsd on loopback.
@Suite("GPSDClient against the fake gpsd", .timeLimit(.minutes(1)))
struct GPSDClientProtocolTests {
    /// Timings no test could wait out in real time: the clients run on a `TestClock`, which each
    /// test steps to just before and just after every deadline.
    static let quick = GPSDClient.Configuration(
        connectTimeout: .seconds(300), reconnectDelay: .seconds(20), maximumReconnectDelay: .seconds(80))

    /// A script of `count` fixes (with SKY reports), ended by a no-fix report from device "end"
    /// so a test can tell it has seen everything before it.
    static func script(count: Int, device: String = GPSDScript.defaultDevice) -> (GPSDScript, [Location]) {
        let track = SyntheticTrack.generate(count: count, seed: UInt64(count))
        let sky = SatelliteReport(hdop: 0.9, vdop: 1.3, pdop: 1.6, satellites: [
            Satellite(prn: 5, elevation: 40, azimuth: 100, signalStrength: 35, used: true),
            Satellite(prn: 9, elevation: 12, azimuth: 250, signalStrength: 20, used: false),
        ])
        var script = GPSDScript.fixes(track, device: device, satellites: sky)
        script.append(line: GPSDReportWriter.noFix(device: "end", time: nil), at: script.entries.last?.offset ?? .zero)
        return (script, track)
    }

    static func sawEnd(_ log: LocationEventRecorder.Log) -> Bool {
        log.events.contains(.noFix(device: "end", time: nil))
    }

    static func expectSameFixes(_ received: [Location], _ expected: [Location], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(received.count == expected.count, sourceLocation: sourceLocation)
        for (got, want) in zip(received, expected) {
            #expect(got.latitude == want.latitude && got.longitude == want.longitude, sourceLocation: sourceLocation)
            #expect(got.time == want.time, sourceLocation: sourceLocation)
            #expect(got.altitude == want.altitude && got.ellipsoidalAltitude == want.ellipsoidalAltitude, sourceLocation: sourceLocation)
            #expect(got.speed == want.speed && got.course == want.course && got.climb == want.climb, sourceLocation: sourceLocation)
            #expect(got.horizontalAccuracy == want.horizontalAccuracy && got.verticalAccuracy == want.verticalAccuracy, sourceLocation: sourceLocation)
            #expect(got.mode == .fix3D && got.isSimulated && got.status == .simulated, sourceLocation: sourceLocation)
        }
    }

    /// A client of the fake gpsd on `port`, started; its connect timeout and reconnect waits run
    /// on `clock`, which only the test moves.
    func connect(_ port: UInt16, device: String? = nil, clock: TestClock<Duration> = TestClock()) -> (GPSDClient, LocationEventRecorder) {
        let client = GPSDClient(host: "127.0.0.1", port: port, device: device, configuration: Self.quick, clock: clock)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        return (client, recorder)
    }

    @Test func exactlyTheScriptedFixesArriveInOrderOnceEach() async throws {
        let (script, track) = Self.script(count: 400)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        let log = await recorder.waitUntil(Self.sawEnd)
        Self.expectSameFixes(log.locations, track)
        #expect(log.errors.isEmpty)
        let skies = log.events.filter { if case .satellites = $0 { true } else { false } }
        #expect(skies.count == track.count)
        if case let .satellites(report) = skies.first {
            #expect(report.usedCount == 1 && report.visibleCount == 2 && report.hdop == 0.9)
        }
        #expect(client.devices.map(\.path) == [GPSDScript.defaultDevice, "end"])
        #expect(client.serverVersion == "3.22")
        #expect(log.states.prefix(3) == [.connecting(attempt: 1), .connected, .watching])
    }

    /// A TPV at latitude 999 used to come out as a fix (`locate once` printed `999.0 999.0`): it is
    /// malformed data, reported as such, and the client goes on to the next, good, fix. A TPV
    /// written with spaces around its members is a fix like any other.
    @Test func aPositionOffTheEarthIsMalformedDataAndTheNextFixComes() async throws {
        var script = GPSDScript()
        let device = GPSDScript.defaultDevice
        script.append(line: #"{"class":"TPV","device":"\#(device)","mode":3,"time":"2024-05-01T10:00:00.000Z","lat":999,"lon":999}"#, at: .zero)
        script.append(line: #"{"class":"TPV","device":"\#(device)","mode":2,"time":"2024-05-01T10:00:01.000Z","lat":51.5,"lon":-181}"#, at: .zero)
        script.append(line: #"{ "class" : "TPV" , "device" : "\#(device)" , "mode" : 2 , "time" : "2024-05-01T10:00:02.000Z" , "lat" : 51.477928 , "lon" : -0.001545 }"#, at: .zero)
        script.append(line: #"{"class":"DEVICE","path":"end","driver":"x"}"#, at: .zero)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        let log = await recorder.waitUntil { $0.events.contains { if case let .devices(d) = $0 { d.contains { $0.path == "end" } } else { false } } }
        #expect(log.locations.map(\.latitude) == [51.477928], "only the position on the Earth")
        #expect(log.errors.count == 2, "\(log.errors)")
        #expect(log.errors.first.map { "\($0)" }?.contains("a position out of range (latitude 999.0, longitude 999.0)") == true)
    }

    /// A peer that accepts the connection and says nothing (gpsd greets at once) was waited on in
    /// silence for ever: the client says so, once, after the silence limit on its clock.
    @Test func aSilentPeerIsReportedOnce() async throws {
        let peer = try SilentListener()
        let clock = TestClock()
        let (client, recorder) = connect(peer.port, clock: clock)
        defer { client.stop() }
        await recorder.waitUntil { $0.states.contains(.connected) }
        await clock.advance(by: .seconds(4))
        #expect(recorder.log.errors.isEmpty, "not yet")
        await clock.advance(by: .seconds(1))
        let log = await recorder.waitUntil { !$0.errors.isEmpty }
        #expect(log.errors == [.silent(host: "127.0.0.1", port: peer.port, after: .seconds(5))])
        await clock.advance(by: .seconds(60))
        #expect(recorder.log.errors.count == 1, "said once")
    }

    /// A peer that is not gpsd (a web server answering and closing) was reconnected to every
    /// 250 ms, the attempt count starting again each time: the delays now grow as after failed
    /// connects, and the loss says the peer is not gpsd, quoting it.
    @Test func aPeerThatIsNotGPSDIsRetriedWithGrowingDelays() async throws {
        let peer = try AnsweringListener(answer: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        let clock = TestClock()
        let configuration = GPSDClient.Configuration(
            connectTimeout: .seconds(300), reconnectDelay: .seconds(1), maximumReconnectDelay: .seconds(64))
        let client = GPSDClient(host: "127.0.0.1", port: peer.port, configuration: configuration, clock: clock)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }
        for (attempt, delay) in [(2, 1), (3, 2), (4, 4)] {
            await recorder.waitUntil { $0.states.contains(.waitingToReconnect(after: .seconds(delay), attempt: attempt)) }
            await clock.advance(by: .seconds(delay))
        }
        let lost = recorder.log.errors.first { if case .connectionLost = $0 { true } else { false } }
        #expect(lost.map { "\($0)" }?.contains(#"it is not gpsd (it sent "HTTP/1.1 400 Bad Request")"#) == true, "\(String(describing: lost))")
    }

    @Test func recordedPaceFollowsTheInjectedClock() async throws {
        let clock = TestClock()
        let (script, track) = Self.script(count: 3)
        let server = FakeGPSDServer(script: script, pace: .recorded(speed: 2), clock: clock)
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        // Each fix is a TPV and a SKY; at speed 2 the second fix is due 500 ms after the first.
        await server.waitUntil { $0.sentReports == 2 }
        await recorder.waitUntil { $0.locations.count == 1 }
        await clock.advance(by: .milliseconds(499))
        #expect(server.status.sentReports == 2)
        await clock.advance(by: .milliseconds(1))
        await recorder.waitUntil { $0.locations.count == 2 }
        await clock.advance(by: .milliseconds(500))
        let log = await recorder.waitUntil(Self.sawEnd)
        Self.expectSameFixes(log.locations, track)
    }

    @Test func closedConnectionIsReportedAndTheClientReconnectsWithoutLosingAFix() async throws {
        let (script, track) = Self.script(count: 200)
        let server = FakeGPSDServer(
            script: script, pace: .asFastAsClientsRead, faults: [.closeConnections(afterMessages: 101)])
        let port = try server.start()
        defer { server.shutdown() }
        let clientClock = TestClock()
        let (client, recorder) = connect(port, clock: clientClock)
        defer { client.stop() }

        await recorder.waitUntil { $0.states.contains(.waitingToReconnect(after: .seconds(20), attempt: 1)) }
        await clientClock.advance(by: .milliseconds(19_999))
        #expect(recorder.log.states.filter { $0 == .connecting(attempt: 1) }.count == 1)
        await clientClock.advance(by: .milliseconds(1))
        let log = await recorder.waitUntil(Self.sawEnd)
        Self.expectSameFixes(log.locations, track)
        #expect(log.errors == [.connectionLost(host: "127.0.0.1", port: port, reason: "gpsd closed the connection")])
        #expect(log.states.filter { $0 == .watching }.count == 2)
        #expect(server.status.acceptedConnections == 2)
    }

    @Test func stallHoldsTheStreamUntilTheClockMovesOn() async throws {
        let clock = TestClock()
        let (script, track) = Self.script(count: 20)
        let server = FakeGPSDServer(
            script: script, pace: .asFastAsClientsRead, faults: [.stall(afterMessages: 10, duration: .seconds(30))], clock: clock)
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        await recorder.waitUntil { $0.locations.count == 5 }
        await clock.advance(by: .milliseconds(29_999))
        #expect(server.status.sentReports == 10)
        await clock.advance(by: .milliseconds(1))
        let log = await recorder.waitUntil(Self.sawEnd)
        Self.expectSameFixes(log.locations, track)
        #expect(log.errors.isEmpty)
    }

    @Test func garbageLineIsReportedAndReadingGoesOn() async throws {
        let (script, track) = Self.script(count: 10)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead, faults: [.garbageLine(afterMessages: 3)])
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        let log = await recorder.waitUntil(Self.sawEnd)
        Self.expectSameFixes(log.locations, track)
        #expect(log.errors == [.malformedData(excerpt: "this is not JSON", reason: "not a JSON object")])
        #expect(log.states.filter { $0 == .watching }.count == 1)
    }

    @Test func aLineSplitAcrossWritesIsReassembled() async throws {
        let clock = TestClock()
        let (script, track) = Self.script(count: 4)
        let server = FakeGPSDServer(
            script: script, pace: .asFastAsClientsRead, faults: [.splitLine(index: 2, pause: .seconds(1))], clock: clock)
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        // Reports 0 and 1 (a TPV and its SKY) are out, and half of report 2 has been written.
        await recorder.waitUntil { $0.locations.count == 1 }
        await server.waitUntil { $0.sentReports == 2 && $0.isFlushed }
        // The server may not be asleep on the clock yet (a TestClock wakes only the sleepers it
        // has when it is advanced): move it on until the rest has come.
        while !Self.sawEnd(recorder.log) {
            await clock.advance(by: .seconds(1))
            await Task.yield()
        }
        let log = recorder.log
        Self.expectSameFixes(log.locations, track)
        #expect(log.errors.isEmpty)
    }

    @Test func aServerThatIgnoresWatchSendsNothing() async throws {
        let (script, _) = Self.script(count: 3)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead, startPolicy: .immediately, faults: [.ignoreWatch])
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        await recorder.waitUntil { $0.states.contains(.connected) }
        await server.waitUntil { $0.requests >= 1 }
        #expect(server.status.watchers == 0)
        #expect(server.status.sentReports == 0)
        #expect(!recorder.log.states.contains(.watching))
        #expect(recorder.log.locations.isEmpty)
    }

    @Test func aClientThatNeverWatchesGetsOnlyTheBanner() async throws {
        let (script, track) = Self.script(count: 5)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let silent = try RawClient(port: port)
        await server.waitUntil { $0.connections == 1 }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        let log = await recorder.waitUntil(Self.sawEnd)
        Self.expectSameFixes(log.locations, track)
        await server.waitUntilFinished()
        let received = silent.readAvailable()
        #expect(received.hasPrefix(#"{"class":"VERSION","release":"3.22""#))
        #expect(received.split(whereSeparator: \.isNewline).count == 1)
        #expect(received.hasSuffix("}\r\n"))
    }

    @Test func restartOnTheSamePortIsSurvived() async throws {
        let clock = TestClock()
        let (script, track) = Self.script(count: 60)
        let server = FakeGPSDServer(
            script: script, pace: .asFastAsClientsRead, faults: [.stall(afterMessages: 60, duration: .seconds(3600))], clock: clock)
        let port = try server.start()
        defer { server.shutdown() }
        let clientClock = TestClock()
        let (client, recorder) = connect(port, clock: clientClock)
        defer { client.stop() }

        await recorder.waitUntil { $0.locations.count == 30 }
        try await server.restart()
        #expect(server.port == port)
        await recorder.waitUntil { $0.states.contains(.waitingToReconnect(after: .seconds(20), attempt: 1)) }
        await clientClock.advance(by: .seconds(20))
        await recorder.waitUntil { $0.states.filter { $0 == .watching }.count == 2 }
        await clock.advance(by: .seconds(3600))
        let log = await recorder.waitUntil(Self.sawEnd)
        Self.expectSameFixes(log.locations, track)
        #expect(log.errors.contains(.connectionLost(host: "127.0.0.1", port: port, reason: "gpsd closed the connection")))
        #expect(server.status.acceptedConnections == 2)
    }

    @Test func unreachableGPSDIsReportedWithHostAndPortAndRetriedUntilStopped() async throws {
        let port = try RawClient.unusedPort()
        let clock = TestClock()
        let (client, recorder) = connect(port, clock: clock)
        await recorder.waitUntil { $0.states.contains(.waitingToReconnect(after: .seconds(20), attempt: 2)) }
        await clock.advance(by: .seconds(20))
        await recorder.waitUntil { $0.states.contains(.waitingToReconnect(after: .seconds(40), attempt: 3)) }
        await clock.advance(by: .milliseconds(39_999))
        #expect(!recorder.log.states.contains(.connecting(attempt: 3)))
        await clock.advance(by: .milliseconds(1))
        let log = await recorder.waitUntil { $0.states.contains(.connecting(attempt: 3)) }
        client.stop()
        guard case let .unreachable(host, errorPort, reason)? = log.errors.first else {
            Issue.record("expected unreachable, got \(log.errors)")
            return
        }
        #expect(host == "127.0.0.1" && errorPort == port)
        #expect(!reason.isEmpty)
        #expect(log.states.prefix(4) == [
            .connecting(attempt: 1), .waitingToReconnect(after: .seconds(20), attempt: 2),
            .connecting(attempt: 2), .waitingToReconnect(after: .seconds(40), attempt: 3),
        ])
        #expect(client.connectionState == .stopped)
    }

    @Test func aConnectThatHangsTimesOut() async throws {
        let blackhole = try FullBacklogListener()
        let clock = TestClock()
        let client = GPSDClient(
            host: "127.0.0.1", port: blackhole.port,
            configuration: .init(connectTimeout: .seconds(300), reconnectDelay: .seconds(10)), clock: clock)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }
        await recorder.waitUntil { $0.states.contains(.connecting(attempt: 1)) }
        await clock.advance(by: .milliseconds(299_999))
        #expect(recorder.log.errors.isEmpty)
        await clock.advance(by: .milliseconds(1))
        let log = await recorder.waitUntil { !$0.errors.isEmpty }
        #expect(log.errors.first == .unreachable(
            host: "127.0.0.1", port: blackhole.port, reason: "the TCP connect did not complete within 300 s"))
    }

    @Test func latestFixComesFromPoll() async throws {
        let (script, track) = Self.script(count: 8)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)
        defer { client.stop() }

        await recorder.waitUntil(Self.sawEnd)
        client.requestLatestFix()
        let log = await recorder.waitUntil { !$0.cachedLocations.isEmpty }
        Self.expectSameFixes(log.cachedLocations, [track.last!])
    }

    @Test func deviceFilterLimitsReportsToOneDevice() async throws {
        let (scriptA, _) = Self.script(count: 5, device: "/dev/a")
        let (scriptB, trackB) = Self.script(count: 5, device: "/dev/b")
        var script = GPSDScript()
        for (a, b) in zip(scriptA.entries, scriptB.entries) where a.device != "end" {
            script.entries.append(a)
            script.entries.append(b)
        }
        let endOfB = LocationEvent.noFix(device: "/dev/b", time: nil)
        script.append(line: GPSDReportWriter.noFix(device: "/dev/b", time: nil), at: .zero)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port, device: "/dev/b")
        defer { client.stop() }

        let log = await recorder.waitUntil { $0.events.contains(endOfB) }
        Self.expectSameFixes(log.locations, trackB)
        #expect(log.locations.allSatisfy { $0.device == "/dev/b" })
    }

    @Test func stopEndsTheRunAndStartBeginsAnother() async throws {
        let (script, _) = Self.script(count: 3)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let (client, recorder) = connect(port)

        await recorder.waitUntil(Self.sawEnd)
        client.stop()
        #expect(client.connectionState == .stopped)
        await server.waitUntil { $0.connections == 0 }
        client.start()
        await recorder.waitUntil { $0.states.filter { $0 == .watching }.count == 2 }
        await server.waitUntil { $0.connections == 1 }
        client.stop()
        #expect(recorder.log.states.filter { $0 == .stopped }.count == 2)
    }
}

/// A bare TCP client that connects and never sends a thing.
final class RawClient {
    let socket: Int32

    init(port: UInt16) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(socket) }

    /// Everything received so far, without waiting.
    func readAvailable() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, then released).
    static func unusedPort() throws -> UInt16 {
        let probe = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}

/// A listener that never accepts and whose backlog is full, so a new TCP connect to it hangs:
/// Linux drops the SYN when the accept queue is full.
final class FullBacklogListener {
    let listener: Int32
    let port: UInt16
    private var fillers: [Int32] = []

    init() throws {
        (listener, port) = try SilentListener.listen(backlog: 0)
        // With a backlog of 0 the queue holds one connection; fill it.
        let filler = try RawClient(port: port)
        fillers.append(dup(filler.socket))
    }

    deinit {
        fillers.forEach { close($0) }
        close(listener)
    }
}

/// A listener that never accepts: the kernel completes connections into its backlog, and nothing
/// is ever sent on them, as a hung server would.
final class SilentListener {
    let listener: Int32
    let port: UInt16

    init() throws {
        (listener, port) = try Self.listen(backlog: 16)
    }

    deinit { close(listener) }

    /// A socket listening on a free port of 127.0.0.1 with `backlog`, and the port.
    static func listen(backlog: Int32) throws -> (Int32, UInt16) {
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard Glibc.listen(listener, backlog) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }
}

/// A server that answers every connection with `answer` and closes it, as a web server on the
/// wrong port would.
final class AnsweringListener: Sendable {
    let port: UInt16
    private let listener: Int32

    init(answer: String) throws {
        let silent = try SilentListener()
        listener = dup(silent.listener)
        port = silent.port
        let listener = listener
        let bytes = Array(answer.utf8)
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(connection)
            }
        }
    }

    deinit { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
}
