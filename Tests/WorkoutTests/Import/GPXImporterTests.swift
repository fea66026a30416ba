import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import TestSupport
import Testing
@testable import Workout

@Suite struct GPXImporterTests {
    let store: WorkoutStore

    init() throws {
        store = try WorkoutStore.inMemory()
    }

    func importFixture(_ name: String, options: GPXImportOptions = GPXImportOptions()) async throws -> GPXImportReport {
        try await GPXImporter(store: store, options: options).importFile(at: Repository.fixture("gpx/" + name).path)
    }

    @Test func eachTrackBecomesAWorkoutWithItsSegmentsSamplesAndTotals() async throws {
        let report = try await importFixture("two-runs.gpx")
        #expect(report.workouts.count == 2)
        let run = try #require(report.workouts.first)
        #expect(run.isNew)
        #expect(run.trackName == "Morning run")
        #expect(run.workout.activityType == .running)
        #expect(run.points == 5)
        #expect(run.segments == 2)
        #expect(run.workout.start == epoch(1_714_546_800))
        let stored = try #require(try await store.workout(id: run.workoutID))
        #expect(stored.metadata.sourceDevice == "Test Watch 1")
        #expect(stored.metadata.values["name"] == "Morning run")
        let route = try await readRoute(store, run.workoutID)
        #expect(route.map(\.segment) == [0, 0, 0, 1, 1])
        #expect(route[3].location.time == Date(timeIntervalSince1970: 1_714_547_400.25))
        #expect(route[4].location.altitude == 58.5)
        let heartRate = try await store.samples(of: run.workoutID, type: .heartRate)
        #expect(heartRate.map(\.value) == [120, 130, 140, 125, 150])
        #expect(try await store.samples(of: run.workoutID, type: .cadence).map(\.value) == [80, 82, 84])
        #expect(run.heartRateMaximum == 150)
        // The mean weighted by time, each value held since the sample before it: 130 and 140 for
        // 5 s each, 125 for 10 s (after a gap of 10 minutes, held 10 s at most), 150 for 5.5 s;
        // not the points' plain mean, 133, that gpxpy gives.
        let weighted: Double = (130.0 * 5 + 140.0 * 5 + 125.0 * 10 + 150.0 * 5.5) / 25.5
        #expect(abs(try #require(run.heartRateAverage) - weighted) < 1e-9)
        // Distance within segments only: 0.0002° of latitude, then 0.0001°.
        let expected = Geodesy.distance(51.4779, 0, 51.4781, 0) + Geodesy.distance(51.479, 0, 51.4791, 0)
        #expect(abs(try #require(stored.totals.distance) - expected) < 1e-6)
        #expect(run.rawElevationGain == 12.5)
        #expect(stored.totals.elevationGain == 12.5)  // 45 → 52 (+7) and 53 → 58.5 (+5.5), each ≥ 5 m
    }

    @Test func skippedPointsAreReportedWithTheirLinesAndTheRestIsKept() async throws {
        let report = try await importFixture("two-runs.gpx")
        let ride = try #require(report.workouts.last)
        #expect(ride.workout.activityType == .cycling)
        #expect(ride.points == 3)
        #expect(ride.duplicatesDropped == 1)
        let reasons = ride.skipped.map { "\($0.line): \($0.reason)" }
        #expect(ride.skipped.map(\.line) == [31, 32, 34, 36], "\(reasons)")
        #expect(reasons[0].contains("no time"))
        #expect(reasons[1].contains("-5"))
        #expect(reasons[2].contains("earlier than the point before"))
        #expect(reasons[3].contains("95"))
        let route = try await readRoute(store, ride.workoutID)
        #expect(route.map(\.location.latitude) == [46.5, 46.5002, 46.5004])
        #expect(try await store.samples(of: ride.workoutID).isEmpty)
    }

    @Test func aTrackWithoutTimesIsNamedAsNotImported() async throws {
        let report = try await importFixture("two-runs.gpx")
        #expect(report.tracksNotImported.count == 1)
        let planned = try #require(report.tracksNotImported.first)
        #expect(planned.trackName == "Planned route, no times")
        #expect(planned.description.contains("none of its points has a valid time"))
        #expect(report.read.waypoints == 1)
        #expect(try await store.workoutCount() == 2)
    }

