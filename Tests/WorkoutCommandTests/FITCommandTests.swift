import Foundation
import Simulators
import Testing
import TestSupport

/// `workout import`, `show` and `export` with FIT files, as a user runs them: the file Garmin's
/// encoder wrote (fixtures/fit/garmin-sdk-run.fit, scripts/make-fit-fixtures) and damaged copies.
@Suite(.timeLimit(.minutes(1)))
struct FITCommandTests {
    let folder: String
    var store: String { folder + "/workouts.sqlite" }
    let run = Repository.fixture("fit/garmin-sdk-run.fit").path

    init() throws {
        folder = NSTemporaryDirectory() + "workout-fit-command-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func workout(_ arguments: [String]) async throws -> (status: Int32, output: [String], error: [String]) {
        let process = try ChildProcess(Repository.builtExecutable("workout").path, arguments)
        let status = await process.waitUntilExit()
        return (status, process.lines(.output), process.lines(.error))
    }

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The first line of `output` as a JSON object.
    func firstObject(_ output: [String]) throws -> [String: Any] {
        let line = try #require(output.first)
        return try json(line)
    }

    /// A copy of the run with its last byte (the file CRC's) changed.
    func damagedCopy() throws -> String {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: run))
        bytes[bytes.count - 1] ^= 0x5A
        let path = folder + "/damaged.fit"
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func importTellsFITByItsContentAndPrintsLapsPausesAndTheDevicesTotals() async throws {
        let renamed = folder + "/ride.gpx"   // the name says GPX; the content is FIT
        try FileManager.default.copyItem(atPath: run, toPath: renamed)
        let result = try await workout(["import", "--store", store, "--json", renamed])
        #expect(result.status == 0, "\(result.error)")
        let object = try firstObject(result.output)
        #expect(object["activity"] as? String == "running" && object["points"] as? Int == 100)
        #expect(object["laps"] as? Int == 2 && object["pauses"] as? Int == 1 && object["segments"] as? Int == 2)
        let device = try #require(object["device"] as? [String: Any])
        #expect(device["device_distance_m"] as? Double == 300 && device["device_timer_time_s"] as? Double == 100)

        let text = try await workout(["import", "--store", store, run])
        #expect(text.output.first?.contains("activity 1: already in the store as") == true)
        #expect(text.output.contains { $0.hasPrefix("  the device: 300 m, timer 0:01:40") }, "\(text.output)")
    }

    @Test func showPrintsTheDevicesTotalsBesideOursWhereTheyDiffer() async throws {
        let imported = try await workout(["import", "--store", store, "--json", run])
        let id = try #require(try firstObject(imported.output)["id"] as? String)
        let shown = try await workout(["show", "--store", store, id])
        #expect(shown.status == 0)
        #expect(shown.output.contains("  distance   297 m (the device: 300 m)"), "\(shown.output)")
        // The device's timer time is its duration (the time not paused by the user): printed beside ours.
        #expect(shown.output.contains("  duration   0:01:39 (the device: timer 0:01:40)"), "\(shown.output)")
        #expect(shown.output.contains { $0.hasPrefix("  lap   2") })
        let shownJSON = try await workout(["show", "--store", store, "--json", id])
        let object = try firstObject(shownJSON.output)
        #expect((object["device"] as? [String: Any])?["device_energy_kcal"] as? Double == 25)
        #expect((object["events"] as? [[String: Any]])?.compactMap { $0["type"] as? String } == ["pause", "resume", "lap"])
    }

    @Test func aBadCRCIsAWarningAndStrictRefusesTheFileNamingTheByte() async throws {
        let damaged = try damagedCopy()
        let lenient = try await workout(["import", "--store", store, damaged])
        #expect(lenient.status == 0)
        #expect(lenient.error.contains { $0.contains("warning") && $0.contains("damaged.fit: byte 3921: bad CRC") }, "\(lenient.error)")
        let strict = try await workout(["import", "--store", folder + "/strict.sqlite", "--strict", damaged])
        #expect(strict.status == 65)
        #expect(strict.error.contains { $0.contains("damaged.fit: byte 3921: bad CRC") }, "\(strict.error)")
        #expect(try await workout(["list", "--store", folder + "/strict.sqlite"]).output.isEmpty, "nothing saved")
    }

    @Test func aFileWithNothingToImportSaysWhatItHoldsExits65AndSavesNothing() async throws {
        let result = try await workout(["import", "--store", store, Repository.fixture("fit/garmin-sdk-course.fit").path])
        // Issue 24: a file that imports nothing is bad input, as a file that is not GPX is (it exited 0).
        #expect(result.status == 65)
        #expect(result.error.contains { $0.contains("garmin-sdk-course.fit: byte 0: not imported: it is a course (a route to follow, 10 records)") }, "\(result.error)")
        #expect(result.error.last?.contains("garmin-sdk-course.fit: nothing imported from it.") == true, "\(result.error)")
        #expect(try await workout(["list", "--store", store]).output.isEmpty)
    }

    @Test func exportWritesAFITFileThatImportsAsTheSameWorkout() async throws {
        let imported = try await workout(["import", "--store", store, "--json", run])
        let id = try #require(try firstObject(imported.output)["id"] as? String)
        let file = folder + "/out.fit"
        let exported = try await workout(["export", "--store", store, id, "--format", "FIT", "-o", file])
        #expect(exported.status == 0 && exported.error.contains("Wrote 100 points to \(file)."), "\(exported.error)")
        let again = try await workout(["import", "--store", store, "--json", file])
        let object = try firstObject(again.output)
        #expect(object["status"] as? String == "already_imported" && object["id"] as? String == id)
    }

    static let trainerRide = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/fit/sample-activity-indoor-trainer.fit").path

    /// An indoor ride (the corpus' trainer file: no position) has nothing for a GPX track to hold:
    /// `workout export --format gpx` exits 65 with the line that says what to do, and writes
    /// nothing; FIT and TCX write it.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: trainerRide), "the FIT corpus is not at ../shared/corpora/fit"))
    func anIndoorRideExportedAsGPXExits65AndSaysToExportFITOrTCX() async throws {
        let imported = try await workout(["import", "--store", store, "--json", Self.trainerRide])
        let id = try #require(try firstObject(imported.output)["id"] as? String)
        let file = folder + "/ride.gpx"
        let gpx = try await workout(["export", "--store", store, id, "--format", "gpx", "-o", file])
        #expect(gpx.status == 65)
        #expect(gpx.error == ["workout export: Cannot export workout \(id) as GPX: it has no route (an indoor workout), and a GPX track is a list of positions. Export it as FIT or TCX instead; nothing was written."],
                "\(gpx.error)")
        #expect(!FileManager.default.fileExists(atPath: file))
        for format in ["fit", "tcx"] {
            let exported = try await workout(["export", "--store", store, id, "--format", format, "-o", folder + "/ride." + format])
            #expect(exported.status == 0, "\(format): \(exported.error)")
        }
    }
}
