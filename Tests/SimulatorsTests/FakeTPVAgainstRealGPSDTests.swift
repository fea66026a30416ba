import Foundation
import LocationFacade
import Simulators
@testable import SimulatorsCore
import Testing
import TestSupport

/// The fake gpsd serving a GPX track sends the TPV fields real gpsd 3.22 sends for the same track
/// (read from the simulated receiver's NMEA): fixtures/gpsd/greenwich-walk.json is real gpsd's
/// output for fixtures/nmea/greenwich-walk.nmea, the NMEA of fixtures/gpx/greenwich-walk.gpx.
@Suite(.timeLimit(.minutes(1))) struct FakeTPVAgainstRealGPSDTests {
    /// Keys real gpsd sends that the fake does not, on purpose: `magtrack` and `magvar` need a
    /// magnetic model; `epc` (climb error) needs the fix before; `track`, `speed` and `climb` are
    /// not in a GPX track (gpsd has them from the receiver's RMC and VTG).
    static let notSent: Set<String> = ["magtrack", "magvar", "epc", "track", "speed", "climb", "eps"]

    func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func theFakesTPVsCarryRealGPSDsHeightsAndErrors() throws {
        let real = try objects(
            String(contentsOf: Repository.fixture("gpsd/greenwich-walk.json"), encoding: .utf8)
                .split(whereSeparator: \.isNewline).map(String.init)
                .filter { $0.contains(#""class":"TPV""#) && $0.contains(#""mode":3"#) })
        #expect(real.count > 80)
        let fake = try objects(
            ReplayRecording(contentsOf: Repository.fixture("gpx/greenwich-walk.gpx")).readScript().entries.map(\.line))
        // Fix by fix, by time; gpsd's first fixes come before it has seen a GSA (no DOPs yet).
        let realByTime = Dictionary(real.compactMap { tpv in (tpv["time"] as? String).map { ($0, tpv) } }.dropFirst(2)) { a, _ in a }
        var compared = 0
        for ours in fake {
            guard let time = ours["time"] as? String, let theirs = realByTime[time], ours["mode"] as? Int == 3 else { continue }
            // Back from a loss of fix, gpsd reports its first fix before the GSA with the DOPs.
            if let eph = theirs["eph"] as? Double, eph > 1_000 { continue }
            compared += 1
            let expected = Set(theirs.keys).subtracting(Self.notSent).subtracting(["device", "status"])
            let missing = expected.subtracting(ours.keys)
            #expect(missing.isEmpty, "\(time): the fake leaves out \(missing.sorted())")
            for key in expected.subtracting(["class", "time"]) {
                guard let a = ours[key] as? Double, let b = theirs[key] as? Double else { continue }
                // GPX heights have three decimals, gpsd's NMEA input two.
                #expect(abs(a - b) <= 0.01, "\(time) \(key): ours \(a), gpsd's \(b)")
            }
        }
        #expect(compared >= 80, "the 3D fixes of the walk both have")
    }

    /// gpxlogger writes a track point's height from altHAE: with the fake gpsd it wrote none.
    @Test(.enabled(if: Repository.hasProgram("gpxlogger"), "needs gpxlogger (gpsd-clients)"))
    func gpxloggerWritesHeightsFromTheFake() async throws {
        let recording = try ReplayRecording(contentsOf: Repository.fixture("gpx/greenwich-walk.gpx"))
        let points = try recording.countFixes()
        let server = FakeGPSDServer(recording: recording, pace: .asFastAsClientsRead)
        let port = try server.start()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("gpxlogger-\(UUID()).gpx")
        defer { try? FileManager.default.removeItem(at: output) }
        let logger = try ChildProcess("gpxlogger", ["-e", "sockets", "-f", output.path, "127.0.0.1:\(port)"])
        await server.waitUntilFinished()
        server.shutdown()  // gpxlogger ends when gpsd goes
        _ = await logger.waitUntilExit()
        let gpx = try String(contentsOf: output, encoding: .utf8)
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == points)
        let threeD = try recording.readTimeline().filter { $0.event.location?.altitude != nil }.count
        #expect(gpx.components(separatedBy: "<ele>").count - 1 == threeD, "every point with a height has it")
        #expect(gpx.contains("<ele>75.6"), "the first point's height above the ellipsoid (30 m + 45.6 m): \(gpx.prefix(600))")
    }
}