    /// Rows staged while a track is read (route, points, the hidden workout and its samples),
    /// which nothing may leave behind.
    func stagedRows(in store: WorkoutStore) async throws -> Int {
        let counts = try await store.storageCounts()
        return counts.stagedRoutes + counts.stagedPoints + counts.stagedWorkouts + counts.stagedSamples
    }

    @Test func importingTheSameFileTwiceSavesNothingTheSecondTime() async throws {
        let first = try await importFixture("two-runs.gpx")
        #expect(try await stagedRows(in: store) == 0)
        let second = try await importFixture("two-runs.gpx")
        #expect(try await stagedRows(in: store) == 0)
        #expect(second.workouts.allSatisfy { !$0.isNew })
        #expect(second.workouts.map(\.workoutID) == first.workouts.map(\.workoutID))
        #expect(second.saved.isEmpty)
        #expect(try await store.workoutCount() == 2)
    }

    @Test func theActivityOptionOverridesTheTrackType() async throws {
        let report = try await importFixture("two-runs.gpx", options: GPXImportOptions(activity: .hiking))
        #expect(report.workouts.map(\.workout.activityType) == [.hiking, .hiking])
    }

    @Test func aFileCutShortKeepsTheTracksFinishedBeforeTheError() async throws {
        await #expect {
            try await importFixture("truncated-second-track.gpx")
        } throws: { error in
            guard let error = error as? GPXImportError, case let .read(.malformed(file, line, _, _), imported) = error else {
                return false
            }
            return file.hasSuffix("truncated-second-track.gpx") && line >= 15 && imported.count == 1
                && imported[0].trackName == "Complete"
        }
        let workouts = try await store.workouts()
        #expect(workouts.count == 1)
        #expect(workouts.first?.metadata.values["name"] == "Complete")
        #expect(try await store.checkIntegrity().isEmpty)
        #expect(try await stagedRows(in: store) == 0)
    }

    @Test func strictModeStopsAtTheFirstInvalidValueAndSavesNothingOfThatTrack() async throws {
        await #expect(throws: GPXImportError.self) {
            try await importFixture("invalid-values.gpx", options: GPXImportOptions(strict: true))
        }
        #expect(try await store.workoutCount() == 0)
    }

    @Test func aStoreFailureNamesTheTrackAndLeavesNothingOfIt() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        faults.inject(.beforeWriting(.finishRoute))
        await #expect {
            try await GPXImporter(store: store).importFile(at: Repository.fixture("gpx/two-runs.gpx").path)
        } throws: { error in
            guard let error = error as? GPXImportError, case let .save(_, track, line, _, imported) = error else { return false }
            return track == 0 && line == 8 && imported.isEmpty
        }
        #expect(try await store.workoutCount() == 0)
        #expect(try await store.checkIntegrity().isEmpty)
        #expect(try await stagedRows(in: store) == 0)
    }

    @Test func gzipAndLargeBatchesGiveTheSameWorkout() async throws {
        let plain = try await importFixture("gpx11-full.gpx")
        let other = try WorkoutStore.inMemory()
        let gz = try await GPXImporter(store: other, options: GPXImportOptions(batchSize: 1))
            .importFile(at: Repository.fixture("gpx/gpx11-full.gpx.gz").path)
        #expect(plain.workouts.map(\.workout.metadata.externalID) == gz.workouts.map(\.workout.metadata.externalID))
        #expect(plain.workouts.map(\.points) == gz.workouts.map(\.points))
    }
}

@Test(arguments: [
    ("running", WorkoutActivityType.running), ("Run", .running), ("trail_running", .running), ("9", .running),
    ("cycling", .cycling), ("Biking", .cycling), ("road_biking", .cycling), ("Ride", .cycling),
    ("hiking", .hiking), ("walking", .walking), ("open_water_swimming", .swimming), ("rowing", .rowing),
    ("kayaking", .paddling), ("cross_country_skiing", .crossCountrySkiing), ("resort_skiing", .downhillSkiing),
    ("yoga", .other), ("", .other),
])
func gpxTypesMapToActivities(text: String, expected: WorkoutActivityType) {
    #expect(WorkoutActivityType(gpxType: text) == expected)
}

