import DBus
import Foundation
import LocationFacade
import Simulators
import Testing

// The examples of Simulators, as printed in its `///` comments and DocC articles, in functions
// that give them what they name. ReadmeTests checks that each example is here; the tests below
// run those that need nothing outside the process.

enum SimulatorsExamples {
    // SimulatorsCore.docc/SimulatorsCore.md
    static func overview() async throws {
        let recording = try ReplayRecording(gpxOrNMEAContentsOf: URL(fileURLWithPath: "walk.gpx"))
        let clock = VirtualClock()
        let manager = LocationManager(source: recording.device(clock: clock), clock: clock)
        await clock.advance(by: .seconds(3_600))    // an hour of fixes, in milliseconds
        _ = manager
    }

    // SimulatorsCore.docc/TestingWithTheFakes.md
    static func testingWithTheFakes(_ recording: ReplayRecording) async throws -> Location {
        let clock = VirtualClock()
        let device = recording.device(clock: clock)
        let manager = LocationManager(source: device, clock: clock)
        let events = LocationEventRecorder(observing: device)
        let answer = Task { try await manager.requestLocation(timeout: .seconds(30)) }
        await events.waitUntil { $0.states.contains(.watching) }
        await clock.advance(by: .seconds(30))
        return try await answer.value
    }

    // SimulatorsCore.docc/TestingWithTheFakes.md
    static func quirks(_ track: [Location]) -> GPSDScript {
        let script = GPSDScript.fixes(track, quirks: [.withoutTime(fix: 0), .gpsWeekRollover(fixes: 60..<70)])
        return script
    }

    // SimulatorsCore/FakeLocationSource.swift
    static func fakeSource(_ clock: some Clock<Duration>) async throws -> Location {
        let source = FakeLocationSource()
        let manager = LocationManager(source: source, clock: clock)
        async let fix = manager.requestLocation(timeout: .seconds(5))
        await source.waitUntilStarted()
        source.send(.location(Location(latitude: 1, longitude: 2)))
        return try await fix
    }

    // SimulatorsCore/LocationEventRecorder.swift
    static func recorder(_ client: GPSDClient) async {
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        let events = await recorder.waitUntil { $0.locations.count == 10 }
        _ = events
    }

    // SimulatorsCore/SyntheticTrack.swift
    static func walk() -> [Location] {
        let walk = SyntheticTrack.generate(count: 600, seed: 42)   // ten minutes at 1 Hz
        return walk
    }

    // SimulatorsCore/Clock/VirtualClock.swift
    static func virtualClock(_ url: URL) async throws {
        let clock = VirtualClock()
        let device = try ReplayRecording(gpxOrNMEAContentsOf: url).device(clock: clock)
        let manager = LocationManager(source: device, clock: clock)
        let fixes = manager.updates()   // every fix, on this clock
        await clock.advance(by: .seconds(86_400))
        _ = fixes
    }

    // SimulatorsCore/FakeGPSD/FakeGPSDServer.swift
    static func fakeGPSD(_ track: [Location]) async throws {
        let server = FakeGPSDServer(script: .fixes(track), pace: .asFastAsClientsRead)
        let port = try server.start()                 // an ephemeral port
        let client = GPSDClient(host: "127.0.0.1", port: port)
        // ...
        await server.waitUntilFinished()
        server.shutdown()
        _ = client
    }

    // SimulatorsCore/FakeGPSD/GPSDScript.swift
    static func scripts(_ track: [Location]) throws {
        let script = GPSDScript.fixes(track, interval: .seconds(1))
        let recorded = try GPSDScript(contentsOf: URL(fileURLWithPath: "fixtures/gpsd/walk.json"))
        _ = (script, recorded)
    }

    // SimulatorsCore/FakeGPSD/GPSDScript.swift
    static func scriptQuirks(_ track: [Location]) -> GPSDScript {
        let script = GPSDScript.fixes(track, quirks: [.withoutTime(fix: 60), .withoutSpeed(fixes: 0...)])
        return script
    }

