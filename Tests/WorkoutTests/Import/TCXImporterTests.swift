import FIT
import Foundation
import LocationFacade
import Simulators
import TCX
import TestSupport
import Testing
import WorkoutSimulators
@testable import Workout

/// TCX import on our fixtures (fixtures/tcx, made by scripts/make-tcx-fixtures: gpsbabel's TCX
/// writer given fixtures/gpx/two-runs.gpx, as activities and as courses; our TCX export of
/// fixtures/fit/garmin-sdk-run.fit) and on the public corpus; TCX export through import again;
/// gpsbabel reading every TCX file we write.
@Suite(.timeLimit(.minutes(2))) struct TCXImporterTests {
    let store: WorkoutStore

    init() throws {
        store = try WorkoutStore.inMemory()
    }

    func importFile(_ path: String, into store: WorkoutStore? = nil) async throws -> TCXImportReport {
        try await TCXImporter(store: store ?? self.store).importFile(at: path)
    }

    @Test func anActivityBecomesAWorkoutWithItsLapsPauseAndSamples() async throws {
        let report = try await importFile(Repository.fixture("tcx/exported-run.tcx").path)
        let run = try #require(report.workouts.first)
        #expect(report.workouts.count == 1 && report.notImported.isEmpty && report.read.skipped.isEmpty)
        #expect(run.workout.activityType == .running && run.workout.metadata.sourceDevice == "Garmin product 3113")
        #expect(run.points == 100 && run.segments == 2 && run.pauses == 1 && run.laps == 2)
        let events = try await store.events(of: run.workoutID)
        #expect(events.map(\.kind) == [.pause, .resume, .lap] && events.last?.trigger == .manual)
        #expect(events.map(\.time) == [epoch(1_714_546_840), epoch(1_714_546_860), epoch(1_714_546_880)])
        let samples = try await store.samples(of: run.workoutID)
        #expect(samples.filter { $0.type == .heartRate }.count == 101 && samples.filter { $0.type == .power }.count == 101)
        #expect(samples.filter { $0.type == .speed }.count == 1, "the point without a position keeps its speed")
        #expect(run.deviceTotals?.timerTime == 99 && run.deviceTotals?.calories == 25)
    }

    @Test func theSamePointsFromFITAndTCXAreOneWorkout() async throws {
        let fit = try await FITImporter(store: store).importFile(at: Repository.fixture("fit/garmin-sdk-run.fit").path)
        let tcx = try await importFile(Repository.fixture("tcx/exported-run.tcx").path)
        #expect(tcx.workouts.map(\.workoutID) == fit.workouts.map(\.workoutID) && tcx.saved.isEmpty)
    }

    @Test func gpsbabelsActivitiesImportAndItsCoursesAreNamedAsNotWorkouts() async throws {
        let report = try await importFile(Repository.fixture("tcx/gpsbabel-two-runs.tcx").path)
        #expect(report.workouts.count == 2)
        #expect(report.notImported.map(\.kind) == [.activity] && report.notImported.first?.reason.contains("valid time") == true)
        let gpx = try await GPXImporter(store: try WorkoutStore.inMemory()).importFile(at: Repository.fixture("gpx/two-runs.gpx").path)
        #expect(report.workouts.map(\.points) == gpx.workouts.map(\.points))
        // gpsbabel writes each lap's Calories, which the schema requires, as 0: that says no energy.
        #expect(report.workouts.allSatisfy { $0.workout.totals.energy == nil && $0.deviceTotals?.calories == nil })
        let courses = try await importFile(Repository.fixture("tcx/gpsbabel-two-runs-course.tcx").path)
        #expect(courses.workouts.isEmpty && courses.notImported.map(\.kind) == [.course, .course, .course])
        #expect(courses.notImported.first?.description.contains("course 1 \"Morning run\" not imported: it is a course") == true)
    }

    @Test func aFITWorkoutThroughTCXKeepsPointsPausesLapsAndSamples() async throws {
        let folder = try TemporaryFolder()
        let original = try #require(try await FITImporter(store: store).importFile(at: Repository.fixture("fit/garmin-sdk-run.fit").path).workouts.first)
        let file = folder.file("run.tcx")
        let summary = try await store.export(original.workoutID, format: .tcx, toFileAt: file)
        #expect(summary.samplesNotWritten == 101, "TCX has no place for the 101 temperatures")
        let again = try WorkoutStore.inMemory()
        let copy = try #require(try await importFile(file, into: again).workouts.first)
        #expect(try await readRoute(again, copy.workoutID).map(\.location) == readRoute(store, original.workoutID).map(\.location))
        #expect(try await again.events(of: copy.workoutID) == store.events(of: original.workoutID))
        #expect(try await again.laps(of: copy.workoutID).map(\.movingTime) == store.laps(of: original.workoutID).map(\.movingTime))
        for type in [QuantityType.heartRate, .power, .speed] {
            #expect(try await again.samples(of: copy.workoutID, type: type) == store.samples(of: original.workoutID, type: type), "\(type)")
        }
        #expect(try await again.samples(of: copy.workoutID, type: .cadence).map(\.value).allSatisfy { $0 == 86 }, "85.5 rpm: TCX holds whole rpm")
        #expect(copy.workout.metadata.externalID == original.workout.metadata.externalID)
    }

    @Test(.enabled(if: Repository.hasProgram("gpsbabel"), "needs gpsbabel (scripts/install-deps installs it)"))
    func gpsbabelReadsEveryTCXFileWeWrite() async throws {
        let folder = try TemporaryFolder()
        for (index, (_, points, store, id)) in try await FITExportPeerTests.exports(into: folder).enumerated() {
            let file = folder.file("export-\(index).tcx")
            let summary = try await store.export(id, format: .tcx, toFileAt: file)
            #expect(summary.points == points)
            #expect(try await FITExportPeerTests.gpsbabelPoints(format: "gtrnctr", file: file) == points, "\(file)")
        }
    }

    static let corpus = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/tcx")
    static let corpusFiles = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter { $0.hasSuffix(".tcx") }.sorted()

    @Test(.enabled(if: !corpusFiles.isEmpty, "the TCX corpus is not at ../shared/corpora/tcx"),
          .enabled(if: Repository.hasProgram("gpsbabel"), "needs gpsbabel (scripts/install-deps installs it)"),
          arguments: corpusFiles)
    func theCorpusImportsWithGPSBabelsPoints(_ name: String) async throws {
        let path = Self.corpus.appendingPathComponent(name).path
        let report = try await importFile(path, into: try WorkoutStore.inMemory())
        let workout = try #require(report.workouts.first)
        #expect(report.workouts.count == 1 && report.read.skipped.isEmpty)
        #expect(workout.points == (try await FITExportPeerTests.gpsbabelPoints(format: "gtrnctr", file: path)))
        #expect(workout.laps == report.read.laps && workout.deviceTotals?.distance != nil)
    }
}
