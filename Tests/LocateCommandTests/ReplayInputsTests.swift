import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// `locate replay` of NMEA logs and GPX tracks, looping, through real gpsd, and `locate record`.
@Suite("locate replay inputs and locate record", .timeLimit(.minutes(1)))
struct ReplayInputsTests {
    static let walk = Fixtures.greenwichWalk().fixes

    /// Starts `locate replay FILE --port 0 ...` and a client of ours watching it.
    func watch(_ file: URL, _ options: [String]) async throws -> (ChildProcess, LocationEventRecorder, GPSDClient) {
        let replay = try Locate.start(["replay", file.path, "--port", "0"] + options)
        let address = try #require(await replay.waitForLine { $0.hasPrefix("127.0.0.1:") }, "\(replay.lines(.error))")
        let endpoint = try GPSDAddress(parsing: address)
        let client = GPSDClient(host: endpoint.host, port: endpoint.port)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        return (replay, recorder, client)
    }

    func expectSamePositions(_ got: [Location], _ want: some Collection<Location>, within tolerance: Double = 1e-7) {
        #expect(got.count == want.count)
        for (a, b) in zip(got, want) {
            #expect(a.time == b.time && abs(a.latitude - b.latitude) < tolerance && abs(a.longitude - b.longitude) < tolerance, "\(a) vs \(b)")
        }
    }

    @Test func anNMEALogIsServedFixForFix() async throws {
        let (replay, recorder, client) = try await watch(Repository.fixture("nmea/greenwich-walk.nmea"), ["--fast", "--exit-when-done"])
        defer { client.stop(); replay.terminate() }
        let log = await recorder.waitUntil { $0.locations.count >= Self.walk.count }
        #expect(await replay.waitUntilExit() == 0)
        expectSamePositions(log.locations, Self.walk)
        #expect(log.locations.allSatisfy { $0.isSimulated })
        #expect(replay.lines(.error).first?.contains("(NMEA)") == true)
    }

    @Test(arguments: ["gpx/greenwich-walk.gpx"])
    func aGPXTrackIsServedAtTheFixesTimes(fixture: String) async throws {
        let (replay, recorder, client) = try await watch(Repository.fixture(fixture), ["--fast", "--exit-when-done"])
        defer { client.stop(); replay.terminate() }
        let log = await recorder.waitUntil { $0.locations.count >= Self.walk.count }
        #expect(await replay.waitUntilExit() == 0)
        expectSamePositions(log.locations, Self.walk)
        #expect(zip(log.locations, Self.walk).allSatisfy { ($0.altitude == nil) == ($1.mode == .fix2D) })
    }

    @Test func aGzippedGPXIsReadAsIs() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("walk.gpx")
        try Fixtures.greenwichWalkGPX().write(to: file, atomically: true, encoding: .utf8)
        let gzip = try ChildProcess("gzip", ["-k", file.path])
        #expect(await gzip.waitUntilExit() == 0)
        let recording = try ReplayRecording(contentsOf: URL(fileURLWithPath: file.path + ".gz"))
        #expect(recording.format == .gpx)
        #expect(try recording.countFixes() == Self.walk.count)
    }

    @Test func aLoopStartsAgainWithTimesMovedOn() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loop-\(UUID()).nmea")
        try NMEALog(fixes: Array(Self.walk.prefix(3))).text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let (replay, recorder, client) = try await watch(file, ["--fast", "--loop"])
        defer { client.stop(); replay.terminate() }
        let log = await recorder.waitUntil { $0.locations.count >= 7 }
        let start = try #require(Self.walk[0].time)
        let times = log.locations.prefix(7).map { $0.time?.timeIntervalSince(start) }
        #expect(times == [0, 1, 2, 3, 4, 5, 6], "three fixes a second apart, then again 3 s on")
        #expect(log.locations[3].latitude == Self.walk[0].latitude)
    }

    /// Real gpsd reads the device from the start, whoever watches (as `gpsd -n` does), so how much
    /// of the walk a client sees depends on when it connects: on a busy machine, late. What it
    /// sees is checked whole: from its first fix on, every fix of the walk, in order, at the
    /// walk's positions, through the pseudo-terminal.
    @Test(.enabled(if: PrivateGPSD.isAvailable, "gpsd is not installed"))
    func viaGPSDRealGPSDReadsTheFakeReceiver() async throws {
        let (replay, recorder, client) = try await watch(Repository.fixture("nmea/greenwich-walk.nmea"), ["--via-gpsd", "--speed", "10"])
        defer { client.stop(); replay.terminate() }
        let log = await recorder.waitUntil { $0.locations.last?.time == Self.walk.last?.time }
        // gpsd may report a cycle twice (a TPV as its first sentence is read, another at the
        // cycle's end): one fix per time, the last.
        let fixes = log.locations.filter { $0.mode >= .fix2D }.reduce(into: [Location]()) { fixes, fix in
            if fixes.last?.time == fix.time { fixes[fixes.count - 1] = fix } else { fixes.append(fix) }
        }
        let first = try #require(fixes.first?.time)
        let expected = Self.walk.drop { ($0.time ?? .distantPast) < first }
        #expect(fixes.count >= 10, "the client connected \(Self.walk.count - fixes.count) fixes into the walk")
        expectSamePositions(fixes, expected, within: 1e-6)
        #expect(fixes.allSatisfy { $0.device?.hasPrefix("/dev/pts/") == true }, "gpsd read a pseudo-terminal")
        #expect(replay.lines(.error).first?.contains("through gpsd on 127.0.0.1:") == true)
        replay.terminate()
        #expect(await replay.waitUntilExit() == 0, "SIGTERM stops the replay and its gpsd cleanly")
    }

    @Test func recordThenReplayGivesBackWhatWasRecorded() async throws {
        let source = Repository.fixture("gpsd/greenwich-walk.json")
        let replay = try Locate.start(["replay", source.path, "--port", "0", "--fast", "--exit-when-done"])
        defer { replay.terminate() }
        let address = try #require(await replay.waitForLine { $0.hasPrefix("127.0.0.1:") })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }

        let record = try await Locate.run(["record", address, "-o", file.path, "--duration", "30"])
        #expect(record.status == 0)
        #expect(record.error.first?.hasPrefix("locate record: wrote ") == true)
        #expect(record.error.first?.contains("(106 fixes)") == true, "\(record.error)")

        let recorded = try ReplayRecording(contentsOf: file)
        let original = try ReplayRecording(contentsOf: source)
        #expect(recorded.format == .gpsdJSON)
        #expect(try recorded.readTimeline().compactMap(\.location) == original.readTimeline().compactMap(\.location))
        #expect(try recorded.readTimeline().map(\.offset) == original.readTimeline().map(\.offset))
    }

    @Test func recordingAnUnreachableGPSDExits69() async throws {
        let result = try await Locate.run(["record", "127.0.0.1:1", "-o", "/dev/null", "--duration", "1"])
        #expect(result.status == 69)
        #expect(result.error.count == 1 && result.error[0].contains("127.0.0.1") && result.error[0].contains(":1"))
    }
}

extension ReplayLocationSource.Entry {
    var location: Location? {
        if case let .location(location) = event { location } else { nil }
    }
}