    // SimulatorsCore/FakeGPSD/ReceiverQuirk.swift
    static func receiverQuirks(_ track: [Location]) -> GPSDScript {
        let script = GPSDScript.fixes(track, quirks: [
            .withoutTime(fix: 0),                        // a position before the receiver knows the date
            .withoutSpeed(fixes: 0...),                  // no Doppler speed in any fix
            .gpsWeekRollover(fixes: 60..<70),            // dated 1024 weeks early
            .withoutPosition(fixes: 80..<90),            // mode-1 TPVs: the sky is lost
            .moved(fixes: 90..., metres: 5_000),         // then a jump of 5 km
        ])
        return script
    }

    // SimulatorsCore/NMEA/NMEADecoder.swift
    static func decoder(_ url: URL) throws -> ReplayLocationSource {
        let result = NMEADecoder().decode(try String(contentsOf: url, encoding: .isoLatin1))
        let device = ReplayLocationSource(timeline: result.timeline)
        return device
    }

    // SimulatorsCore/NMEA/NMEAEncoder.swift
    static func encoder(_ fix: Location, _ fixBefore: Location, _ sky: [Satellite]) {
        for sentence in NMEAEncoder.epoch(for: fix, after: fixBefore, satellites: sky) { print(sentence, terminator: "") }
    }

    // SimulatorsCore/NMEA/NMEAEncoder.swift
    static func movement(_ track: [Location]) -> Location {
        let moving = NMEAEncoder.movement(of: track[1], after: track[0])   // speed and course from the two
        return moving
    }

    // SimulatorsCore/NMEA/NMEASocketServer.swift
    static func socketServer(_ walk: URL) async throws {
        let receiver = try NMEASocketServer(path: "/tmp/gps/nmea.sock")
        // ...start geoclue --nmea-socket /tmp/gps/nmea.sock, and wait for it:
        guard await receiver.waitForReaders(1) else { return }
        try await receiver.play(try ReplayRecording(gpxOrNMEAContentsOf: walk), speed: 1)
    }

