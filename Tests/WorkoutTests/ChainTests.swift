import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
@testable import Workout

@Suite("The save chain reads like HealthKit's and enforces its rules")
struct ChainTests {
    @Test func theChainAsWrittenSavesEverything() async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 0, points: 600)
        let workout = run.workout
        let heartRateSamples = run.samples
        let route = run.route

        try await store.save(workout)
        try await store.addSamples(heartRateSamples, to: workout)
        let routeBuilder = RouteBuilder(store: store)
        try await routeBuilder.insertRouteData(Array(route[..<250]))
        try await routeBuilder.insertRouteData(Array(route[250...]))
        try await routeBuilder.finishRoute(with: workout, metadata: nil)

        try await expectComplete(run, in: store)
        #expect(try await store.workouts() == [workout])
        let summary = try #require(try await store.route(of: workout.id))
        #expect(summary == WorkoutRoute(
            workoutID: workout.id, pointCount: 600, segmentCount: 1, start: route[0].time!, end: route[599].time!))
        #expect(try await store.storageCounts().stagedRoutes == 0)
    }

    @Test func samplesAndRoutesNeedASavedWorkout() async throws {
        let store = try WorkoutStore.inMemory()
        let unsaved = workout()
        await #expect(throws: WorkoutStoreError.workoutNotSaved(workoutID: unsaved.id, step: .addSamples)) {
            try await store.addSamples([QuantitySample(type: .heartRate, value: 120, at: unsaved.start)], to: unsaved)
        }
        let builder = RouteBuilder(store: store)
        try await builder.insertRouteData(fixes(10, from: unsaved.start))
        await #expect(throws: WorkoutStoreError.workoutNotSaved(workoutID: unsaved.id, step: .finishRoute)) {
            try await builder.finishRoute(with: unsaved, metadata: nil)
        }
        // The builder keeps its points: save the workout, and finishing works.
        try await store.save(unsaved)
        let route = try await builder.finishRoute(with: unsaved, metadata: ["device": "test"])
        #expect(route.pointCount == 10 && route.metadata == ["device": "test"])
        #expect(try await store.route(of: unsaved.id) == route)
    }

    @Test func aFinishedOrDiscardedBuilderRefusesEveryCall() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout()
        try await store.save(saved)
        let builder = RouteBuilder(store: store)
        try await builder.insertRouteData(fixes(5, from: saved.start))
        try await builder.finishRoute(with: saved, metadata: nil)
        await #expect(throws: WorkoutStoreError.builderFinished(step: .insertRouteData, workoutID: saved.id)) {
            try await builder.insertRouteData(fixes(1, from: saved.start.addingTimeInterval(10)))
        }
        await #expect(throws: WorkoutStoreError.builderFinished(step: .finishRoute, workoutID: saved.id)) {
            try await builder.finishRoute(with: saved, metadata: nil)
        }
        await #expect(throws: WorkoutStoreError.builderFinished(step: .insertRouteData, workoutID: saved.id)) {
            try await builder.startNewSegment()
        }
        #expect(try await store.route(of: saved.id)?.pointCount == 5)

        let discarded = RouteBuilder(store: store)
        try await discarded.insertRouteData(fixes(5, from: saved.start))
        await discarded.discard()
        await #expect(throws: WorkoutStoreError.builderDiscarded(step: .insertRouteData)) {
            try await discarded.insertRouteData(fixes(1, from: saved.start))
        }
        #expect(try await store.storageCounts().stagedPoints == 0)
    }

    @Test(arguments: [
        (Location(latitude: 90.000_001, longitude: 0), RoutePointProblem.latitudeOutOfRange(90.000_001)),
        (Location(latitude: -91, longitude: 0), .latitudeOutOfRange(-91)),
        (Location(latitude: 0, longitude: 180.5), .longitudeOutOfRange(180.5)),
        (Location(latitude: 0, longitude: -181), .longitudeOutOfRange(-181)),
        (Location(latitude: 0, longitude: 0, altitude: .infinity), .notFinite(field: "altitude")),
        (Location(latitude: 0, longitude: 0, speed: .nan), .notFinite(field: "speed")),
    ])
    func pointsOutOfRangeAreRefusedWithTheirBatch(bad: Location, problem: RoutePointProblem) async throws {
        let store = try WorkoutStore.inMemory()
        let start = SyntheticTrack.defaultStartTime
        let builder = RouteBuilder(store: store)
        try await builder.insertRouteData(fixes(10, from: start))
        var point = bad
        point.time = start.addingTimeInterval(12)
        let batch = fixes(2, from: start.addingTimeInterval(10)) + [point]
        await #expect(throws: WorkoutStoreError.invalidRoutePoint(workoutID: nil, index: 12, indexInBatch: 2, problem: problem)) {
            try await builder.insertRouteData(batch)
        }
        #expect(await builder.pointCount == 10)
        #expect(try await store.storageCounts().stagedPoints == 10)
        // The edges themselves are fine.
        try await builder.insertRouteData([Location(latitude: -90, longitude: 180, time: start.addingTimeInterval(20))])
        #expect(await builder.pointCount == 11)
    }

    @Test func aPointWithoutTimeIsRefused() async throws {
        let builder = RouteBuilder(store: try WorkoutStore.inMemory())
        await #expect(throws: WorkoutStoreError.invalidRoutePoint(workoutID: nil, index: 0, indexInBatch: 0, problem: .missingTime)) {
            try await builder.insertRouteData([Location(latitude: 1, longitude: 2)])
        }
    }

    @Test func pointsAndSamplesMustLieInsideTheWorkout() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 100)
        try await store.save(saved)

        let late = RouteBuilder(store: store)
        try await late.insertRouteData(fixes(105, from: saved.start))   // points 101...104 are after the end
        await #expect(throws: WorkoutStoreError.invalidRoutePoint(
            workoutID: saved.id, index: 101, indexInBatch: nil, problem: .outsideWorkout(start: saved.start, end: saved.end))) {
            try await late.finishRoute(with: saved, metadata: nil)
        }
        let early = RouteBuilder(store: store)
        try await early.insertRouteData(fixes(10, from: saved.start.addingTimeInterval(-1)))
        await #expect(throws: WorkoutStoreError.invalidRoutePoint(
            workoutID: saved.id, index: 0, indexInBatch: nil, problem: .outsideWorkout(start: saved.start, end: saved.end))) {
            try await early.finishRoute(with: saved, metadata: nil)
        }
        #expect(try await store.route(of: saved.id) == nil)

        // Both ends are inside.
        let exact = RouteBuilder(store: store)
        try await exact.insertRouteData(fixes(101, from: saved.start))
        try await exact.finishRoute(with: saved, metadata: nil)
        await late.discard()
        await early.discard()

        let samples = [
            QuantitySample(type: .heartRate, value: 120, at: saved.start),
            QuantitySample(type: .power, value: 200, start: saved.end.addingTimeInterval(-1), end: saved.end.addingTimeInterval(1)),
        ]
        let error = await thrownError { try await store.addSamples(samples, to: saved) }
        guard case let .invalidSample(id, index, reason) = error else { throw Unexpected(error) }
        #expect(id == saved.id && index == 1 && reason.contains("outside the workout"))
        #expect(try await store.samples(of: saved.id).isEmpty)
    }

    @Test func anOlderPointIsRefusedAndTheBuilderStaysUsable() async throws {
        let store = try WorkoutStore.inMemory()
        let start = SyntheticTrack.defaultStartTime
        let builder = RouteBuilder(store: store)
        try await builder.insertRouteData(fixes(10, from: start))
        let older = fixes(3, from: start.addingTimeInterval(8))   // 8 s is before the last point (9 s)
        await #expect(throws: WorkoutStoreError.invalidRoutePoint(
            workoutID: nil, index: 10, indexInBatch: 0, problem: .outOfOrder(previous: start.addingTimeInterval(9)))) {
            try await builder.insertRouteData(older)
        }
        let shuffled = [fixes(1, from: start.addingTimeInterval(20))[0], fixes(1, from: start.addingTimeInterval(15))[0]]
        await #expect(throws: WorkoutStoreError.invalidRoutePoint(
            workoutID: nil, index: 11, indexInBatch: 1, problem: .outOfOrder(previous: start.addingTimeInterval(20)))) {
            try await builder.insertRouteData(shuffled)
        }
        #expect(await builder.pointCount == 10)
        try await builder.insertRouteData(fixes(5, from: start.addingTimeInterval(10)))
        #expect(await builder.pointCount == 15)
    }

    @Test func exactDuplicatesAreDroppedAndEqualTimesKept() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 60)
        try await store.save(saved)
        let builder = RouteBuilder(store: store)
        let first = fixes(10, from: saved.start)
        try await builder.insertRouteData(first)
        // The last point again (a repeated fix), then a second fix in the same whole second.
        var sameSecond = first[9]
        sameSecond.latitude += 1e-6
        try await builder.insertRouteData([first[9], first[9], sameSecond, first[9]])
        #expect(await builder.pointCount == 11)
        #expect(await builder.droppedDuplicates == 3)
        // A batch given twice: the second time every point is a duplicate, and each is counted.
        try await builder.insertRouteData([sameSecond])
        #expect(await builder.droppedDuplicates == 4)
        let route = try await builder.finishRoute(with: saved, metadata: nil)
        #expect(route.droppedDuplicates == 4 && route.pointCount == 11)
        let points = try await readRoute(store, saved.id)
        #expect(points.map(\.location) == (first + [sameSecond]).map(asStored))
    }

    @Test func segmentsFollowPauses() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 60)
        try await store.save(saved)
        let builder = RouteBuilder(store: store)
        try await builder.startNewSegment()   // before the first point: no effect
        try await builder.insertRouteData(fixes(5, from: saved.start))
        try await builder.startNewSegment()
        try await builder.startNewSegment()   // twice: still one new segment
        try await builder.insertRouteData(fixes(3, from: saved.start.addingTimeInterval(20)))
        try await builder.startNewSegment()
        try await builder.insertRouteData([])   // an empty batch does not use the break
        try await builder.insertRouteData(fixes(2, from: saved.start.addingTimeInterval(40)))
        let route = try await builder.finishRoute(with: saved, metadata: nil)
        #expect(route.segmentCount == 3)
        let points = try await readRoute(store, saved.id)
        #expect(points.map(\.segment) == [0, 0, 0, 0, 0, 1, 1, 1, 2, 2])
    }

    @Test func repeatedSamplesAreSkippedAndConflictingOnesRefused() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 60)
        try await store.save(saved)
        let samples = (0..<30).map { QuantitySample(type: .heartRate, value: Double(100 + $0), at: saved.start.addingTimeInterval(Double($0))) }
        try await store.addSamples(samples, to: saved)
        try await store.addSamples(samples, to: saved)   // a retried call adds nothing twice
        #expect(try await store.samples(of: saved.id) == samples)

        let fresh = QuantitySample(type: .heartRate, value: 150, at: saved.start.addingTimeInterval(45))
        var changed = samples[7]
        changed.value = 99
        await #expect(throws: WorkoutStoreError.conflictingSample(
            workoutID: saved.id, index: 1, type: .heartRate, start: changed.start, storedValue: 107, newValue: 99)) {
            try await store.addSamples([fresh, changed], to: saved)
        }
        #expect(try await store.samples(of: saved.id) == samples)   // not even `fresh`
    }

    /// Samples are written many to a statement: a repeat or a conflict is still found, whatever
    /// group of rows it falls in.
    @Test func repeatsAndConflictsAreFoundAcrossGroupsOfRows() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 600)
        try await store.save(saved)
        let samples = (0..<150).map { QuantitySample(type: .cadence, value: Double(80 + $0 % 9), at: saved.start.addingTimeInterval(Double($0))) }
        try await store.addSamples(samples + samples, to: saved)   // repeated within one call
        #expect(try await store.samples(of: saved.id) == samples)
        var conflicting = samples[10]
        conflicting.value += 1
        let more = (150..<300).map { QuantitySample(type: .cadence, value: 85, at: saved.start.addingTimeInterval(Double($0))) }
        await #expect(throws: WorkoutStoreError.conflictingSample(
            workoutID: saved.id, index: 130, type: .cadence, start: conflicting.start, storedValue: samples[10].value,
            newValue: conflicting.value)) {
            try await store.addSamples(Array(more[..<130]) + [conflicting] + Array(more[130...]), to: saved)
        }
        #expect(try await store.samples(of: saved.id) == samples)
    }

    @Test func impossibleSamplesAreRefused() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 60)
        try await store.save(saved)
        let at = saved.start.addingTimeInterval(5)
        let cases: [(QuantitySample, String)] = [
            (QuantitySample(type: .heartRate, value: -1, at: at), "negative"),
            (QuantitySample(type: .power, value: .nan, at: at), "not a finite number"),
            (QuantitySample(type: .cadence, value: 80, start: at, end: at.addingTimeInterval(-1)), "ends before it starts"),
        ]
        for (sample, words) in cases {
            let error = await thrownError { try await store.addSamples([sample], to: saved) }
            guard case let .invalidSample(_, index, reason) = error else { throw Unexpected(error) }
            #expect(index == 0 && reason.contains(words), "\(reason)")
        }
        try await store.addSamples([QuantitySample(type: .temperature, value: -4.5, at: at)], to: saved)
        #expect(try await store.samples(of: saved.id, type: .temperature).map(\.value) == [-4.5])
    }

    @Test func saveRefusesAWorkoutItAlreadyHolds() async throws {
        let store = try WorkoutStore.inMemory()
        let first = workout(externalID: "garmin:123")
        try await store.save(first)
        await #expect(throws: WorkoutStoreError.workoutAlreadySaved(workoutID: first.id, existingID: first.id, matchedBy: .id)) {
            try await store.save(first)
        }
        let again = workout(externalID: "garmin:123")
        await #expect(throws: WorkoutStoreError.workoutAlreadySaved(
            workoutID: again.id, existingID: first.id, matchedBy: .externalID("garmin:123"))) {
            try await store.save(again)
        }
        #expect(try await store.workoutCount() == 1)
    }

    @Test func inconsistentWorkoutsAreRefused() async throws {
        let store = try WorkoutStore.inMemory()
        let start = SyntheticTrack.defaultStartTime
        let backwards = WorkoutRecord(activityType: .cycling, start: start, end: start.addingTimeInterval(-1))
        let negative = WorkoutRecord(activityType: .cycling, start: start, end: start, totals: WorkoutTotals(distance: -3))
        let tooLong = WorkoutRecord(activityType: .cycling, start: start, end: start.addingTimeInterval(60), totals: WorkoutTotals(duration: 61))
        for (record, words) in [(backwards, "before it starts"), (negative, "distance -3.0"), (tooLong, "duration 61.0 s is longer")] {
            let error = await thrownError { try await store.save(record) }
            guard case let .invalidWorkout(id, reason) = error else { throw Unexpected(error) }
            #expect(id == record.id && reason.contains(words), "\(reason)")
        }
        #expect(try await store.workoutCount() == 0)
    }

    @Test func aWorkoutHasOneRouteAndARouteHasPoints() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 60)
        try await store.save(saved)
        let empty = RouteBuilder(store: store)
        await #expect(throws: WorkoutStoreError.emptyRoute(workoutID: saved.id)) {
            try await empty.finishRoute(with: saved, metadata: nil)
        }
        let first = RouteBuilder(store: store)
        try await first.insertRouteData(fixes(10, from: saved.start))
        try await first.finishRoute(with: saved, metadata: nil)
        let second = RouteBuilder(store: store)
        try await second.insertRouteData(fixes(10, from: saved.start))
        await #expect(throws: WorkoutStoreError.routeAlreadyAttached(workoutID: saved.id)) {
            try await second.finishRoute(with: saved, metadata: nil)
        }
        #expect(try await readRoute(store, saved.id).count == 10)
    }

    @Test func errorsReadAsSentencesNamingTheFacts() {
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(WorkoutStoreError.workoutNotSaved(workoutID: id, step: .addSamples).description
            == "Cannot run addSamples(_:to:) for workout E621E1F8-C36C-495A-93FC-0C247A3E6E5F: it is not saved in this store. Save it first with save(_:).")
        #expect(WorkoutStoreError.invalidRoutePoint(workoutID: nil, index: 12, indexInBatch: 2, problem: .latitudeOutOfRange(91)).description
            == "Route point 12 (item 2 of its batch) was refused: its latitude 91.0 is outside -90...90. Nothing of that call was kept.")
        #expect(WorkoutStoreError.cannotOpen(path: "/data/w.sqlite", reason: "the folder /data does not exist").description
            == "Cannot open the workout store at /data/w.sqlite: the folder /data does not exist.")
        #expect(WorkoutStoreError.databaseFailed(operation: .insertRouteData, path: nil, reason: "disk I/O error").description
            == "SQLite failed during insertRouteData(_:) on the workout store in memory: disk I/O error. Nothing of that call was saved.")
    }
}

