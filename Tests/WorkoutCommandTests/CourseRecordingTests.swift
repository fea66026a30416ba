import Foundation
import GPSCore
import Navigation
import Simulators
import Testing
import TestSupport
@testable import WorkoutCommand

/// `workout record --course` on the ten laid-out rides (TestSupport's `CourseLayout`), as
/// `locate follow` is held to them: the course a GPX track, the ride a gpsd JSON log replayed
/// 1000 times as fast, and the lines on standard error exactly the events the layout's truth gives.
@Suite("workout record --course", .tags(.childProcess), .timeLimit(.minutes(2)))
struct CourseRecordingTests {
    let folder: String
    var store: String { folder + "/workouts.sqlite" }

    init() throws {
        folder = NSTemporaryDirectory() + "course-record-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String]) async throws -> (status: Int32, output: [String], error: [String]) {
        let process = try ChildProcess(Repository.builtExecutable("workout").path, arguments)
        let status = await process.waitUntilExit()
        return (status, process.lines(.output), process.lines(.error))
    }

    /// The course lines of standard error (`workout record: course: cue Left in 300 m (...)`) as
    /// `Narration.words`: the event's name and, for a cue, its type (found by its display name)
    /// and the announcement it is.
    static func words(_ errors: [String]) -> [String] {
        let prefix = "workout record: course: "
        return errors.compactMap { line in
            guard line.hasPrefix(prefix) else { return nil }
            let text = line.dropFirst(prefix.count).prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("cue ") else { return String(text.prefix { $0 != " " }) }
            let cue = text.dropFirst("cue ".count)
            let kind = CoursePointKind.allCases.filter { cue.hasPrefix($0.displayName + " ") }.max { $0.displayName.count < $1.displayName.count }
            let rest = cue.dropFirst((kind?.displayName.count ?? 0) + 1)
            guard rest != "now" else { return "cue \(kind?.rawValue ?? "?") now" }
            let metres = Double(rest.split(separator: " ").dropFirst().first ?? "") ?? .infinity
            return "cue \(kind?.rawValue ?? "?") \(metres <= 100 ? "100" : "300")"
        }
    }

