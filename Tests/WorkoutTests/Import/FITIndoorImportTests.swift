import FIT
import Foundation
import Testing
@testable import Workout

/// A FIT file recorded indoors (a treadmill, a trainer, a virtual course: its sub sport says so,
/// or no record has a position) imports as an indoor workout, its sub sport kept, and its records'
/// distances, the device's, as `.distance` samples: the distance since the record before, over the
/// time between them. A distance that goes back (a device reset) is reported, and counted again
/// from there; a record that covered nothing makes no sample.
@Suite struct FITIndoorImportTests {
    static let treadmill = FITActivityScript([
        .indoorRecord(0, distance: 0), .indoorRecord(1, distance: 2.5), .indoorRecord(2, distance: 5),
        .indoorRecord(3, distance: 5), .indoorRecord(4, distance: 4), .indoorRecord(5, distance: 7),
        .timer(starts: false, at: 5), .session(end: 5, sport: 1, subSport: 1),
    ])

    @Test func aTreadmillRunKeepsItsDistancesAsSamples() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let report = try await FITImporter(store: store).importFile(at: try Self.treadmill.write(to: folder))
        let imported = try #require(report.workouts.first)
        let workout = try #require(try await store.workout(id: imported.workoutID))
        #expect(workout.activityType == .running && workout.metadata.isIndoor == true)
        #expect(workout.metadata.values[WorkoutMetadata.subSportKey] == "treadmill" && workout.metadata.values[WorkoutMetadata.virtualKey] == nil)
        let distances = try await store.samples(of: workout.id, type: .distance)
        let expected: [(start: Double, end: Double, value: Double)] = [(0, 1, 2.5), (1, 2, 2.5), (4, 5, 3)]
        #expect(distances.count == expected.count, "\(distances)")
        for (sample, want) in zip(distances, expected) {
            #expect(sample.start == FITActivityScript.date(want.start) && sample.end == FITActivityScript.date(want.end)
                    && abs(sample.value - want.value) < 1e-9, "\(sample)")
        }
        #expect(imported.skipped.map(\.reason) == ["its distance 4.0 m is less than the record before's (5.0 m): counted again from there"])
        #expect(try await store.route(of: workout.id) == nil)
    }

    @Test func aVirtualRideIsIndoorsAndSaysSo() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let script = FITActivityScript([.indoorRecord(0, distance: 0), .indoorRecord(1, distance: 9), .session(end: 1, sport: 2, subSport: 58)])
        let imported = try #require(try await FITImporter(store: store).importFile(at: try script.write(to: folder)).workouts.first)
        let workout = try #require(try await store.workout(id: imported.workoutID))
        #expect(workout.metadata.isIndoor == true && workout.metadata.isVirtual)
        #expect(workout.metadata.values[WorkoutMetadata.subSportKey] == "virtual_activity")
    }

    @Test func anOutdoorRunIsNotIndoorsAndTakesNoDistanceSamples() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let script = FITActivityScript([.record(0), .record(1), .record(2), .session(end: 2, sport: 1, subSport: 0)])
        let imported = try #require(try await FITImporter(store: store).importFile(at: try script.write(to: folder)).workouts.first)
        let workout = try #require(try await store.workout(id: imported.workoutID))
        #expect(workout.metadata.isIndoor == nil && workout.metadata.values[WorkoutMetadata.subSportKey] == "generic")
        #expect(try await store.samples(of: workout.id, type: .distance).isEmpty)
    }
}
