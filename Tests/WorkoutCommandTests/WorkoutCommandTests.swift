import Foundation
import Simulators
import WorkoutSimulators
import Testing
import TestSupport
@testable import Workout
import LocationFacade

@testable import WorkoutCommand

/// The `workout` command run as a user runs it, on a store file of its own per test.
@Suite(.timeLimit(.minutes(1)))
struct WorkoutCommandTests {
    let folder: String
    var store: String { folder + "/workouts.sqlite" }

    init() throws {
        folder = NSTemporaryDirectory() + "workout-command-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String]) async throws -> (status: Int32, output: [String], error: [String]) {
        let process = try ChildProcess(Repository.builtExecutable("workout").path, arguments)
        let status = await process.waitUntilExit()
        return (status, process.lines(.output), process.lines(.error))
    }

    func fixture(_ name: String) -> String {
        Repository.fixture("gpx/" + name).path
    }

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func importPrintsOneJSONObjectPerWorkoutWithTheDocumentedKeys() async throws {
        let result = try await run(["import", "--store", store, "--json", fixture("two-runs.gpx")])
        #expect(result.status == 0)
        #expect(result.output.count == 2)
        let run = try json(result.output[0])
        for key in ["id", "activity", "start", "end", "points", "distance_m", "duration_s", "elevation_gain_m",
                    "heart_rate_avg", "heart_rate_max", "skipped"] {
            #expect(run[key] != nil, "missing \(key)")
        }
        #expect(run["activity"] as? String == "running")
        #expect(run["points"] as? Int == 5)
        #expect(run["heart_rate_max"] as? Double == 150)
        #expect(run["start"] as? String == "2024-05-01T07:00:00.000Z")
        #expect(run["status"] as? String == "imported")
        let ride = try json(result.output[1])
        let skipped = try #require(ride["skipped"] as? [[String: Any]])
        #expect(skipped.compactMap { $0["line"] as? Int } == [31, 32, 34, 36])
        #expect(ride["heart_rate_avg"] is NSNull)
        #expect(result.error.contains { $0.contains("Planned route, no times") && $0.contains("not imported") })
    }

    @Test func importingTwiceSaysSoAndAddsNothing() async throws {
        _ = try await run(["import", "--store", store, fixture("two-runs.gpx")])
        let again = try await run(["import", "--store", store, fixture("two-runs.gpx")])
        #expect(again.status == 0)
        #expect(again.output.filter { $0.contains("already in the store as") }.count == 2)
        let list = try await run(["list", "--store", store])
        #expect(list.output.count == 2)
    }

    @Test func malformedXMLExits65NamingFileLineAndColumnAndKeepsEarlierTracks() async throws {
        let result = try await run(["import", "--store", store, fixture("truncated-second-track.gpx")])
        #expect(result.status == 65)
        let message = try #require(result.error.last)
        #expect(message.contains("truncated-second-track.gpx:17:"), "\(message)")
        #expect(message.contains("kept"))
        #expect(result.output.first?.contains("\"Complete\": imported as") == true)
        #expect(try await run(["list", "--store", store]).output.count == 1)
    }

    @Test func refusedAndMissingFilesHaveTheirExitCodes() async throws {
        let refused = try await run(["import", "--store", store, fixture("doctype-xxe.gpx")])
        #expect(refused.status == 65)
        #expect(refused.error.first?.contains("doctype-xxe.gpx:") == true)
        let missing = try await run(["import", "--store", store, folder + "/nothing.gpx"])
        #expect(missing.status == 66)
        #expect(missing.error.first?.contains("nothing.gpx") == true)
    }

    @Test func badUsageExits64() async throws {
        #expect(try await run(["import", "--store", store, "--activity", "flying", fixture("two-runs.gpx")]).status == 64)
        #expect(try await run(["import", "--store", store]).status == 64)
        #expect(try await run(["list", "--store", store, "--from", "last tuesday"]).status == 64)
        #expect(try await run(["show", "--store", store, "ab"]).status == 64)
    }

