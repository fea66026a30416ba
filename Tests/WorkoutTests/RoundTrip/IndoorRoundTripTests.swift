import FIT
import Foundation
import TCX
import Testing
import TestSupport
@testable import Workout

/// Workouts without positions (a trainer ride, a treadmill run) through the files that hold them.
///
/// The corpus' indoor trainer ride (`sample-activity-indoor-trainer.fit`, a Garmin Edge on a
/// trainer: 2,263 records a second apart, heart rate, cadence and power, no position, no distance
/// or speed, five laps) imports as an indoor workout with its sub sport kept, and the figures its
/// session states: no distance (the device says 0 m), the elapsed time and duration within 1.2 s of
/// the session's 2,261.85 s (we count from the first record to the last: 2,263 s), the heart rate's
/// mean within half a beat of its 148, its 379 kcal, its five laps. Exported as FIT, Garmin's
/// decoder reads it as indoor cycling (sport 2, sub sport 6) with no position; imported again it is
/// exactly the workout exported: times, laps, and every sample.
@Suite(.timeLimit(.minutes(3))) struct IndoorRoundTripTests {
    static let trainerFile = FigureRoundTripTests.corpora.appendingPathComponent("fit/sample-activity-indoor-trainer.fit").path
    static var hasTrainerFile: Bool { FileManager.default.fileExists(atPath: trainerFile) }

    /// Imports the corpus' trainer ride into `store`.
    static func importTrainerRide(into store: WorkoutStore) async throws -> (workout: WorkoutRecord, device: DeviceTotals) {
        let imported = try #require(try await FITImporter(store: store).importFile(at: trainerFile).workouts.first)
        let workout = try #require(try await store.workout(id: imported.workoutID))
        return (workout, try #require(imported.deviceTotals))
    }

    @Test(.enabled(if: hasTrainerFile, "the FIT corpus is not at ../shared/corpora/fit"))
    func theCorpusTrainerRideImportsIndoorsWithTheFiguresItsSessionStates() async throws {
        let store = try WorkoutStore.inMemory()
        let (workout, device) = try await Self.importTrainerRide(into: store)
        #expect(workout.metadata.isIndoor == true, "no position at all: indoors")
        #expect(workout.metadata.values[WorkoutMetadata.subSportKey] == "generic", "the sub sport the file says, kept")
        #expect(try await store.route(of: workout.id) == nil)
        #expect(workout.activityType == .cycling)
        #expect(workout.totals.distance == device.distance && device.distance == 0, "the device's distance: \(workout.totals.distance ?? -1)")
        let timer = try #require(device.timerTime), elapsed = try #require(device.elapsedTime)
        #expect(abs(workout.duration - timer) <= 1.2 && abs(workout.elapsedTime - elapsed) <= 1.2,
                "duration \(workout.duration) against the session's timer \(timer), elapsed \(workout.elapsedTime) against \(elapsed)")
        let heartRate = try #require(try await store.sampleFigures(of: workout.id)[.heartRate])
        #expect(abs(heartRate.average - (device.heartRateAverage ?? 0)) <= 0.5 && heartRate.maximum == device.heartRateMaximum)
        #expect(workout.totals.energy == device.calories && device.calories == 379)
        #expect(try await store.laps(of: workout.id).count == 5)
    }

    @Test(.enabled(if: hasTrainerFile, "the FIT corpus is not at ../shared/corpora/fit"))
    func theTrainerRideExportedAsFITComesBackExactly() async throws {
        let store = try WorkoutStore.inMemory()
        let (workout, _) = try await Self.importTrainerRide(into: store)
        let folder = try TemporaryFolder()
        let file = folder.file("trainer.fit")
        let summary = try await store.export(workout.id, format: .fit, toFileAt: file)
        #expect(summary.points == 0 && summary.samplesNotWritten == 0, "\(summary)")

        let copy = try WorkoutStore.inMemory()
        let imported = try #require(try await FITImporter(store: copy).importFile(at: file).workouts.first)
        #expect(imported.workoutID == workout.id && imported.skipped.isEmpty, "\(imported.skipped)")
        let back = try #require(try await copy.workout(id: workout.id))
        #expect(back.start == workout.start && back.end == workout.end)
        #expect(back.duration == workout.duration && back.movingTime == workout.movingTime && back.totals.distance == workout.totals.distance)
        #expect(back.metadata.isIndoor == true && back.metadata.values[WorkoutMetadata.subSportKey] == "indoor_cycling")
        #expect(try await copy.samples(of: workout.id) == (try await store.samples(of: workout.id)), "every sample, exactly")
        #expect(try await copy.laps(of: workout.id).count == (try await store.laps(of: workout.id)).count)
    }

    @Test(.enabled(if: hasTrainerFile && FITPeers.isAvailable, "needs the FIT corpus and the FIT peers (scripts/install-fit-peers)"))
    func garminsDecoderReadsOurIndoorExportAsIndoorCyclingWithoutPositions() async throws {
        let store = try WorkoutStore.inMemory()
        let (workout, _) = try await Self.importTrainerRide(into: store)
        let folder = try TemporaryFolder()
        let file = folder.file("trainer.fit")
        try await store.export(workout.id, format: .fit, toFileAt: file)
        let peers = try #require(try await FITPeers.read([file])[file])
        #expect(peers.garmin.errors == [] && peers.garmin.integrity == true, "\(peers.garmin.errors ?? [])")
        #expect(peers.garmin.sessionSports == [[2, 6]], "cycling, indoor_cycling: \(peers.garmin.sessionSports)")
        #expect(peers.fitdecode.sessionSports == [[2, 6]])
        #expect(!peers.garmin.records.isEmpty && peers.garmin.records.allSatisfy { $0[1] == nil && $0[2] == nil }, "no position")
        #expect(peers.garmin.records.count == (try await store.samples(of: workout.id, type: .heartRate)).count, "a record a second")
    }

    @Test(.enabled(if: hasTrainerFile, "the FIT corpus is not at ../shared/corpora/fit"))
    func theTrainerRideExportedAsTCXHasTrackPointsWithoutPositions() async throws {
        let store = try WorkoutStore.inMemory()
        let (workout, _) = try await Self.importTrainerRide(into: store)
        let folder = try TemporaryFolder()
        let file = folder.file("trainer.tcx")
        try await store.export(workout.id, format: .tcx, toFileAt: file)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!text.contains("<Position>") && text.contains("<Trackpoint>"))
        if TCXSchema.isAvailable {
            let result = try await TCXSchema.validate(file)
            #expect(result.valid, "\(result.messages)")
        }
        let copy = try WorkoutStore.inMemory()
        let imported = try #require(try await TCXImporter(store: copy).importFile(at: file).workouts.first)
        let back = try #require(try await copy.workout(id: imported.workoutID))
        #expect(back.metadata.isIndoor == true && back.start == workout.start && back.end == workout.end)
        #expect(back.duration == workout.duration && back.totals.distance == workout.totals.distance)
        let heartRates = try await store.samples(of: workout.id, type: .heartRate)
        #expect(try await copy.samples(of: back.id, type: .heartRate) == heartRates)
    }
}

