import Foundation
import Testing
import TestSupport

/// `locate monitor` on a replay of our Greenwich walk (106 fixes, 330 m west-north-west).
@Suite("locate monitor", .tags(.childProcess), .timeLimit(.minutes(1)))
struct MonitorCommandTests {
    static let walk = Repository.fixture("gpx/greenwich-walk.gpx").path
    /// The walk's first and last points.
    static let start = "51.477928,-0.001545"
    static let end = "51.478643714,-0.006172546"

    func monitor(_ arguments: [String]) async throws -> (status: Int32, lines: [[String: Any]], error: [String]) {
        let result = try await Locate.run(["monitor", "--simulate", Self.walk, "--speed", "1000", "--json"] + arguments)
        let objects = try result.output.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        return (result.status, objects, result.error)
    }

    func events(_ lines: [[String: Any]]) -> [String] {
        lines.map { "\($0["region"] ?? "?") \($0["event"] ?? "?")" + (($0["state"] as? String).map { " \($0)" } ?? "") }
    }

    @Test("A circle at the start and a line across the way: its state, enter, exit and the crossing, then exit 0 at the replay's end")
    func circleAndLine() async throws {
        let result = try await monitor([
            "--region", "start=circle:\(Self.start),60", "--region", "gate=line:51.4775,-0.0040,51.4785,-0.0040", "--dwell", "0",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(events(result.lines) == ["start state unknown", "gate state unknown", "start enter", "start exit", "gate cross"])
        let exit = try #require(result.lines.first { $0["event"] as? String == "exit" })
        #expect(exit["time"] as? String == "2024-05-01T10:00:26.000Z")
        #expect(exit["latitude"] is Double && exit["longitude"] is Double && exit.keys.contains("accuracy"))
        let cross = try #require(result.lines.last)
        #expect(cross["direction"] as? String == "right-to-left")
        // Interpolated between two fixes a second apart: not on a whole second.
        #expect((cross["time"] as? String)?.hasSuffix(".000Z") == false)
    }

    @Test("A region's own rules after its values: confirmed at once and a dwell of its own")
    func regionRules() async throws {
        let result = try await monitor([
            "--region", "start=circle:\(Self.start),60,confirm=1,dwell=10", "--region", "late=circle:\(Self.start),60", "--dwell", "0",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(events(result.lines) == ["start state unknown", "late state unknown", "start enter", "late enter", "start dwell", "start exit", "late exit"])
        #expect(result.lines[2]["time"] as? String == "2024-05-01T10:00:00.000Z")
        let unknownRule = try await Locate.run(["monitor", "--simulate", Self.walk, "--region", "a=circle:\(Self.start),60,speed=3"])
        #expect(unknownRule.status == 64)
        #expect(unknownRule.error.joined().contains("'speed' is not a rule a region can set"))
    }

    @Test("A corridor along the walk's own GPX track is never left")
    func corridorOnItsRoute() async throws {
        let result = try await monitor(["--region", "route=corridor:\(Self.walk),25", "--dwell", "0"])
        #expect(result.status == 0, "\(result.error)")
        #expect(events(result.lines) == ["route state unknown", "route enter"])
    }

    @Test("With --state: inside at the end of one run, the next starts inside and reports the exit once the fixes prove it")
    func stateAcrossRuns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state.json").path
        let arguments = ["--region", "end=circle:\(Self.end),40", "--dwell", "0", "--state", state]
        let first = try await monitor(arguments)
        #expect(events(first.lines) == ["end state unknown", "end enter"])
        let second = try await monitor(arguments)
        #expect(events(second.lines) == ["end state inside", "end exit", "end enter"])
        let mode = try FileManager.default.attributesOfItem(atPath: state)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test("A replay with 30 s without a fix: unknown once, dated 10 s after the last fix, then inside again with no enter")
    func gap() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        for second in 0..<60 where !(20..<50).contains(second) {
            let seconds = second < 10 ? "0\(second)" : "\(second)"
            gpx += #"<trkpt lat="\#(51.4779 + Double(second) * 0.00001)" lon="-0.0015"><time>2024-05-01T10:00:\#(seconds)Z</time></trkpt>"#
        }
        gpx += "</trkseg></trk></gpx>"
        let file = folder.appendingPathComponent("gap.gpx")
        try Data(gpx.utf8).write(to: file)
        let result = try await Locate.run(["monitor", "--simulate", file.path, "--speed", "1000", "--json", "--dwell", "0",
                                           "--region", "a=circle:51.4779,-0.0015,100"])
        #expect(result.status == 0, "\(result.error)")
        let lines = try result.output.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(events(lines) == ["a state unknown", "a enter", "a unknown"])
        #expect(lines.last?["time"] as? String == "2024-05-01T10:00:29.000Z")
        #expect(lines.last?["latitude"] is NSNull)
    }

    @Test("The anchor dropped at the first fix: the walk drags it")
    func anchor() async throws {
        let result = try await monitor(["--anchor", "--rode", "30", "--depth", "5"])
        #expect(result.status == 0, "\(result.error)")
        #expect(events(result.lines) == ["anchor state unknown", "anchor state inside", "anchor drag"])
        let drag = try #require(result.lines.last)
        #expect((drag["distance"] as? Double ?? 0) > 39.6)
        #expect(result.lines[1]["swing_radius"] as? Double == 39.6)
    }

    @Test("--anchor-status: the distance and bearing to the anchor every 20 s of fixes")
    func anchorStatus() async throws {
        let result = try await monitor(["--anchor", "--radius", "500", "--anchor-at", Self.start, "--anchor-status", "20"])
        #expect(result.status == 0, "\(result.error)")
        let statuses = result.lines.filter { $0["event"] as? String == "status" }
        // 106 fixes over 110 s, the first at 10:00:00.
        #expect(statuses.map { $0["time"] as? String ?? "" }.map { String($0.dropFirst(14).prefix(5)) } == ["00:00", "00:20", "00:40", "01:00", "01:20", "01:40"])
        #expect(statuses.first?["distance"] as? Double == 0)
        let last = try #require(statuses.last)
        #expect((last["distance"] as? Double ?? 0) > 200)
        // The walk goes west-north-west: the anchor, at its start, is east-south-east of it.
        #expect((100...130).contains(last["bearing"] as? Double ?? 0))
        #expect(events(result.lines).filter { !$0.hasSuffix("status") } == ["anchor state inside"])
    }

    @Test("A malformed region exits 64 naming it; a GeoJSON file that cannot be opened 66; invalid GeoJSON 65 naming the file and where")
    func exitCodes() async throws {
        let malformed = try await Locate.run(["monitor", "--simulate", Self.walk, "--region", "home=circle:51.5,-0.1"])
        #expect(malformed.status == 64)
        #expect(malformed.error.joined().contains("home=circle:51.5,-0.1"))
        let missing = try await Locate.run(["monitor", "--simulate", Self.walk, "--region", "park=polygon:/nonexistent/park.geojson"])
        #expect(missing.status == 66)
        #expect(missing.error.joined().contains("/nonexistent/park.geojson"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("park.geojson")
        try Data(#"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0,0],[2]]]}}"#.utf8).write(to: bad)
        let invalid = try await Locate.run(["monitor", "--simulate", Self.walk, "--region", "park=polygon:\(bad.path)"])
        #expect(invalid.status == 65)
        #expect(invalid.error.joined().contains("\(bad.path) is not valid GeoJSON at geometry.coordinates[1][1]"))
        let help = try await Locate.run(["monitor", "--help"])
        #expect(help.status == 0)
        #expect(help.output.joined(separator: "\n").contains("65 bad input data"))
    }
}