extension GPXImporterTests {
    /// A GPX file in a temporary folder.
    func file(_ xml: String) throws -> (TemporaryFolder, String) {
        let folder = try TemporaryFolder()
        let path = folder.file("t.gpx")
        try xml.write(toFile: path, atomically: true, encoding: .utf8)
        return (folder, path)
    }

    @Test func aTrackOfOnlyBadPointsIsReportedWithEachPointsLine() async throws {
        let (folder, path) = try file("""
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="91" lon="0"><time>2024-05-01T08:00:00Z</time></trkpt>
            <trkpt lat="95" lon="0"><time>2024-05-01T08:00:01Z</time></trkpt>
            </trkseg></trk></gpx>
            """)
        _ = folder
        let report = try await GPXImporter(store: store).importFile(at: path)
        #expect(report.workouts.isEmpty)
        let track = try #require(report.tracksNotImported.first)
        #expect(track.skipped.map(\.line) == [3, 4])
        #expect(track.skipped.allSatisfy { $0.reason.contains("latitude") })
    }

    /// A track in the year 9999 used to stop the whole file: the reader took its times and the
    /// store refused them (it stopped at 4001), with a garbled range. Reader and store now agree
    /// on one range: every RFC 3339 year but 0000. A track in 9999 is imported; one in 0000 (or
    /// carried past 9999 by its offset) is skipped with each point's line; the next track is
    /// imported either way.
    @Test(arguments: [
        ("9999-05-01T10:00:00Z", true), ("4001-01-01T00:00:01Z", true),
        ("0000-05-01T10:00:00Z", false), ("9999-12-31T23:30:00-05:00", false),
    ])
    func aTrackInAnyYearTheStoreKeepsIsImportedAndOthersSkipped(time: String, kept: Bool) async throws {
        let (folder, path) = try file("""
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>
            <trkpt lat="1" lon="0"><time>\(time)</time></trkpt>
            </trkseg></trk>
            <trk><trkseg>
            <trkpt lat="1" lon="0"><time>2024-05-01T08:00:00Z</time></trkpt>
            <trkpt lat="1.1" lon="0"><time>2024-05-01T08:00:01Z</time></trkpt>
            </trkseg></trk></gpx>
            """)
        _ = folder
        let report = try await GPXImporter(store: store).importFile(at: path)
        #expect(report.workouts.count == (kept ? 2 : 1))
        #expect(try await store.workoutCount() == (kept ? 2 : 1))
        if !kept {
            let skipped = try #require(report.tracksNotImported.first?.skipped.first)
            #expect(skipped.line == 4)
            #expect(skipped.reason.contains("is outside the years 1 to 9999"))
            // The store refuses the same times, in the same words.
            let date = try #require(RFC3339.parse(time)).date
            let workout = WorkoutRecord(activityType: .running, start: min(date, .distantPast), end: max(date, .distantPast))
            await #expect {
                try await store.save(workout)
            } throws: { error in
                "\(error)".contains("outside the years 1 to 9999")
            }
        }
    }

    /// The store failing halfway through a track (before the track's end, where its line used
    /// to be learnt): the error names the track and its line, and nothing of it remains.
    @Test func aStoreFailureInsideATrackNamesThatTrack() async throws {
        let (folder, path) = try file("""
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="0"><time>2024-05-01T08:00:00Z</time></trkpt>
            <trkpt lat="1.1" lon="0"><time>2024-05-01T08:00:01Z</time></trkpt>
            </trkseg></trk></gpx>
            """)
        _ = folder
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        faults.inject(.row(2, of: .insertRouteData))
        await #expect {
            try await GPXImporter(store: store).importFile(at: path)
        } throws: { error in
            guard case let .save(_, track, line, _, imported)? = error as? GPXImportError else { return false }
            return track == 0 && line == 2 && imported.isEmpty
        }
        #expect(try await stagedRows(in: store) == 0)
    }
}