    /// A GPX file of a short track and then a long one, to interrupt while the long one is read.
    func shortThenLongTracks(points: Int) throws -> String {
        var text = #"<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">"#
        text += #"<trk><name>short</name><trkseg><trkpt lat="1" lon="0"><time>2024-05-01T08:00:00Z</time></trkpt>"#
        text += #"<trkpt lat="1.0001" lon="0"><time>2024-05-01T08:00:01Z</time></trkpt></trkseg></trk>"#
        text += "<trk><name>long</name><trkseg>\n"
        let start = 1_714_560_000
        for index in 0..<points {
            text += #"<trkpt lat="\#(1 + Double(index) * 1e-6)" lon="0"><time>\#(RFC3339.string(from: Date(timeIntervalSince1970: Double(start + index))))</time></trkpt>"#
            text += "\n"
        }
        text += "</trkseg></trk></gpx>\n"
        let path = folder + "/short-then-long.gpx"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Ctrl-C during `export -o F` used to leave a hidden `.F.<UUID>.tmp` of many megabytes.
    @Test func anInterruptedExportLeavesNoFileBehind() async throws {
        let file = try shortThenLongTracks(points: 300_000)
        #expect(try await run(["import", "--store", store, file]).status == 0)
        let long = try #require(try await WorkoutStore(path: store).workouts().last)
        let output = folder + "/export/out.gpx"
        try FileManager.default.createDirectory(atPath: folder + "/export", withIntermediateDirectories: true)
        let process = try ChildProcess(
            Repository.builtExecutable("workout").path, ["export", long.id.uuidString, "--store", store, "-o", output])
        // Wait for the temporary file to be there: the export is under way.
        var temporary: [String] = []
        while temporary.isEmpty, process.exitStatus == nil {
            temporary = try FileManager.default.contentsOfDirectory(atPath: folder + "/export").filter { $0.hasSuffix(".tmp") }
            await Task.yield()
        }
        process.send(signal: SIGINT)
        let status = await process.waitUntilExit()
        #expect(status == 75 || (status == 0 && FileManager.default.fileExists(atPath: output)), "interrupted, or done just before")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/export").filter { $0.hasSuffix(".tmp") } == [])
        if status == 75 {
            #expect(!FileManager.default.fileExists(atPath: output))
            #expect(process.lines(.error) == ["workout export: interrupted; \(output) was not written."])
        }
    }

    /// `workout record --simulate` records a replay to its end and saves it; `--json` prints what
    /// `show --json` prints, with the session's keys.
    @Test func recordingAReplayWithAutoLapsSavesItWithItsLaps() async throws {
        let walk = Repository.fixture("gpx/greenwich-walk.gpx").path
        let result = try await run([
            "record", "--store", store, "--simulate", walk, "--speed", "100", "--activity", "walking", "--auto-pause",
            "--auto-lap", "100", "--json",
        ])
        #expect(result.status == 0, "\(result.error)")
        let recorded = try json(try #require(result.output.first))
        for key in ["active_duration_s", "events", "laps", "distance_m", "points"] { #expect(recorded[key] != nil, "missing \(key)") }
        let laps = try #require(recorded["laps"] as? [[String: Any]])
        #expect(laps.count == 4, "361 m in laps of 100 m")
        #expect(laps.map { $0["index"] as? Int } == [1, 2, 3, 4])
        let total = laps.compactMap { $0["distance_m"] as? Double }.reduce(0, +)
        #expect(abs(total - (recorded["distance_m"] as? Double ?? 0)) < 0.5)
        let id = try #require(recorded["id"] as? String)
        let shown = try json(try #require(try await run(["show", id, "--store", store, "--json"]).output.first))
        #expect((shown["laps"] as? [[String: Any]])?.count == 4)
        #expect((shown["events"] as? [[String: Any]])?.compactMap { $0["type"] as? String }.allSatisfy { $0 == "lap" } == true)
        let splits = try await run(["show", String(id.prefix(8)), "--store", store, "--splits", "100"])
        #expect(splits.output.filter { $0.hasPrefix("  split ") }.count == 4)
    }

    /// A run recorded with a heart rate and exported as GPX, recorded again from that file,
    /// records the same heart rate: a GPX file's heart rates replay with its fixes.
    @Test func recordingAGPXFileReplaysItsHeartRate() async throws {
        let walk = Repository.fixture("gpx/greenwich-walk.gpx").path
        let first = try await run(["record", "--store", store, "--simulate", walk, "--speed", "100", "--heart-rate-simulate", "3", "--json"])
        #expect(first.status == 0, "\(first.error)")
        let recorded = try json(try #require(first.output.first))
        let id = try #require(recorded["id"] as? String)
        let file = folder + "/with-heart-rate.gpx"
        #expect(try await run(["export", id, "--store", store, "--format", "gpx", "-o", file]).status == 0)

        let again = try await run(["record", "--store", store, "--simulate", file, "--speed", "100", "--json"])
        #expect(again.status == 0, "\(again.error)")
        let replayed = try json(try #require(again.output.first))
        let heartRate = try #require((recorded["samples"] as? [String: Any])?["heart_rate"] as? NSDictionary)
        #expect((replayed["samples"] as? [String: Any])?["heart_rate"] as? NSDictionary == heartRate)
        #expect(replayed["points"] as? Int == recorded["points"] as? Int)
    }

    /// On a terminal, keys work: space pauses and resumes, l marks a lap, q ends and saves. The
    /// terminal is a pseudo-terminal the test types into.
    @Test func keysOnATerminalPauseResumeLapAndEnd() async throws {
        let keyboard = try FakeSerialDevice()
        let walk = Repository.fixture("gpx/greenwich-walk.gpx").path
        let recorder = try ChildProcess(
            Repository.builtExecutable("workout").path, ["record", "--store", store, "--simulate", walk, "--speed", "2", "--json"],
            standardInput: keyboard.path)
        defer { recorder.terminate() }
        var watcher: WorkoutStore?
        func staged(_ sql: String) async -> Int {
            if watcher == nil, FileManager.default.fileExists(atPath: store) { watcher = try? WorkoutStore(path: store) }
            return (try? await watcher?.withDatabase { db in try Int.fetchOne(db, sql: sql) ?? 0 }) ?? 0
        }
        await waitUntil { await staged("SELECT count(*) FROM route_point") > 0 }
        for (key, events) in [(" ", 1), (" ", 2), ("l", 3)] {
            keyboard.write([key])
            await waitUntil { await staged("SELECT count(*) FROM workout_event") == events }
        }
        keyboard.write(["q"])
        #expect(await recorder.waitUntilExit() == 0, "\(recorder.lines(.error))")
        let recorded = try json(try #require(recorder.lines().first))
        #expect((recorded["events"] as? [[String: Any]])?.compactMap { $0["type"] as? String } == ["pause", "resume", "lap"])
        #expect(recorded["points"] as? Int ?? 0 < Fixtures.greenwichWalk().fixes.count, "q ended it before the walk did")
    }

    @Test func recordingWithoutAFixSavesNothingAndExits75() async throws {
        let empty = folder + "/no-fix.json"
        try #"{"class":"TPV","device":"/dev/ttyUSB0","mode":1,"time":"2024-05-01T10:00:00.000Z"}"#.write(toFile: empty, atomically: true, encoding: .utf8)
        let result = try await run(["record", "--store", store, "--simulate", empty, "--speed", "100"])
        #expect(result.status == 75)
        #expect(result.error == ["workout record: no fix arrived; nothing was saved."])
    }

    /// A workout whose activity type this version does not know (a newer version wrote it) made
    /// `list` exit 74 and show nothing: the rest is listed, and that one flagged.
    @Test func aWorkoutOfAnUnknownActivityTypeIsListedAndFlagged() async throws {
        #expect(try await run(["import", "--store", store, fixture("two-runs.gpx")]).status == 0)
        let listed = try await run(["list", "--store", store, "--json"])
        let first = try json(try #require(listed.output.first))
        let id = try #require(first["id"] as? String)
        let sql = "UPDATE workout SET activity_type = 'kitesurfing' WHERE uuid = X'\(id.replacingOccurrences(of: "-", with: ""))'"
        let update = try ChildProcess("/usr/bin/sqlite3", [store, sql])
        #expect(await update.waitUntilExit() == 0, "\(update.lines(.error))")

        let text = try await run(["list", "--store", store])
        #expect(text.status == 0)
        #expect(text.output.count == 2)
        #expect(text.output[0].contains("other*"))
        #expect(text.error == ["* \(id.prefix(8)): its activity type \"kitesurfing\" is unknown to this version (a newer one wrote it); shown as other."])
        let objects = try await run(["list", "--store", store, "--json"]).output.map(json)
        #expect(objects.map { $0["activity_unknown"] as? String } == ["kitesurfing", nil])
        let show = try await run(["show", String(id.prefix(8)), "--store", store])
        #expect(show.status == 0)
        #expect(show.output.first?.contains("other (stored as \"kitesurfing\", unknown to this version)") == true)
    }

    @Test func listShowAndDeleteFindAWorkoutByTheStartOfItsID() async throws {
        let imported = try await run(["import", "--store", store, "--json", fixture("two-runs.gpx")])
        let id = try #require(try json(imported.output[0])["id"] as? String)
        let list = try await run(["list", "--store", store, "--activity", "running"])
        #expect(list.output.count == 1)
        #expect(list.output[0].hasPrefix(String(id.prefix(8))))
        #expect(list.output[0].contains("Morning run"))
        let show = try await run(["show", "--store", store, String(id.prefix(8)), "--json"])
        #expect(show.status == 0)
        let shown = try json(try #require(show.output.first))
        #expect(shown["id"] as? String == id)
        #expect(shown["points"] as? Int == 5)
        #expect(shown["segments"] as? Int == 2)
        let text = try await run(["show", "--store", store, id])
        #expect(text.output.contains { $0.contains("5 points in 2 segments") })
        #expect(text.output.contains { $0.contains("heart rate") && $0.contains("max 150") })
        let deleted = try await run(["delete", "--store", store, String(id.prefix(6))])
        #expect(deleted.status == 0)
        #expect(try await run(["show", "--store", store, id]).status == 66)
        #expect(try await run(["list", "--store", store]).output.count == 1)
    }

    @Test func aStoreThatCannotBeOpenedExits74() async throws {
        let result = try await run(["list", "--store", folder + "/missing-folder/w.sqlite"])
        #expect(result.status == 74)
        #expect(result.error.first?.contains("missing-folder") == true)
    }
}

extension WorkoutCommandTests {
    @Test func exportWritesGPXAndGeoJSONThatReadBack() async throws {
        let imported = try await run(["import", "--store", store, "--json", fixture("two-runs.gpx")])
        let id = try #require(try json(imported.output[0])["id"] as? String)
        let gpx = try await run(["export", "--store", store, String(id.prefix(8))])
        #expect(gpx.status == 0)
        let text = gpx.output.joined(separator: "\n")
        #expect(text.contains("<gpxtpx:hr>150</gpxtpx:hr>"))
        #expect(text.contains("2024-05-01T07:10:00.250Z"))
        let file = folder + "/run.geojson"
        let geojson = try await run(["export", "--store", store, id, "--format", "geojson", "-o", file])
        #expect(geojson.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        #expect(try await run(["export", "--store", store, id, "--format", "kml"]).status == 64)
        #expect(try await run(["export", "--store", store, id, "-o", folder + "/no/such/dir/x.gpx"]).status == 73)
    }

    @Test func showPlotDrawsTheWorkout() async throws {
        let imported = try await run(["import", "--store", store, "--json", fixture("two-runs.gpx")])
        let id = try #require(try json(imported.output[0])["id"] as? String)
        let svg = folder + "/run.svg"
        let result = try await run(["show", "--store", store, id, "--plot", svg])
        #expect(result.status == 0)
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(picture.hasPrefix("<?xml") || picture.hasPrefix("<svg"))
        #expect(picture.contains("<polyline"))
        #expect(picture.contains("Running"))
    }
}

extension WorkoutCommandTests {
    /// A GPX file of one track of `points` points one second apart, with heart rate.
    func writeTrack(points: Int, to path: String, latitude: Double) throws {
        var text = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" xmlns:tpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><trkseg>"#
        text.reserveCapacity(points * 200)
        let start = 1_714_557_600
        for index in 0..<points {
            let time = RFC3339.string(from: Date(timeIntervalSince1970: Double(start + index)), fractionDigits: 0)
            text += #"<trkpt lat="\#(latitude + Double(index) * 1e-6)" lon="0.5"><ele>\#(index % 50)</ele><time>\#(time)</time>"#
            text += #"<extensions><tpx:TrackPointExtension><tpx:hr>\#(100 + index % 60)</tpx:hr></tpx:TrackPointExtension></extensions></trkpt>"#
        }
        text += "</trkseg></trk></gpx>\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// kill -9 while a large track is being imported: the store opens readable, the file imported
    /// before is complete, the one being imported is absent, and nothing staged is left.
    @Test(.timeLimit(.minutes(2)))
    func killedDuringAnImportLeavesEachWorkoutCompleteOrAbsent() async throws {
        let small = folder + "/small.gpx", large = folder + "/large.gpx", whole = folder + "/whole.gpx"
        try writeTrack(points: 300, to: small, latitude: 10)
        try writeTrack(points: 150_000, to: whole, latitude: 20)
        // The large file comes through a pipe, its first 60,000 points only: the import of its
        // track is under way, and cannot end, when the kill lands (a whole file on a busy machine
        // was imported before a test watching the store saw it begin).
        try #require(mkfifo(large, 0o600) == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let firstPart = bytes.prefix(bytes.count * 2 / 5)
        let killed = DispatchSemaphore(value: 0)
        let feeder = Thread {
            // A write after the kill fails (EPIPE) instead of raising SIGPIPE in the test process.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            let pipe = open(large, O_WRONLY)
            guard pipe >= 0 else { return }
            firstPart.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(pipe, raw.baseAddress! + offset, raw.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            // Kept open, so the import waits for the rest, until the import is killed.
            killed.wait()
            close(pipe)
        }
        feeder.start()
        defer { killed.signal() }
        let importer = try ChildProcess(Repository.builtExecutable("workout").path, ["import", "--store", store, "--json", small, large])
        let first = await importer.waitForLine { $0.contains("small.gpx") }
        #expect(first != nil, "\(importer.lines(.error))")
        // Wait until the large track's first batches are staged in the store, so the kill lands
        // in the middle of its import.
        let watcher = try WorkoutStore(path: store)
        try await waitUntil { try await watcher.storageCounts().stagedPoints >= 10_000 || importer.exitStatus != nil }
        #expect(try await watcher.storageCounts().stagedPoints >= 10_000, "the large import never got going")
        importer.send(signal: SIGKILL)
        let status = await importer.waitUntilExit()
        try #require(status == 128 + SIGKILL, "the import ended before it could be killed: \(status)")

        let reopened = try WorkoutStore(path: store)
        #expect(try await reopened.checkIntegrity() == [])
        let workouts = try await reopened.workouts()
        #expect(workouts.count == 1)
        let kept = try #require(workouts.first)
        #expect(try await reopened.route(of: kept.id)?.pointCount == 300)
        #expect(try await reopened.samples(of: kept.id, type: .heartRate).count == 300)
        let counts = try await reopened.storageCounts()
        #expect(counts.stagedRoutes + counts.stagedPoints + counts.stagedWorkouts + counts.stagedSamples == 0)
        #expect(counts.samples == 300 && counts.points == 300)
    }
}
