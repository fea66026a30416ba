import FIT
import Foundation
import LocationFacade
import TestSupport
import Testing
import WorkoutSimulators
@testable import Workout

/// FIT import on files Garmin's own encoder wrote (`fixtures/fit/garmin-sdk-*.fit`, made by
/// scripts/make-fit-fixtures; what each holds is listed there) and on copies cut short or damaged.
@Suite struct FITImporterTests {
    let store: WorkoutStore

    init() throws {
        store = try WorkoutStore.inMemory()
    }

    static let run = Repository.fixture("fit/garmin-sdk-run.fit").path

    func importFile(_ path: String, options: FITImportOptions = FITImportOptions(), into store: WorkoutStore? = nil) async throws -> FITImportReport {
        try await FITImporter(store: store ?? self.store, options: options).importFile(at: path)
    }

    @Test func aRunBecomesAWorkoutWithItsPauseLapsSamplesAndTheDevicesTotals() async throws {
        let report = try await importFile(Self.run)
        #expect(report.notImported.isEmpty && report.read.issues.isEmpty)
        let run = try #require(report.workouts.first)
        #expect(report.workouts.count == 1 && run.isNew)
        #expect(run.workout.activityType == .running)
        #expect(run.points == 100, "101 records, one without a position")
        #expect(run.segments == 2 && run.pauses == 1 && run.laps == 2)
        let workout = try #require(try await store.workout(id: run.workoutID))
        #expect(workout.start == epoch(1_714_546_800) && workout.end == epoch(1_714_546_919))
        #expect(workout.metadata.sourceDevice == "Garmin product 3113")
        #expect(workout.totals.energy == 25)
        #expect(workout.totals.movingTime == 99, "active: 0-40 s and 60-119 s")
        #expect(DeviceTotals(workout.metadata) == DeviceTotals(
            distance: 300, timerTime: 100, elapsedTime: 119, ascent: 24, descent: 0, calories: 25, heartRateAverage: 134, heartRateMaximum: 149))

        let events = try await store.events(of: run.workoutID)
        #expect(events.map(\.kind) == [.pause, .resume, .lap])
        #expect(events.map(\.time) == [epoch(1_714_546_840), epoch(1_714_546_860), epoch(1_714_546_880)])
        #expect(events.last?.trigger == .manual)
        let laps = try await store.laps(of: run.workoutID)
        #expect(laps.map(\.start) == [epoch(1_714_546_800), epoch(1_714_546_880)])
        #expect(laps.map(\.movingTime) == [60, 39], "the pause is left out of the first lap")

        let route = try await readRoute(store, run.workoutID)
        #expect(route.map(\.segment) == Array(repeating: 0, count: 41) + Array(repeating: 1, count: 59))
        #expect(route[0].location.latitude == FITSemicircles.degrees(614_155_269))
        #expect(route[0].location.altitude == 10 && route[0].location.speed == 3)
        #expect(route[0].unknownExtensions?.contains(#"name="Form Power" units="Watts">40<"#) == true, "unclaimed developer fields stay with the point")
        #expect(route[0].unknownExtensions?.contains(#"name="Power""#) == false, "a developer field that is record.power becomes power")

        let samples = try await store.samples(of: run.workoutID)
        let count = { (type: QuantityType) in samples.filter { $0.type == type }.count }
        #expect(count(.heartRate) == 101 && count(.cadence) == 101 && count(.temperature) == 101 && count(.power) == 101)
        #expect(samples.filter { $0.type == .speed }.map(\.start) == [epoch(1_714_546_900)], "the record without a position keeps its speed")
        #expect(samples.first { $0.type == .cadence }?.value == 85.5)
        #expect(try await store.checkIntegrity().isEmpty)
    }

    @Test func importingTheSameFileTwiceFindsTheWorkout() async throws {
        let first = try await importFile(Self.run)
        let second = try await importFile(Self.run)
        #expect(second.workouts.map(\.workoutID) == first.workouts.map(\.workoutID))
        #expect(second.saved.isEmpty && second.workouts.first?.isNew == false)
        #expect(try await store.workoutCount() == 1)
    }

    @Test(arguments: [
        ("garmin-sdk-course.fit", "course"),
        ("garmin-sdk-no-records.fit", "it has no records"),
    ])
    func aFITFileWithNothingToImportSaysSo(fixture: String, says: String) async throws {
        let report = try await importFile(Repository.fixture("fit/" + fixture).path)
        #expect(report.workouts.isEmpty)
        #expect(report.notImported.map(\.offset) == [0])
        #expect(report.notImported.first?.reason.contains(says) == true, "\(report.notImported)")
        #expect(try await store.workoutCount() == 0)
        #expect(try await stagedRows() == 0)
    }

    @Test func aFileCutShortImportsWhatItHoldsAndSaysWhere() async throws {
        let folder = try TemporaryFolder()
        let cut = folder.file("cut.fit")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.run))
        try bytes.prefix(2_400).write(to: URL(fileURLWithPath: cut))
        let report = try await importFile(cut)
        let run = try #require(report.workouts.first)
        #expect(run.points > 20 && run.points < 100)
        let issue = try #require(report.read.issues.first)
        #expect(issue.offset > 2_300 && issue.offset <= 2_400 && issue.description.contains("truncated"))

        await #expect {
            try await importFile(cut, options: FITImportOptions(strict: true), into: try WorkoutStore.inMemory())
        } throws: { error in
            guard let error = error as? FITImportError, case let .read(.truncated(file, offset, _), imported) = error else { return false }
            return file == cut && offset == issue.offset && imported.isEmpty
        }
    }

    /// A cut .fit.gz imports what its gzip data inflates to, as a cut .fit does (it was refused
    /// whole, at "byte 0"); strict refuses it at the offset where the FIT data stops.
    @Test func aFITGzCutShortImportsWhatItInflatesTo() async throws {
        let folder = try TemporaryFolder()
        let plain = folder.file("ride.fit")
        try FileManager.default.copyItem(atPath: Self.run, toPath: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -n '\(plain)'"]
        try gzip.run()
        gzip.waitUntilExit()
        let gz = try Data(contentsOf: URL(fileURLWithPath: plain + ".gz"))
        let cut = folder.file("cut.fit.gz")
        try gz.prefix(gz.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let report = try await importFile(cut)
        let run = try #require(report.workouts.first)
        #expect(run.points > 0 && run.points < 100)
        let issue = try #require(report.read.issues.first)
        #expect(report.read.issues.count == 1 && report.read.compressed)
        #expect(issue.offset > 0 && issue.description.contains("truncated") && issue.description.contains("gzip"), "\(issue)")

        await #expect {
            try await importFile(cut, options: FITImportOptions(strict: true), into: try WorkoutStore.inMemory())
        } throws: { error in
            guard let error = error as? FITImportError, case let .read(.truncated(file, offset, _), imported) = error else { return false }
            return file == cut && offset == issue.offset && imported.isEmpty
        }
    }

    @Test func aBadCRCImportsWithAWarningAndStrictRefusesIt() async throws {
        let folder = try TemporaryFolder()
        let damaged = folder.file("crc.fit")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.run))
        bytes[bytes.count - 1] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let report = try await importFile(damaged)
        #expect(report.workouts.count == 1 && report.read.issues.map(\.offset) == [bytes.count - 2])

        let strictStore = try WorkoutStore.inMemory()
        await #expect(throws: FITImportError.self) {
            try await importFile(damaged, options: FITImportOptions(strict: true), into: strictStore)
        }
        #expect(try await strictStore.workoutCount() == 0)
        let counts = try await strictStore.storageCounts()
        #expect(counts.stagedRoutes + counts.stagedPoints + counts.stagedWorkouts + counts.stagedSamples == 0, "nothing of it is left staged")
    }

    @Test func notFITIsRefusedWithTheFileName() async throws {
        await #expect {
            try await importFile(Repository.fixture("gpx/two-runs.gpx").path)
        } throws: { error in
            guard let error = error as? FITImportError, case let .read(.notFIT(file, _), _) = error else { return false }
            return file.hasSuffix("two-runs.gpx")
        }
    }

    @Test func theActivityOptionOverridesTheSport() async throws {
        let report = try await importFile(Self.run, options: FITImportOptions(activity: .hiking))
        #expect(report.workouts.map(\.workout.activityType) == [.hiking])
    }

    func stagedRows() async throws -> Int {
        let counts = try await store.storageCounts()
        return counts.stagedRoutes + counts.stagedPoints + counts.stagedWorkouts + counts.stagedSamples
    }
}
