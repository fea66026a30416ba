import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
import GRDB
@testable import Workout

@Suite("Queries: workouts by date and activity, samples by type, routes in batches, deletion")
struct QueryTests {
    @Test func workoutsByDateRangeAndActivity() async throws {
        let store = try WorkoutStore.inMemory()
        let day = 86_400.0
        let midnight = Date(timeIntervalSince1970: 1_714_521_600)   // 2024-05-01T00:00:00Z
        let morningRun = workout(seconds: 3_600, startingAt: midnight.addingTimeInterval(8 * 3_600))
        let nightRide = workout(seconds: 4 * 3_600, activityType: .cycling, startingAt: midnight.addingTimeInterval(22 * 3_600))
        let nextRun = workout(seconds: 1_800, startingAt: midnight.addingTimeInterval(day + 7 * 3_600))
        for record in [nextRun, nightRide, morningRun] { try await store.save(record) }

        #expect(try await store.workouts() == [morningRun, nightRide, nextRun])
        #expect(try await store.workouts(from: midnight, to: midnight.addingTimeInterval(day)) == [morningRun, nightRide])
        // The ride crosses midnight: it belongs to the next day too.
        #expect(try await store.workouts(from: midnight.addingTimeInterval(day), to: midnight.addingTimeInterval(2 * day)) == [nightRide, nextRun])
        #expect(try await store.workouts(activityType: .running) == [morningRun, nextRun])
        #expect(try await store.workouts(from: midnight.addingTimeInterval(day), activityType: .running) == [nextRun])
        #expect(try await store.workouts(to: midnight.addingTimeInterval(8 * 3_600)) == [])
        #expect(try await store.workouts(limit: 2) == [morningRun, nightRide])
        #expect(try await store.workout(id: nightRide.id) == nightRide)
        #expect(try await store.workout(id: UUID()) == nil)
    }

    @Test func everyFieldComesBack() async throws {
        let store = try WorkoutStore.inMemory()
        let start = Date(timeIntervalSince1970: 1_714_557_600.25)
        let full = WorkoutRecord(
            activityType: .crossCountrySkiing, start: start, end: start.addingTimeInterval(5_400.5),
            totals: WorkoutTotals(distance: 21_097.5, duration: 5_000, movingTime: 4_900.75, elevationGain: 312.4, elevationLoss: 298.1, energy: 1_234),
            metadata: WorkoutMetadata(
                isIndoor: false, sourceDevice: "/dev/ttyUSB0", sourceApp: "locate record", externalID: "sha256:abc",
                values: ["weather": "snow", "note": "ski \"race\" / 2024"]))
        try await store.save(full)
        #expect(try await store.workout(id: full.id) == full)
        #expect(try await store.workout(externalID: "sha256:abc") == full)
        #expect(try await store.workout(externalID: "sha256:other") == nil)
    }

