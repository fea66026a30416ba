import FIT
import Foundation
import LocationFacade
import Simulators
import TestSupport
import Testing
import WorkoutSimulators
@testable import Workout

/// FIT export, and import of what it wrote: FIT → store → FIT, GPX → FIT, and a recorded
/// session → FIT keep the points (positions to FIT's resolution, a semicircle, 8.4e-8°), the times
/// (to the second), the laps, the pauses and the samples; what FIT cannot keep is said where it is
/// lost. Every file written here is also read by Garmin's decoder and gpsbabel at test time.
@Suite(.timeLimit(.minutes(2))) struct FITRoundTripTests {
    /// Half a semicircle, in degrees: the most a position moves on its way through FIT.
    static let positionTolerance = FITSemicircles.degreesPerSemicircle / 2 + 1e-12

    /// Exports `id` from `store` as FIT to a file, imports that into a new store; returns the file,
    /// the new store and the imported workout.
    func throughFIT(_ id: UUID, of store: WorkoutStore, in folder: TemporaryFolder, name: String) async throws
        -> (file: String, store: WorkoutStore, imported: FITImportedWorkout) {
        let file = folder.file(name)
        let summary = try await store.export(id, format: .fit, toFileAt: file)
        let samples = try await store.samples(of: id)
        let unwritable = samples.filter { ($0.type == .heartRate || $0.type == .cadence) && $0.value.rounded() > 254 }.count
        #expect(summary.samplesNotWritten == unwritable, "FIT holds every sample but a heart rate or cadence over 254")
        #expect(summary.samplesWritten + summary.samplesNotWritten == samples.count)
        let again = try WorkoutStore.inMemory()
        let report = try await FITImporter(store: again).importFile(at: file)
        #expect(report.read.issues.isEmpty && report.notImported.isEmpty)
        return (file, again, try #require(report.workouts.first))
    }

    @Test func aFITFileThroughTheStoreAndBackKeepsEverything() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let original = try #require(try await FITImporter(store: store).importFile(at: Repository.fixture("fit/garmin-sdk-run.fit").path).workouts.first)
        let (file, again, copy) = try await throughFIT(original.workoutID, of: store, in: folder, name: "run.fit")
        let before = try await readRoute(store, original.workoutID), after = try await readRoute(again, copy.workoutID)
        #expect(after.map(\.location) == before.map(\.location), "positions, altitudes, speeds and times, exactly")
        #expect(after.map(\.segment) == before.map(\.segment))
        #expect(try await again.events(of: copy.workoutID) == store.events(of: original.workoutID), "pauses and laps")
        #expect(try await again.laps(of: copy.workoutID) == store.laps(of: original.workoutID))
        #expect(try await again.samples(of: copy.workoutID) == store.samples(of: original.workoutID), "every sample, values exact")
        #expect(copy.workout.start == original.workout.start && copy.workout.end == original.workout.end)
        #expect(copy.workout.activityType == .running && copy.workout.totals.movingTime == original.workout.totals.movingTime)
        #expect(copy.workout.metadata.externalID == original.workout.metadata.externalID, "the same points: the same workout")
        #expect(copy.workout.metadata.sourceDevice == original.workout.metadata.sourceDevice)
        // Imported again into the first store, it is found there.
        let repeated = try await FITImporter(store: store).importFile(at: file)
        #expect(repeated.workouts.map(\.workoutID) == [original.workoutID] && repeated.saved.isEmpty)
        // Lost on the way: the developer fields ("Form Power" stays in the store with the points,
        // and in a GPX export, but FIT export writes no developer data) and the device's own totals
        // (the new file's session holds ours).
        #expect(after.allSatisfy { $0.unknownExtensions == nil })
        #expect(abs((copy.deviceTotals?.distance ?? 0) - (original.workout.totals.distance ?? 0)) <= 0.005, "to FIT's 1 cm")
    }

    @Test(arguments: ["two-runs.gpx", "greenwich-walk.gpx", "garmin-trackpointextension.gpx"])
    func aGPXImportThroughFITKeepsItsPointsSegmentsAndSamples(fixture: String) async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let report = try await GPXImporter(store: store).importFile(at: Repository.fixture("gpx/" + fixture).path)
        for (index, original) in report.workouts.enumerated() {
            let (_, again, copy) = try await throughFIT(original.workoutID, of: store, in: folder, name: "\(index).fit")
            let before = try await readRoute(store, original.workoutID), after = try await readRoute(again, copy.workoutID)
            #expect(after.count == before.count)
            for (old, new) in zip(before, after) {
                #expect(abs(new.location.latitude - old.location.latitude) <= Self.positionTolerance)
                #expect(abs(new.location.longitude - old.location.longitude) <= Self.positionTolerance)
                #expect(new.location.time == Date(timeIntervalSince1970: old.location.time!.timeIntervalSince1970.rounded(.down)), "whole seconds")
                if let altitude = old.location.altitude {
                    #expect(abs(try #require(new.location.altitude) - altitude) <= 0.1 + 1e-9, "altitude to 0.2 m")
                }
                #expect(new.segment == old.segment, "each segment break is a pause")
            }
            #expect(copy.pauses == original.segments - 1)
            for type in [QuantityType.heartRate, .cadence] {
                let old = try await store.samples(of: original.workoutID, type: type), new = try await again.samples(of: copy.workoutID, type: type)
                // FIT holds heart rate and cadence in a byte: garmin-trackpointextension.gpx's heart rate of 999 is lost.
                #expect(new.map(\.value) == old.map { $0.value.rounded() }.filter { $0 <= 254 }, "\(type)")
            }
        }
    }

    @Test func aRecordedSessionThroughFITKeepsItsLapsPausesAndHeartRate() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let clock = VirtualClock()
        let track = WorkoutSessionTests.runWithStops(2)
        let run = ReplayLocationSource(locations: track, clock: clock)
        let session = WorkoutSession(
            store: store, source: run, samples: [FakeHeartRateSensor(seed: 7).live(following: run)],
            configuration: .init(activityType: .running, autoPause: .defaults(for: .running), autoLapDistance: 150), clock: clock)
        try session.start()
        await clock.advance(by: .seconds(30))
        try session.pause()
        await clock.advance(by: .seconds(10))
        try session.resume()
        try session.lap()
        await clock.advance(by: .seconds(Double(track.count)))
        let workout = try await session.end()

        let (_, again, copy) = try await throughFIT(workout.id, of: store, in: folder, name: "session.fit")
        #expect(copy.points == (try await store.route(of: workout.id))?.pointCount, "every fix, paused ones too")
        let laps = try await store.laps(of: workout.id), copiedLaps = try await again.laps(of: copy.workoutID)
        #expect(copiedLaps.count == laps.count)
        #expect(zip(laps, copiedLaps).allSatisfy { abs($0.start.timeIntervalSince($1.start)) < 1 && abs($0.movingTime - $1.movingTime) <= 1 })
        #expect(try await again.events(of: copy.workoutID) == store.events(of: workout.id), "pauses, auto-pauses and laps, to the second")
        #expect(copy.workout.totals.movingTime == workout.totals.movingTime, "active time, pauses left out")
        #expect(abs((copy.workout.totals.distance ?? 0) - (workout.totals.distance ?? 0)) < 1, "distance counted while active")
        let kinds = try await again.events(of: copy.workoutID).map(\.kind)
        #expect(kinds.contains(.pause) && kinds.contains(.motionPaused), "a user's pause and auto-pauses, each as such")
        let heartRate = try await store.samples(of: workout.id, type: .heartRate)
        #expect(try await again.samples(of: copy.workoutID, type: .heartRate).map(\.value) == heartRate.map { $0.value.rounded() })
    }
}
