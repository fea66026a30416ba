import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
@testable import Workout

/// How a test saves a whole run: the route in memory, or streamed in batches.
enum SaveVariant: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, streamed

    var testDescription: String { rawValue }

    @discardableResult
    func save(_ run: SyntheticRun, in store: WorkoutStore, batch: Int = 100) async throws(WorkoutStoreError) -> SaveOutcome {
        switch self {
        case .inMemory:
            return try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
        case .streamed:
            return try await store.saveWorkout(run.workout, samples: run.samples) { route in
                for start in stride(from: 0, to: run.route.count, by: batch) {
                    try await route.insertRouteData(Array(run.route[start..<min(start + batch, run.route.count)]))
                }
            }
        }
    }
}

@Suite("saveWorkout saves a whole run atomically, and once")
struct SaveWorkoutTests {
    @Test(arguments: SaveVariant.allCases)
    func savesAWholeRun(variant: SaveVariant) async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 3, points: 900)
        #expect(try await variant.save(run, in: store) == .saved(workoutID: run.workout.id))
        try await expectComplete(run, in: store)
        #expect(try await store.storageCounts() == .init(workouts: 1, samples: 900, routes: 1, points: 900))
    }

    @Test(arguments: SaveVariant.allCases)
    func runningItAgainDoesNotDuplicateIt(variant: SaveVariant) async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 1, points: 300)
        try await variant.save(run, in: store)
        #expect(try await variant.save(run, in: store) == .alreadySaved(existingID: run.workout.id, matchedBy: .id))

        // The same activity arriving as a new value (a file imported twice) is found by its external id.
        var reimported = run.workout
        reimported.id = UUID()
        let again = try await store.saveWorkout(reimported, samples: run.samples, route: run.route)
        #expect(again == .alreadySaved(existingID: run.workout.id, matchedBy: .externalID("synthetic-run-1")))
        #expect(try await store.storageCounts() == .init(workouts: 1, samples: 300, routes: 1, points: 300))
    }

    static let faults: [StoreFaults.Trigger] = [
        .beforeWriting(.save), .row(1, of: .save),
        .beforeWriting(.addSamples), .row(150, of: .addSamples),
        .beforeWriting(.insertRouteData), .row(42, of: .insertRouteData),
        .beforeWriting(.finishRoute), .commit(of: .saveWorkout),
    ]

    @Test(arguments: SaveVariant.allCases, faults)
    func aFailureAtAnyStepLeavesNothingAndARerunSavesOnce(variant: SaveVariant, fault: StoreFaults.Trigger) async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let run = SyntheticRun(index: 2, points: 300)
        faults.inject(fault)

        let error = await thrownError { try await variant.save(run, in: store) }
        #expect(faults.strikes.map(\.trigger) == [fault])
        #expect(error == faults.strikes.first?.error)
        #expect(try await store.storageCounts() == .init(), "something of the failed run remains")
        #expect(try await store.workout(id: run.workout.id) == nil)

        #expect(try await variant.save(run, in: store) == .saved(workoutID: run.workout.id))
        #expect(try await variant.save(run, in: store) == .alreadySaved(existingID: run.workout.id, matchedBy: .id))
        try await expectComplete(run, in: store)
        #expect(try await store.storageCounts() == .init(workouts: 1, samples: 300, routes: 1, points: 300))
    }

    @Test func aStreamedSaveFailingWhileStagingLeavesNothing() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let run = SyntheticRun(index: 4, points: 1_000)
        faults.inject(.commit(of: .insertRouteData))   // the first batch's commit
        faults.inject(.row(3, of: .insertRouteData))  // then a row of the second batch
        let first = await thrownError { try await SaveVariant.streamed.save(run, in: store) }
        let second = await thrownError { try await SaveVariant.streamed.save(run, in: store) }
        #expect(first != nil && second != nil && faults.strikes.count == 2)
        #expect(try await store.storageCounts() == .init())
        try await SaveVariant.streamed.save(run, in: store)
        try await expectComplete(run, in: store)
    }

    @Test func aFailingRouteSourceLeavesNothing() async throws {
        struct ParseError: Error, CustomStringConvertible {
            var description: String { "bad XML at line 7" }
        }
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 5, points: 500)
        let error = await thrownError {
            try await store.saveWorkout(run.workout, samples: run.samples) { route in
                try await route.insertRouteData(Array(run.route[..<200]))
                try await route.insertRouteData(Array(run.route[200..<400]))
                #expect(await route.pointCount == 400)
                throw ParseError()
            }
        }
        #expect(error == .routeSourceFailed(workoutID: run.workout.id, reason: "bad XML at line 7"))
        #expect(try await store.storageCounts() == .init())
    }

    @Test func aCancelledSaveLeavesNothing() async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 6, points: 500)
        // The save runs in a task of its own, which cancels itself halfway through the route.
        let save = Task {
            try await store.saveWorkout(run.workout, samples: run.samples) { route in
                try await route.insertRouteData(Array(run.route[..<250]))
                withUnsafeCurrentTask { $0?.cancel() }
                try await route.insertRouteData(Array(run.route[250...]))
            }
        }
        let error = await thrownError { _ = try await save.value }
        #expect(error == .cancelled(operation: .insertRouteData))
        #expect(try await store.storageCounts() == .init())
    }

    @Test(arguments: SaveVariant.allCases)
    func aPointOutsideTheWorkoutIsRefusedBeforeAnythingIsWritten(variant: SaveVariant) async throws {
        let store = try WorkoutStore.inMemory()
        var run = SyntheticRun(index: 7, points: 300)
        run.workout.end = run.route[249].time!
        run.samples = Array(run.samples[..<250])
        let workout = run.workout
        let error = await thrownError { try await variant.save(run, in: store) }
        let outside = RoutePointProblem.outsideWorkout(start: workout.start, end: workout.end)
        // In memory: the whole route is checked at once. Streamed: batches of 100, so point 250 is item 50.
        let indexInBatch = variant == .inMemory ? 250 : 50
        #expect(error == .invalidRoutePoint(workoutID: workout.id, index: 250, indexInBatch: indexInBatch, problem: outside))
        #expect(try await store.storageCounts() == .init())
    }
}