/// The README's tour of the workout store, word for word (the README opens the store in its
/// prose, with the user's default path): it must compile and run.
func readmeTour(_ store: WorkoutStore, start: Date, end: Date, heartRateSamples: [QuantitySample], route: [Location]) async throws -> WorkoutRecord {
    let workout = WorkoutRecord(activityType: .running, start: start, end: end)
    try await store.save(workout)
    try await store.addSamples(heartRateSamples, to: workout)   // [QuantitySample(type: .heartRate, ...)]
    let routeBuilder = RouteBuilder(store: store)
    try await routeBuilder.insertRouteData(route)               // [Location]; call it once per batch
    try await routeBuilder.finishRoute(with: workout, metadata: nil)

    // A whole recorded run in one transaction; a second call finds it (by id or external id).
    try await store.saveWorkout(workout, samples: heartRateSamples, route: route)

    for try await batch in store.routePoints(of: workout.id) { /* [RoutePoint], 1,000 at a time */ _ = batch }
    return workout
}

@Test func theReadmeTourRuns() async throws {
    let store = try WorkoutStore.inMemory()
    let run = SyntheticRun(index: 30, points: 120)
    let saved = try await readmeTour(
        store, start: run.workout.start, end: run.workout.end, heartRateSamples: run.samples, route: run.route)
    #expect(try await store.storageCounts() == .init(workouts: 1, samples: 120, routes: 1, points: 120))
    #expect(try await readRoute(store, saved.id).map(\.location) == run.route.map(asStored))
}