    @Test func samplesOfAWorkoutByType() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 60)
        try await store.save(saved)
        let heart = (0..<10).map { (index: Int) -> QuantitySample in
            QuantitySample(type: .heartRate, value: Double(130 + index), at: saved.start.addingTimeInterval(Double(index * 6)))
        }
        let power = (0..<5).map { (index: Int) -> QuantitySample in
            let from = saved.start.addingTimeInterval(Double(index * 10))
            return QuantitySample(type: .power, value: Double(200 + index), start: from, end: from.addingTimeInterval(10))
        }
        try await store.addSamples(power.reversed() + heart, to: saved)
        #expect(try await store.samples(of: saved.id, type: .heartRate) == heart)
        #expect(try await store.samples(of: saved.id, type: .power) == power)
        #expect(try await store.samples(of: saved.id, type: .cadence) == [])
        #expect(try await store.samples(of: saved.id).count == 15)
        let unknown = UUID()
        #expect(await thrownError { _ = try await store.samples(of: unknown) } == .workoutNotSaved(workoutID: unknown, step: .read))
    }

    @Test(arguments: [1, 7, 1_000, 5_000])
    func theRouteComesBackInBatches(batchSize: Int) async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 11, points: 2_345)
        try await store.saveWorkout(run.workout, samples: [], route: run.route)
        var batches: [[RoutePoint]] = []
        for try await batch in store.routePoints(of: run.workout.id, batchSize: batchSize) {
            batches.append(batch)
        }
        #expect(batches.count == (2_345 + batchSize - 1) / batchSize)
        #expect(batches.dropLast().allSatisfy { $0.count == batchSize })
        #expect(batches.flatMap { $0 }.map(\.location) == run.route.map(asStored))
    }

    @Test func eachBatchIsOneKeysetRangeOfThePrimaryKey() async throws {
        let store = try WorkoutStore.inMemory()
        let plan = try await store.withDatabase { db in
            try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT \(RoutePointRows.columns) FROM route_point
                WHERE route = ? AND ordinal >= ? ORDER BY ordinal LIMIT ?
                """, arguments: [1, 1_000, 1_000]).map { $0["detail"] as String }.joined(separator: "\n")
        }
        // Not "SCAN", and no "TEMP B-TREE" sort: SQLite seeks to the first point of the batch.
        #expect(plan.contains("SEARCH route_point USING PRIMARY KEY (route=? AND ordinal>?)"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
    }

    @Test func aWorkoutWithoutARouteHasAnEmptySequence() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout()
        try await store.save(saved)
        #expect(try await store.route(of: saved.id) == nil)
        #expect(try await readRoute(store, saved.id).isEmpty)
        let unknown = UUID()
        #expect(await thrownError { _ = try await readRoute(store, unknown) } == .workoutNotSaved(workoutID: unknown, step: .read))
        #expect(await thrownError { _ = try await store.route(of: unknown) } == .workoutNotSaved(workoutID: unknown, step: .read))
    }

    @Test func deletingAWorkoutDeletesEverythingAttached() async throws {
        let store = try WorkoutStore.inMemory()
        let kept = SyntheticRun(index: 12, points: 200)
        let deleted = SyntheticRun(index: 13, points: 300)
        try await store.saveWorkout(kept.workout, samples: kept.samples, route: kept.route)
        try await store.saveWorkout(deleted.workout, samples: deleted.samples, route: deleted.route)
        #expect(try await store.deleteWorkout(id: deleted.workout.id))
        #expect(try await store.deleteWorkout(id: deleted.workout.id) == false)
        #expect(try await store.storageCounts() == .init(workouts: 1, samples: 200, routes: 1, points: 200))
        try await expectComplete(kept, in: store)
        // Deleted means gone: it can be saved again.
        #expect(try await store.saveWorkout(deleted.workout, samples: deleted.samples, route: deleted.route) == .saved(workoutID: deleted.workout.id))
    }

    @Test func aRouteDeletedWhileBeingReadEndsTheSequenceWithAnError() async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 14, points: 500)
        try await store.saveWorkout(run.workout, samples: [], route: run.route)
        var iterator = store.routePoints(of: run.workout.id, batchSize: 200).makeAsyncIterator()
        #expect(try await iterator.next()?.count == 200)
        try await store.deleteWorkout(id: run.workout.id)
        let error = await thrownError { _ = try await iterator.next() }
        #expect(error == .routeDeletedWhileReading(workoutID: run.workout.id, pointsRead: 200))
        #expect(try await iterator.next() == nil)
    }

    /// An activity type from a newer version is read as `.other` with the stored name beside it,
    /// neither misread as a known type nor hiding the other workouts (it used to throw, and a
    /// listing showed nothing).
    @Test func aRecordFromANewerVersionIsReadAsOtherWithItsStoredName() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout()
        let other = workout(activityType: .cycling)
        try await store.save(saved)
        try await store.save(other)
        try await store.withDatabase { db in
            try db.execute(sql: "UPDATE workout SET activity_type = 'kitesurfing' WHERE uuid = ?", arguments: [saved.id])
        }
        let read = try await store.workouts()
        #expect(read.map(\.id) == [saved.id, other.id])
        #expect(read.map(\.activityType) == [.other, .cycling])
        #expect(read.map(\.unknownActivityType) == ["kitesurfing", nil])
    }

    /// A stored metadata column that is not a JSON object of strings (a damaged store: no version
    /// writes anything else) is said, naming the workout and the column, by every read that uses
    /// it. It used to read as empty: the workout's training profile, averaging and distance source
    /// silently gone from its figures.
    @Test func metadataThatDoesNotReadIsSaidNotReadAsEmpty() async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 15, points: 120)
        try await store.saveWorkout(run.workout, samples: run.samples, route: run.route, routeMetadata: ["device": "/dev/ttyUSB0"])
        let id = run.workout.id
        #expect(try await store.route(of: id)?.metadata == ["device": "/dev/ttyUSB0"])
        try await store.withDatabase { db in
            try db.execute(sql: #"UPDATE workout SET metadata = '{"training.ftp": 250}' WHERE uuid = ?"#, arguments: [id])
            try db.execute(sql: "UPDATE route SET metadata = 'device=/dev/ttyUSB0'")
        }
        func expectSaid(
            _ column: String, of owner: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
        ) async {
            let error = await thrownError(sourceLocation: sourceLocation, body)
            guard case let .unreadableRecord(path, reason)? = error else {
                Issue.record("expected unreadableRecord, got \(String(describing: error))", sourceLocation: sourceLocation)
                return
            }
            #expect(path == nil, sourceLocation: sourceLocation)
            #expect(reason.hasPrefix("the metadata of \(owner) (column \(column)) is not a JSON object of strings ("), "\(reason)", sourceLocation: sourceLocation)
            #expect(error?.description.hasPrefix("The workout store in memory holds a record this version cannot read: the metadata of \(owner)") == true,
                    sourceLocation: sourceLocation)
        }
        await expectSaid("workout.metadata", of: "workout \(id)") { _ = try await store.workouts() }
        await expectSaid("workout.metadata", of: "workout \(id)") { _ = try await store.workout(id: id) }
        await expectSaid("workout.metadata", of: "workout \(id)") { _ = try await store.trainingFigures(of: id) }
        await expectSaid("workout.metadata", of: "workout \(id)") { _ = try await store.sampleFigures(of: id) }
        await expectSaid("workout.metadata", of: "workout \(id)") { _ = try await store.laps(of: id) }
        await expectSaid("workout.metadata", of: "workout \(id)") { _ = try await store.splits(of: id, every: 1_000) }
        await expectSaid("route.metadata", of: "the route of workout \(id)") { _ = try await store.route(of: id) }
    }
}

@Test(arguments: QuantityType.allCases)
func sampleTypesAreStoredUnderTheirRawValues(type: QuantityType) {
    #expect("\(RowInserter.storedName(of: type))" == type.rawValue)
}
