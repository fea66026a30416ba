import Foundation
import Testing
import TestSupport
@testable import Workout

/// The differential suite of the figures: a workout keeps its figures whatever path it takes.
/// Every track of the public GPX corpus (`../shared/corpora/gpx`), every activity of the public
/// FIT corpus (`../shared/corpora/fit`) and recorded sessions (speed reported or worked out,
/// auto-pause on and off, a pause, a lap, a strap read between the fixes) are exported to GPX,
/// FIT and TCX and imported back into a new store: the distance within 0.1 %, the elapsed time,
/// duration and moving time within 1 s, the mean heart rate within 1 bpm, and the laps, pauses
/// and stops are the same. Imported into the store that holds it, each export is found as the
/// workout it came from.
///
/// The corpus files that hold no timed track or activity are left out, each with the reason its
/// import gives (a FIT settings, course or monitoring file; a GPX file with only routes or
/// waypoints, or a track without times). What a format cannot hold is left out of its round trip,
/// and said here: FIT dates nothing before 1998-07-04 (its dates below 2^28 s are seconds since the
/// device started), so two GPX test tracks dated 1901 are refused by the FIT export with that
/// reason; a GPX track is a list of positions, so the GPX export refuses the activities without
/// any (indoors), which go through FIT and TCX; TCX holds heart rates from 1 to 255, so a reading of 0 (a strap not yet on the skin) is
/// not written to TCX, and the TCX round trip's mean is compared with the mean of the others.
@Suite(.timeLimit(.minutes(5)))
struct FigureRoundTripTests {
    static let corpora = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora")

    static func files(_ folder: String, suffix: String) -> [String] {
        let root = corpora.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.lowercased().hasSuffix(suffix) }.sorted()
            .map { root.appendingPathComponent($0).path }
    }

    /// The dates a FIT file can hold: from 2^28 s after FIT's epoch, 1989-12-31T00:00:00Z.
    static let fitDates = Date(timeIntervalSince1970: 631_065_600 + 268_435_456)...Date(timeIntervalSince1970: 631_065_600 + 4_294_967_295)

    static let gpxFiles = files("gpx", suffix: ".gpx")
    static let fitFiles = files("fit", suffix: ".fit")

    /// Exports `workout` in each format and imports each export into a new store and into `store`.
    func roundTrip(_ workout: WorkoutRecord, in store: WorkoutStore, named name: String) async throws {
        let original = try await ShownFigures(workout, in: store)
        let folder = NSTemporaryDirectory() + "figures-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for format in [WorkoutExportFormat.gpx, .fit, .tcx] {
            let file = folder + "/export.\(format.rawValue)"
            if format == .fit, workout.start < Self.fitDates.lowerBound || workout.end > Self.fitDates.upperBound {
                await #expect(throws: WorkoutStoreError.self, "\(name): FIT cannot date it, and the export says so") {
                    try await store.export(workout.id, format: format, toFileAt: file)
                }
                continue
            }
            if format == .gpx, try await store.route(of: workout.id) == nil {
                await #expect(throws: WorkoutStoreError.self, "\(name): a GPX track is its positions, and this workout has none") {
                    try await store.export(workout.id, format: format, toFileAt: file)
                }
                continue
            }
            try await store.export(workout.id, format: format, toFileAt: file)
            let fresh = try WorkoutStore.inMemory()
            let imported = try await AnyImport.run(file, into: fresh)
            try #require(imported.count == 1, "\(name) as \(format): \(imported.count) workouts")
            let copy = try await ShownFigures(imported[0].workout, in: fresh)
            var expected = original
            if format == .tcx {
                let heartRates = try await store.samples(of: workout.id, type: .heartRate)
                expected.heartRate = SampleFigures(samples: heartRates.filter { (1...255).contains($0.value) })?.average
            }
            let differences = copy.differences(from: expected)
            #expect(differences.isEmpty, "\(name) as \(format): \(differences) differ: \(copy) against \(original)")
            if let pauses = imported[0].pauses, let stops = imported[0].stops {
                // What the import says (as `workout import` prints it) is what it saved.
                #expect(pauses == copy.pauses && stops == copy.stops, "\(name) as \(format): the import says \(pauses) pauses, \(stops) stops")
            }
            let again = try await AnyImport.run(file, into: store)
            #expect(again.map(\.outcome).allSatisfy { if case .alreadySaved(workout.id, _) = $0 { true } else { false } },
                    "\(name) as \(format): imported into its store, it is found as itself: \(again.map(\.outcome))")
        }
    }

    @Test(.enabled(if: !gpxFiles.isEmpty, "the GPX corpus is not at ../shared/corpora/gpx"), .tags(.corpus),
          .disabled(if: ThreadSanitizer.isRunning, "a corpus, ten times slower under TSan: the recorded sessions' round trips run there"),
          arguments: gpxFiles)
    func everyTrackOfTheGPXCorpusKeepsItsFigures(_ path: String) async throws {
        let store = try WorkoutStore.inMemory()
        let report = try? await GPXImporter(store: store).importFile(at: path)
        guard let report, !report.workouts.isEmpty else {
            // Routes or waypoints only, or a track without valid times: nothing to take a path.
            #expect(report == nil || !report!.tracksNotImported.isEmpty || report!.workouts.isEmpty)
            return
        }
        for imported in report.workouts {
            try await roundTrip(imported.workout, in: store, named: "\(path) track \(imported.trackIndex)")
        }
    }

    @Test(.enabled(if: !fitFiles.isEmpty, "the FIT corpus is not at ../shared/corpora/fit"), .tags(.corpus),
          .disabled(if: ThreadSanitizer.isRunning, "42 activities, ten times slower under TSan (the largest ran past 5 minutes beside the other tests): the recorded sessions' round trips run there"),
          arguments: fitFiles)
    func everyActivityOfTheFITCorpusKeepsItsFigures(_ path: String) async throws {
        let store = try WorkoutStore.inMemory()
        guard let report = try? await FITImporter(store: store).importFile(at: path), !report.saved.isEmpty else {
            // Not an activity (settings, a course, monitoring, a workout plan) or no record with a date.
            return
        }
        for imported in report.saved {
            try await roundTrip(imported.workout, in: store, named: "\(path)")
        }
    }

    @Test(arguments: RecordedSessions.variants)
    func aRecordedSessionKeepsItsFigures(_ variant: RecordedSessions.Variant) async throws {
        let store = try WorkoutStore.inMemory()
        let workout = try await RecordedSessions.record(variant, into: store)
        let shown = try await ShownFigures(workout, in: store)
        #expect(shown.pauses == 1 && shown.laps == 2, "\(variant): \(shown)")
        #expect(variant.autoPause ? shown.stops == 3 : shown.stops == 0, "\(variant): \(shown)")
        #expect(shown.heartRate != nil)
        try await roundTrip(workout, in: store, named: "a session, \(variant)")
    }
}
