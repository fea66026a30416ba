import Foundation
import Simulators
import Testing
import TestSupport
import LocationFacade
import Workout

/// `workout show`'s training figures, as a user runs it: `--ftp` and `--max-heart-rate` give the
/// profile, `--json` has a key for each figure, and the device's own are printed beside ours where
/// they differ.
@Suite(.timeLimit(.minutes(1)))
struct TrainingShowCommandTests {
    let folder: String
    var store: String { folder + "/workouts.sqlite" }
    static let edge = Repository.root.deletingLastPathComponent()
        .appendingPathComponent("shared/corpora/fit/Edge810-Vector-2013-08-16-15-35-10.fit").path

    init() throws {
        folder = NSTemporaryDirectory() + "workout-training-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func workout(_ arguments: [String]) async throws -> (status: Int32, output: [String], error: [String]) {
        let process = try ChildProcess(Repository.builtExecutable("workout").path, arguments)
        let status = await process.waitUntilExit()
        return (status, process.lines(.output), process.lines(.error))
    }

    func importedID(_ file: String) async throws -> String {
        let result = try await workout(["import", "--store", store, "--json", file])
        #expect(result.status == 0, "\(result.error)")
        let line = try #require(result.output.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["id"] as? String)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: edge), "the FIT corpus is not at ../shared/corpora/fit"))
    func showPrintsOursBesideTheDevicesAgainstTheFTPGiven() async throws {
        let id = try await importedID(Self.edge)
        let text = try await workout(["show", "--store", store, id, "--ftp", "315", "--max-heart-rate", "190"])
        #expect(text.status == 0, "\(text.error)")
        let training = try #require(text.output.first { $0.hasPrefix("  training ") }, "\(text.output)")
        #expect(training.contains("NP 30") && training.contains("IF 0.9") && training.contains("TSS 11") && training.contains("(FTP 315 W)"), "\(training)")
        #expect(text.output.contains { $0.hasPrefix("  power zones Z1 ") && $0.contains("Z7 ") }, "\(text.output)")
        #expect(text.output.contains { $0.hasPrefix("  hr zones    Z1 ") && $0.contains("Z5 ") }, "\(text.output)")
        #expect(text.output.contains { $0.hasPrefix("  power ") && $0.contains("avg ") }, "\(text.output)")

        let json = try await workout(["show", "--store", store, id, "--json", "--ftp", "315"])
        #expect(json.status == 0, "\(json.error)")
        let jsonLine = try #require(json.output.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(jsonLine.utf8)) as? [String: Any])
        let figures = try #require(object["training"] as? [String: Any])
        let normalized = try #require(figures["normalized_power_w"] as? Double)
        let device = try #require(object["device"] as? [String: Any])
        #expect(device["device_normalized_power_w"] as? Double == 301 && device["device_threshold_power_w"] as? Double == 315)
        #expect(abs(normalized - 301) <= 3, "ours \(normalized) W, the Edge 810's 301 W")
        #expect(figures["ftp_w"] as? Double == 315)
        let zones = try #require(figures["time_in_power_zone"] as? [String: Any])
        let times = try #require(zones["times_s"] as? [Double]), unrecorded = try #require(zones["unrecorded_s"] as? Double)
        let duration = try #require(figures["duration_s"] as? Double)
        #expect(times.count == 7 && abs(times.reduce(0, +) + unrecorded - duration) < 0.01, "the zones make the duration")

        // Without --ftp, the file's own (its threshold_power, kept as ftp_w); another FTP changes IF and TSS.
        let own = try await workout(["show", "--store", store, id])
        let ownLine = try #require(own.output.first { $0.hasPrefix("  training ") })
        #expect(ownLine.contains("(FTP 315 W)"), "\(ownLine)")
        let other = try await workout(["show", "--store", store, id, "--ftp", "250"])
        let otherLine = try #require(other.output.first { $0.hasPrefix("  training ") })
        #expect(otherLine.contains("(FTP 250 W)") && otherLine.contains("IF 1.2") && otherLine.contains("the device: IF 0.96"), "\(otherLine)")
    }

    /// A workout with power and no FTP anywhere: NP and work, and the show says how to have the rest.
    @Test func withoutAnFTPShowSaysHowToHaveIntensityAndStress() async throws {
        let id = try await savedRide(profile: nil)
        let shown = try await workout(["show", "--store", store, id])
        let line = try #require(shown.output.first { $0.hasPrefix("  training ") }, "\(shown.output)")
        #expect(line.contains("NP ") && !line.contains("  IF ") && line.contains("give --ftp"), "\(line)")
        #expect(!shown.output.contains { $0.hasPrefix("  power zones") }, "no zones without an FTP")
    }

    @Test func aProfileThatIsNotAPositiveNumberIsAUsageError() async throws {
        for arguments in [["--ftp", "0"], ["--ftp", "-250"], ["--max-heart-rate", "nan"]] {
            let result = try await workout(["show", "--store", store, "0000"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.status)")
            #expect(result.error.joined().contains(arguments[0]), "\(result.error)")
        }
    }

    /// Our own export, imported again: the device's figures are ours, so none is printed beside them.
    @Test func ourOwnExportImportedShowsNoDeviceFiguresBesideOurs() async throws {
        let made = try await savedRide(profile: TrainingProfile(functionalThresholdPower: 250), in: folder + "/made.sqlite")
        let file = folder + "/ride.fit"
        let export = try await workout(["export", "--store", folder + "/made.sqlite", made, "--format", "fit", "-o", file])
        #expect(export.status == 0, "\(export.error)")
        let id = try await importedID(file)
        let shown = try await workout(["show", "--store", store, id])
        let line = try #require(shown.output.first { $0.hasPrefix("  training ") }, "\(shown.output)")
        #expect(line.contains("(FTP 250 W)") && !line.contains("the device"), "\(line)")
        let power = try #require(shown.output.first { $0.hasPrefix("  power ") && $0.contains("avg") })
        #expect(!power.contains("the device"), "\(power)")
    }

    /// Ten minutes of 60 s at 320 W and 60 s at 150 W, saved with the library into `path` (the
    /// test's store unless given); returns its id.
    func savedRide(profile: TrainingProfile?, in path: String? = nil) async throws -> String {
        let library = try WorkoutStore(path: path ?? store)
        let start = Date(timeIntervalSince1970: 1_714_557_600)
        let record = WorkoutRecord(
            activityType: .cycling, start: start, end: start.addingTimeInterval(600),
            metadata: WorkoutMetadata(values: profile?.metadataValues ?? [:]))
        let route = (0...600).map { second in
            let time = start.addingTimeInterval(Double(second))
            return Location(latitude: 51.5 + Double(second) * 1e-4, longitude: 0, time: time, receivedAt: time)
        }
        let samples = (0...600).map { second in
            QuantitySample(type: .power, value: second % 120 < 60 ? 320 : 150, at: start.addingTimeInterval(Double(second)))
        }
        try await library.saveWorkout(record, samples: samples, route: route)
        return record.id.uuidString
    }
}
