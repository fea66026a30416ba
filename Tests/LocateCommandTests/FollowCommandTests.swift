import Foundation
import GPSCore
import Navigation
import Testing
import TestSupport

/// `locate follow` on the ten laid-out rides (TestSupport's `CourseLayout`): the course written
/// as a GPX track, the ride as a gpsd JSON log (accuracy, speed and track as the fixes have them),
/// replayed 1000 times as fast.
@Suite("locate follow", .tags(.childProcess), .timeLimit(.minutes(2)))
struct FollowCommandTests {
    /// A folder of the test's own, removed after it.
    final class Folder: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("follow-\(UUID())")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    }

    /// The command's JSON lines as ``Narration/words``.
    static func words(_ lines: [[String: Any]]) -> [String] {
        lines.compactMap { line in
            guard let event = line["event"] as? String, event != "progress" else { return nil }
            guard event == "cue" else { return event }
            let now = line["now"] as? Bool ?? false
            let distance = line["distance"] as? Double ?? 0
            return "cue \(line["cue_type"] ?? "?") \(now ? "now" : distance <= 100 ? "100" : "300")"
        }
    }

    @Test("Each layout through the command: exactly the events its truth gives", arguments: try CourseLayout.all())
    func layout(_ layout: CourseLayout) async throws {
        let folder = try Folder()
        try LayoutFiles.writeCourse(layout.course, to: folder.path("course.gpx"))
        try LayoutFiles.writeRide(layout.ride.fixes(), to: folder.path("ride.json"))
        let result = try await Locate.run(["follow", folder.path("course.gpx"), "--simulate", folder.path("ride.json"), "--speed", "1000", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let lines = try result.output.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not JSON: \($0)") }
        #expect(Self.words(lines) == layout.expected, "\(layout.name)")
        // Every object carries what the help promises.
        for line in lines {
            for key in ["event", "time", "state", "distance_along", "distance_to_go", "cross_track"] {
                #expect(line[key] != nil, "\(key) missing from \(line)")
            }
        }
    }

    @Test("--progress S: a progress line every S seconds of fix time; text lines without --json")
    func progressAndText() async throws {
        let folder = try Folder()
        let layout = try CourseLayout.excursion()
        try LayoutFiles.writeCourse(layout.course, to: folder.path("course.gpx"))
        let fixes = layout.ride.fixes()
        try LayoutFiles.writeRide(fixes, to: folder.path("ride.json"))
        let result = try await Locate.run(["follow", folder.path("course.gpx"), "--simulate", folder.path("ride.json"), "--speed", "1000", "--json", "--progress", "60"])
        #expect(result.status == 0)
        let progress = result.output.filter { $0.contains(#""event":"progress""#) }
        // The ride ends at the finish: every minute of it up to there, from the first fix.
        let finishIndex = try #require(Narration(course: layout.course, ride: fixes).progress.firstIndex { $0.progress.state == .finished })
        #expect(progress.count == finishIndex / 60 + 1)
        let text = try await Locate.run(["follow", folder.path("course.gpx"), "--simulate", folder.path("ride.json"), "--speed", "1000"])
        #expect(text.output.count == 4)
        #expect(text.output.first?.contains(" joined (0.00 km done, 3.00 km to go)") == true, "\(text.output)")
    }

    @Test("Exit codes: 66 for a missing course, 65 for a file that is not a course or has one point, 64 for --json with --nmea")
    func exitCodes() async throws {
        let folder = try Folder()
        let missing = try await Locate.run(["follow", folder.path("none.gpx"), "--simulate", folder.path("none.json")])
        #expect(missing.status == 66)
        try Data("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"50\" lon=\"8\"/></trkseg></trk></gpx>".utf8).write(to: URL(fileURLWithPath: folder.path("one.gpx")))
        let one = try await Locate.run(["follow", folder.path("one.gpx"), "--simulate", folder.path("none.json")])
        #expect(one.status == 65)
        #expect(one.error.joined().contains("one point") || one.error.joined().contains("1 point"), "\(one.error)")
        try Data("not a course".utf8).write(to: URL(fileURLWithPath: folder.path("bad.gpx")))
        let bad = try await Locate.run(["follow", folder.path("bad.gpx"), "--simulate", folder.path("none.json")])
        #expect(bad.status == 65)
        #expect(bad.error.joined().contains("bad.gpx"), "\(bad.error)")
        let both = try await Locate.run(["follow", folder.path("bad.gpx"), "--json", "--nmea"])
        #expect(both.status == 64)
    }

    @Test("--nmea: XTE, RMB and APB a parser we did not write reads (pynmea2), with the boat's cross-track error and waypoint",
          .enabled(if: GeoPeers.isAvailable, "\(GeoPeers.missing)"))
    func nmeaSentences() async throws {
        let folder = try Folder()
        // A boat's route: three legs of a kilometre; the boat keeps 60 m to starboard of the first.
        let course = try Course(name: "harbour", positions: Plane.path([(0, 0), (1000, 0), (1000, 1000), (2000, 1000)], step: 1000))
        try LayoutFiles.writeCourse(course, to: folder.path("route.gpx"))
        var ride = Ride(course: course, legs: [.free([(0, -60), (900, -60)])])
        ride.speed = 3
        ride.jitter = 0
        try LayoutFiles.writeRide(ride.fixes(), to: folder.path("boat.json"))
        let result = try await Locate.run(["follow", folder.path("route.gpx"), "--simulate", folder.path("boat.json"), "--speed", "1000", "--nmea", "--profile", "boat"])
        #expect(result.status == 0, "\(result.error)")
        let sentences = result.output.filter { $0.hasPrefix("$") }
        #expect(sentences.count > 30)
        let file = folder.path("sentences.nmea")
        try Data(sentences.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        let python = try #require(GeoPeers.python)
        let script = """
            import json, sys, pynmea2
            out = []
            for line in open(sys.argv[1]):
                m = pynmea2.parse(line.strip(), check=True)
                out.append([m.sentence_type] + list(m.data))
            print(json.dumps(out))
            """
        let parsed = try await Command.run(python, ["-c", script, file])
        #expect(parsed.status == 0, "\(parsed.error)")
        let messages = try #require(try JSONSerialization.jsonObject(with: parsed.output) as? [[String]])
        #expect(Set(messages.compactMap(\.first)) == ["XTE", "RMB", "APB"])
        // Halfway along the first leg: 60 m (0.03 nm) right of the course, so steer left; the next
        // waypoint is the route's corner at 1 km. (Fields from 0, after the sentence type.)
        let middle = messages.count / 2
        func fields(_ type: String) -> [String]? {
            messages[middle...].first { $0.first == type }.map { Array($0.dropFirst()) }
        }
        let xte = try #require(fields("XTE"))
        #expect(xte[2] == "0.03" && xte[3] == "L" && xte[4] == "N", "\(xte)")
        let rmb = try #require(fields("RMB"))
        #expect(rmb[2] == "L")
        let corner = course.line.points[1]
        #expect(rmb[5].hasPrefix("5000.00") && rmb[6] == "N" && rmb[8] == "E", "\(rmb)")
        #expect(abs((Double(rmb[7]) ?? 0) - (800 + corner.longitude.truncatingRemainder(dividingBy: 1) * 60)) < 0.01, "\(rmb)")
        let apb = try #require(fields("APB"))
        #expect(apb[3] == "L" && apb[7] == "90.0" && apb[8] == "T", "\(apb)")
    }
}
