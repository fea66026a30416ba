import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// The fake gpsd's receiver quirks: each changes exactly the fixes it names, in the TPV lines the
/// script holds and in what real libgps (a `GPSDClient` over loopback) reads from them.
@Suite("Receiver quirks make a script misbehave as real receivers do", .timeLimit(.minutes(1)))
struct ReceiverQuirkTests {
    static let track = SyntheticTrack.generate(count: 12, seed: 5)
    static let quirks: [ReceiverQuirk] = [
        .withoutTime(fix: 2),
        .timeShifted(fixes: 3...3, by: .seconds(-5)),
        .gpsWeekRollover(fixes: 4..<5),
        .withoutSpeed(fixes: 5...),
        .moved(fixes: 6..<8, metres: 1_000),
        .withoutPosition(fixes: 8...9),
        .silent(fixes: 10...),
    ]
    static let script = GPSDScript.fixes(track, quirks: quirks)

    func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func time(_ object: [String: Any]) -> Date? {
        (object["time"] as? String).flatMap { RFC3339.parse($0)?.date }
    }

    @Test func eachQuirkChangesOnlyTheFixesItNames() throws {
        let entries = Self.script.entries
        #expect(entries.count == 10, "fixes 10 and 11 are silent")
        #expect(entries.map(\.offset) == (0..<10).map { Duration.seconds($0) }, "every report still due at its index")
        #expect(entries.allSatisfy { $0.className == "TPV" })
        let sent = try entries.map { try object($0.line) }
        let track = Self.track

        for index in [0, 1] {
            #expect(time(sent[index]) == track[index].time)
            #expect(sent[index]["speed"] as? Double == track[index].speed)
        }
        #expect(sent[2]["time"] == nil && sent[2]["ept"] == nil)
        #expect(sent[2]["lat"] as? Double == track[2].latitude && sent[2]["mode"] as? Int == 3)
        #expect(time(sent[3]) == track[3].time?.addingTimeInterval(-5))
        #expect(time(sent[4]) == track[4].time?.addingTimeInterval(-619_315_200))
        #expect(ReceiverQuirk.gpsWeekRolloverPeriod == .seconds(619_315_200))
        for index in 5..<8 {
            #expect(sent[index]["speed"] == nil, "fix \(index)")
            #expect(time(sent[index]) == track[index].time)
        }
        #expect(sent[4]["speed"] as? Double == track[4].speed)
        for index in 6..<8 {
            let latitude = try #require(sent[index]["lat"] as? Double), longitude = try #require(sent[index]["lon"] as? Double)
            let moved = Geodesy.distance(track[index].latitude, track[index].longitude, latitude, longitude)
            #expect(abs(moved - 1_000) < 0.01, "fix \(index) moved \(moved) m")
            #expect(longitude > track[index].longitude, "east by default")
        }
        #expect(sent[5]["lat"] as? Double == track[5].latitude)
        for index in 8..<10 {
            #expect(sent[index]["mode"] as? Int == 1)
            #expect(sent[index]["lat"] == nil && sent[index]["lon"] == nil)
            #expect(time(sent[index]) == track[index].time, "a receiver without a fix still knows the time")
        }
    }

    @Test func quirksOnOneFixApplyInOrderAndSatellitesFollowTheSentTime() throws {
        let track = Array(Self.track.prefix(3))
        let script = GPSDScript.fixes(
            track, satellites: SatelliteReport(hdop: 1),
            quirks: [.timeShifted(fixes: 1...1, by: .seconds(3)), .timeShifted(fixes: 1...1, by: .seconds(-1)), .withoutTime(fixes: 2...)])
        #expect(script.entries.map(\.className) == ["TPV", "SKY", "TPV", "SKY", "TPV", "SKY"])
        let sent = try script.entries.map { try object($0.line) }
        #expect(time(sent[2]) == track[1].time?.addingTimeInterval(2))
        #expect(time(sent[3]) == track[1].time?.addingTimeInterval(2), "the SKY report says the TPV's time")
        #expect(sent[4]["time"] == nil && sent[5]["time"] == nil)
        // Without quirks, the script is what it always was.
        #expect(GPSDScript.fixes(track, quirks: []) == GPSDScript.fixes(track))
    }

    /// Real libgps, through `GPSDClient` on loopback, reads every quirk as a receiver's report:
    /// the fixes without a time or a speed have none (never a stale value from the fix before),
    /// the misdated and moved fixes say what was sent, and the fixes without a position are
    /// no-fix reports.
    @Test func libgpsReadsTheQuirkyReports() async throws {
        let server = FakeGPSDServer(script: Self.script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let client = GPSDClient(host: "127.0.0.1", port: port)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }
        let log = await recorder.waitUntil { log in
            log.events.filter { if case .noFix = $0 { true } else { false } }.count == 2
        }
        #expect(log.errors.isEmpty, "\(log.errors)")
        let fixes = log.locations
        let sent = try Self.script.entries.prefix(8).map { try object($0.line) }
        try #require(fixes.count == 8)
        for (index, fix) in fixes.enumerated() {
            #expect(fix.time == time(sent[index]), "fix \(index)")
            #expect(fix.speed == sent[index]["speed"] as? Double, "fix \(index)")
            #expect(fix.latitude == sent[index]["lat"] as? Double && fix.longitude == sent[index]["lon"] as? Double, "fix \(index)")
            #expect(fix.mode == .fix3D && fix.isSimulated)
        }
        #expect(fixes[2].time == nil && fixes[2].speed != nil)
        #expect(fixes[4].time == Self.track[4].time?.addingTimeInterval(-619_315_200))
        #expect(fixes[5...].allSatisfy { $0.speed == nil })
        let noFixTimes = log.events.compactMap { event -> Date? in
            if case let .noFix(_, time) = event { time } else { nil }
        }
        #expect(noFixTimes == [Self.track[8].time, Self.track[9].time].compactMap { $0 })
    }
}