    // SimulatorsCore/PrivateBus/PrivateBus.swift
    static func privateBus(_ url: URL) async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection(.address(bus.address))
        // A child process finds it as its system bus:
        let child = Process()
        child.executableURL = url
        child.environment = bus.environment
        try child.run()
        _ = connection
    }

    // SimulatorsCore/RealGPSD/FakeSerialDevice.swift
    static func fakeSerialDevice() async throws {
        let device = try FakeSerialDevice()
        let gpsd = try await PrivateGPSD(devices: [device.path])
        // ...connect a client to 127.0.0.1:gpsd.port and wait until it watches...
        try await device.play(NMEALog(fixes: SyntheticTrack.generate(count: 60)), speed: 10)
        gpsd.stop()
    }

    // SimulatorsCore/RealGPSD/GPSFake.swift
    static func gpsFake() async throws {
        let fake = try await GPSFake(log: URL(fileURLWithPath: "fixtures/nmea/greenwich-walk.nmea"))
        // ...connect clients to 127.0.0.1:fake.port and wait until they watch...
        fake.release()
        _ = await fake.waitUntilExit()   // gpsd exits when the log is done; clients see it close
    }

    // SimulatorsCore/RealGPSD/GPSFake.swift
    static func gpsFakeWatchers(_ log: URL) async throws {
        let fake = try await GPSFake(log: log, logsClients: true)
        let recorder = try Process.run(URL(fileURLWithPath: "/usr/local/bin/workout"),
                                       arguments: ["record", "127.0.0.1:\(fake.port)"])   // says nothing when it watches
        guard await fake.waitForWatchers(1) else { return }
        fake.release()
        recorder.terminate()
    }

    // SimulatorsCore/RealGPSD/PrivateGPSD.swift
    static func privateGPSD() async throws {
        let device = try FakeSerialDevice()
        let gpsd = try await PrivateGPSD(devices: [device.path])
        defer { gpsd.stop() }
        let manager = LocationManager(source: GPSDClient(host: "127.0.0.1", port: gpsd.port))
        _ = manager
    }

    // SimulatorsCore/Replay/GPSDLogRecorder.swift
    static func logRecorder() async throws {
        let recorder = GPSDLogRecorder(host: "127.0.0.1", port: 2947)
        let summary = try await recorder.record(to: URL(fileURLWithPath: "drive.json"), duration: .seconds(600))
        print(summary.reports, summary.fixes)
    }

    // SimulatorsCore/Replay/ReplayLocationSource.swift
    static func replayDevice() async throws -> Location {
        let device = try ReplayRecording(gpxOrNMEAContentsOf: URL(fileURLWithPath: "fixtures/gpx/greenwich-walk.gpx")).device()
        let manager = LocationManager(source: device)
        let fix = try await manager.requestLocation(timeout: .seconds(5))
        return fix
    }

    // Simulators/GPSDLogReplay.swift
    static func gpsdLogDevice() async throws -> Location {
        let device = try ReplayLocationSource(gpsdLog: URL(fileURLWithPath: "fixtures/gpsd/greenwich-walk.json"))
        let manager = LocationManager(source: device)
        let fix = try await manager.requestLocation(timeout: .seconds(5))
        return fix
    }

    // SimulatorsCore/Replay/ReplayRecording.swift
    static func recording() throws -> LocationManager {
        let recording = try ReplayRecording(gpxOrNMEAContentsOf: URL(fileURLWithPath: "ride.gpx"))
        let manager = LocationManager(source: recording.device(speed: 10))
        return manager
    }

    // Simulators/GPSDLogReplay.swift, Simulators.docc/Simulators.md
    static func recordingOfAnyFormat() throws -> LocationManager {
        let recording = try ReplayRecording(contentsOf: URL(fileURLWithPath: "ride.gpx"))
        let manager = LocationManager(source: recording.device(speed: 10))
        return manager
    }

    // SimulatorsCore/Replay/ReplayScenario.swift
    static func scenario() async throws -> (Location, ReplayScenario) {
        let clock = VirtualClock()
        let scenario = ReplayScenario.coldStart(noFixFor: .seconds(40), twoDimensionalFor: .seconds(5))
        let device = scenario.device(clock: clock)
        let events = LocationEventRecorder(observing: device)
        let manager = LocationManager(source: device, clock: clock)
        let fix = Task { try await manager.requestLocation(timeout: .seconds(60), minimumMode: .fix3D) }
        await events.waitUntil { $0.states.contains(.watching) }   // the request has started the device
        await clock.advance(by: .seconds(60))
        let first = try await fix.value   // the first 3D fix, 45 s in
        return (first, scenario)
    }
}

/// The examples that need nothing outside the process do what their comments say.
@Suite("API reference examples: simulators", .timeLimit(.minutes(1)))
struct SimulatorsExampleTests {
    @Test func aColdStartsFirst3DFixComes45SecondsIn() async throws {
        let (first, scenario) = try await SimulatorsExamples.scenario()
        #expect(first.mode == .fix3D)
        #expect(first.time == scenario.locations[5].time, "40 s without a fix and 5 s of 2D")
    }

    @Test func theFakeSourceAnswersWithWhatItIsSent() async throws {
        let fix = try await SimulatorsExamples.fakeSource(ContinuousClock())
        #expect(fix.latitude == 1 && fix.longitude == 2)
    }

    @Test func theWalkIsTenMinutesAt1Hz() {
        let walk = SimulatorsExamples.walk()
        #expect(walk.count == 600)
        #expect(walk.last?.time?.timeIntervalSince(walk[0].time!) == 599)
    }

    @Test func theEncodersMovementIsTheTracks() {
        let track = SyntheticTrack.generate(count: 2)
        var still = track
        still[1].speed = nil
        still[1].course = nil
        let moving = SimulatorsExamples.movement(still)
        #expect(abs((moving.speed ?? .nan) - track[0].distance(to: track[1])) < 1e-9)
        #expect(moving.course != nil)
    }
}