    func json(_ line: String?) throws -> [String: Any] {
        let text = try #require(line)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("Each layout: exactly the events its truth gives, the JSON's course and the saved workout naming it",
          arguments: try CourseLayout.all())
    func layout(_ layout: CourseLayout) async throws {
        let course = folder + "/course.gpx", ride = folder + "/ride.json"
        try LayoutFiles.writeCourse(layout.course, to: course)
        try LayoutFiles.writeRide(layout.ride.fixes(), to: ride)
        let result = try await run([
            "record", "--store", store, "--simulate", ride, "--speed", "1000", "--activity", "cycling", "--course", course, "--json",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(Self.words(result.error) == layout.expected, "\(layout.name): \(result.error)")

        let saved = try json(result.output.last)
        let summary = try #require(saved["course"] as? [String: Any], "\(saved)")
        #expect(summary["name"] as? String == "test")
        #expect(summary["finished"] as? Bool == layout.expected.contains("finished"))
        let length = try #require(summary["length"] as? Double)
        #expect(abs(length - layout.course.length) <= 0.05)
        // The counts are the lines'.
        let counts = try #require(summary["events"] as? [String: Int])
        #expect(counts.values.reduce(0, +) == layout.expected.count)
        #expect(counts["off-course"] ?? 0 == layout.expected.count { $0 == "off-course" })

        let id = try #require(saved["id"] as? String)
        let show = try await run(["show", "--store", store, id])
        #expect(show.output.contains { $0.trimmingCharacters(in: .whitespaces) == "course     test" }, "\(show.output)")
    }

    @Test("Text output: the course's line after the workout's, the file's name when the course has none")
    func textSummary() async throws {
        let layout = try CourseLayout.excursion()
        let course = folder + "/Harbour loop.geojson", ride = folder + "/ride.json"
        let coordinates = layout.course.line.points.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",")
        try Data(#"{"type":"LineString","coordinates":[\#(coordinates)]}"#.utf8).write(to: URL(fileURLWithPath: course))
        try LayoutFiles.writeRide(layout.ride.fixes(), to: ride)
        let result = try await run(["record", "--store", store, "--simulate", ride, "--speed", "1000", "--activity", "cycling", "--course", course])
        #expect(result.status == 0, "\(result.error)")
        let length = TextBytes.fixed(layout.course.length / 1000, decimals: 2)
        #expect(result.output.contains("Course \"Harbour loop\": finished (\(length) km), 1 time off course."), "\(result.output)")
    }

    @Test("A missing course exits 66, a file that is not one 65, both naming it, and nothing is saved")
    func badCourses() async throws {
        let ride = folder + "/ride.json"
        try LayoutFiles.writeRide(try CourseLayout.outAndBack().ride.fixes(), to: ride)
        let missing = try await run(["record", "--store", store, "--simulate", ride, "--course", folder + "/nowhere.gpx"])
        #expect(missing.status == 66)
        #expect(missing.error.contains { $0.hasPrefix("workout record: ") && $0.contains("nowhere.gpx") }, "\(missing.error)")

        let notACourse = folder + "/one.gpx"
        try Data(#"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#.utf8)
            .write(to: URL(fileURLWithPath: notACourse))
        let bad = try await run(["record", "--store", store, "--simulate", ride, "--course", notACourse])
        #expect(bad.status == 65)
        #expect(bad.error.contains { $0.contains("one.gpx") }, "\(bad.error)")

        let list = try await run(["list", "--store", store, "--json"])
        #expect(list.output.isEmpty, "\(list.output)")
    }

    @Test("--course-profile needs a --course; --grade and --course together are refused", arguments: [
        ["--course-profile", "foot"],
        ["--indoor", "--trainer", "AA:BB:CC:DD:EE:FF", "--grade", "2", "--course", "c.gpx"],
    ])
    func refusedOptions(_ arguments: [String]) async throws {
        let result = try await run(["record", "--store", store] + arguments)
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains { $0.contains("--course") }, "\(result.error)")
    }

    /// The virtual ride's grade: the first always set, then only a change of half a percent or
    /// more (a trainer is not sent every tenth), so the trainer is never more than half a percent
    /// from the course's grade where the rider is.
    @Test func aVirtualRideSetsTheGradeWhenItMovesHalfAPercent() throws {
        // 2 % for 500 m, 2.3 % for 500 m, 4 % for 500 m, then 8 % down.
        let positions = Plane.path([(0, 0), (2000, 0)])
        let rises = [0.02, 0.023, 0.04, -0.08]
        var elevation = 100.0
        var elevations: [Double?] = [elevation]
        for index in 1..<positions.count {
            elevation += rises[min(3, (index - 1) / 50)] * 10
            elevations.append(elevation)
        }
        let course = try Course(name: "ramps", positions: positions, elevations: elevations)
        let guide = CourseGuide(course: course, file: "ramps.gpx", profile: .bike)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var set: [Double] = []
        for metre in stride(from: 0.0, through: course.length, by: 5) {
            let (_, grade) = guide.advance(toDistance: metre, at: start.addingTimeInterval(metre / 8), speed: 8)
            if let grade { set.append(grade) }
            let here = try #require(course.grade(atDistance: metre)) * 100
            #expect(abs(here - (set.last ?? .nan)) < 0.55, "at \(metre) m the course is \(here) %, the trainer at \(set)")
        }
        #expect(set.first == 2)
        #expect(!set.contains(2.3), "2.3 % is within half a percent of 2 %: \(set)")
        #expect(zip(set, set.dropFirst()).allSatisfy { abs($1 - $0) >= 0.5 }, "\(set)")
        #expect(set.last == -8)
        #expect(guide.isFinished)
    }

    /// On a terminal (a pseudo-terminal made by `script`): the status line carries the distance to
    /// go and the next cue with its distance, an event's line clears it first (no status glued
    /// to its front), and the ride is saved finished.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1), util-linux's"))
    func theStatusLineShowsTheCourse() async throws {
        let layout = try CourseLayout.lollipop()
        let course = folder + "/course.gpx", ride = folder + "/ride.json"
        try LayoutFiles.writeCourse(layout.course, to: course)
        try LayoutFiles.writeRide(layout.ride.fixes(), to: ride)
        let command = [Repository.builtExecutable("workout").path, "record", "--store", store, "--simulate", ride, "--speed", "100",
                       "--activity", "cycling", "--course", course]
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let terminal = try ChildProcess("/usr/bin/script", ["-qfec", command, "/dev/null"])
        defer { terminal.terminate() }
        let status = try #require(await terminal.waitForLine { $0.contains("km to go, ") && $0.contains(" m") }, "\(terminal.lines())")
        let part = try #require(status.components(separatedBy: "course ").last)
        #expect(part.range(of: #"^\d+\.\d\d km to go, [A-Z][a-z -]+ in \d+ m"#, options: .regularExpression) != nil, "\(status)")
        #expect(await terminal.waitUntilExit() == 0, "\(terminal.lines())")
        // What the terminal shows of each line: what follows its last carriage return, the line
        // cleared (ESC [K) before it.
        let lines = terminal.lines().map { line in
            String(line.split(separator: "\r", omittingEmptySubsequences: false).last ?? "")
                .replacingOccurrences(of: "\u{1B}[K", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let events = lines.filter { $0.contains("workout record: course: ") }
        #expect(!events.isEmpty && events.allSatisfy { $0.hasPrefix("workout record: course: ") }, "\(events)")
        #expect(lines.contains("Course \"test\": finished (\(TextBytes.fixed(layout.course.length / 1000, decimals: 2)) km)."), "\(lines)")
    }
}