/// Our own indoor exports: a trainer ride (``IndoorRideFixture``: a strap, a power meter, the
/// trainer's cadence, speed and distance, a pause) through FIT and TCX comes back exactly: its
/// distance (the records' and track points' cumulative distance, the time line's from the
/// trainer's samples, turned back into samples), times, pause, laps, and every heart rate and power.
@Suite(.timeLimit(.minutes(3))) struct OwnIndoorRoundTripTests {
    @Test(arguments: [WorkoutExportFormat.fit, .tcx])
    func aTrainerRideComesBackExactly(format: WorkoutExportFormat) async throws {
        let store = try WorkoutStore.inMemory()
        let ride = try await IndoorRideFixture.save(in: store)
        let trainer = try await store.samples(of: ride.id, type: .distance).map(\.value).reduce(0, +)
        let laps = try await store.laps(of: ride.id)
        let counted = try #require(laps.map(\.distance).reduce(0, +) as Double?)
        #expect(abs(counted - trainer) < 1e-6, "the store counts the trainer's distance: \(counted) against \(trainer)")

        let folder = try TemporaryFolder()
        let file = folder.file("ride." + format.fileExtension)
        let summary = try await store.export(ride.id, format: format, toFileAt: file)
        #expect(summary.points == 0 && summary.samplesNotWritten == 0, "\(summary)")
        let copy = try WorkoutStore.inMemory()
        let id = try await copy.importOwn(file, format: format).id
        let back = try #require(try await copy.workout(id: id))
        #expect(id == ride.id && back.metadata.isIndoor == true)
        #expect(back.start == ride.start && back.end == ride.end)
        // The time line's duration and moving time (the saved ride states none of its own): less the pause.
        let duration = laps.map(\.duration).reduce(0, +), moving = laps.map(\.movingTime).reduce(0, +)
        #expect(abs(duration - (600 - IndoorRideFixture.pause.upperBound + IndoorRideFixture.pause.lowerBound)) < 0.001)
        #expect(abs(back.duration - duration) < 0.001 && abs(back.movingTime - moving) < 0.001,
                "\(format): duration \(back.duration) against \(duration), moving \(back.movingTime) against \(moving)")
        let distance = try #require(back.totals.distance)
        #expect(abs(distance - trainer) < 0.01, "\(format): \(distance) m against the trainer's \(trainer) m")
        let lapsBack = try await copy.laps(of: id)
        #expect(lapsBack.count == laps.count && abs(lapsBack.map(\.distance).reduce(0, +) - trainer) < 0.01, "\(format): \(lapsBack)")
        #expect(try await copy.events(of: id).map(\.kind) == [.pause, .resume])
        for type in [QuantityType.heartRate, .power] {
            let before = try await store.samples(of: ride.id, type: type).map(\.value)
            #expect(try await copy.samples(of: id, type: type).map(\.value) == before, "\(format): every \(type)")
        }
    }

    @Test(.enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"))
    func garminsDecoderReadsTheRecordsDistancesAndAVirtualRide() async throws {
        let store = try WorkoutStore.inMemory()
        let folder = try TemporaryFolder()
        var files: [String] = []
        for virtual in [false, true] {
            let ride = try await IndoorRideFixture.save(in: store, virtual: virtual)
            let file = folder.file("ride-\(virtual).fit")
            try await store.export(ride.id, format: .fit, toFileAt: file)
            files.append(file)
        }
        let peers = try await FITPeers.read(files)
        let plain = try #require(peers[files[0]]), virtual = try #require(peers[files[1]])
        #expect(plain.garmin.sessionSports == [[2, 6]] && virtual.garmin.sessionSports == [[2, 58]], "\(virtual.garmin.sessionSports)")
        let distances = plain.garmin.recordDistances.compactMap { $0 }
        #expect(distances.count == plain.garmin.records.count && zip(distances, distances.dropFirst()).allSatisfy { $0 <= $1 },
                "every record has the distance so far")
        let trainer = try await store.samples(of: try #require(try await store.workouts().first).id, type: .distance).map(\.value).reduce(0, +)
        #expect(abs((distances.last ?? 0) - trainer) < 0.01, "the last record's distance is the ride's: \(distances.last ?? 0)")
    }
}
