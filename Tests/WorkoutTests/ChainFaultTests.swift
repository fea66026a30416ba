import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
@testable import Workout

@Suite("Each step of the chain failing in turn leaves the steps before it, and nothing of itself")
struct ChainFaultTests {
    /// Runs the chain for `run` (route in three batches); returns the first step that threw.
    func runChain(_ run: SyntheticRun, in store: WorkoutStore, builder: RouteBuilder) async -> (StoreOperation, WorkoutStoreError)? {
        let third = run.route.count / 3
        do {
            try await store.save(run.workout)
        } catch { return (.save, error) }
        do {
            try await store.addSamples(run.samples, to: run.workout)
        } catch { return (.addSamples, error) }
        do {
            try await builder.insertRouteData(Array(run.route[..<third]))
            try await builder.insertRouteData(Array(run.route[third..<(2 * third)]))
            try await builder.insertRouteData(Array(run.route[(2 * third)...]))
        } catch { return (.insertRouteData, error) }
        do {
            try await builder.finishRoute(with: run.workout, metadata: nil)
        } catch { return (.finishRoute, error) }
        return nil
    }

    @Test(arguments: [StoreOperation.save, .addSamples, .insertRouteData, .finishRoute])
    func aStepFailsAndTheChainCanGoOnFromIt(step: StoreOperation) async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let run = SyntheticRun(index: 8, points: 600)
        let builder = RouteBuilder(store: store)
        faults.inject(step == .insertRouteData ? .row(50, of: step) : .beforeWriting(step))

        let failure = await runChain(run, in: store, builder: builder)
        #expect(failure?.0 == step)
        #expect(failure?.1 == faults.strikes.first?.error)
        let counts = try await store.storageCounts()
        switch step {
        case .save:
            #expect(counts == .init())
        case .addSamples:
            #expect(counts == .init(workouts: 1))
        case .insertRouteData:
            // The first batch's row 50 failed: that batch left nothing, staged or not.
            #expect(counts == .init(workouts: 1, samples: 600))
            #expect(await builder.pointCount == 0)
        default:
            // Every batch is staged, out of sight; the route is not attached.
            #expect(counts == .init(workouts: 1, samples: 600, stagedRoutes: 1, stagedPoints: 600))
            #expect(try await store.route(of: run.workout.id) == nil)
            #expect(try await readRoute(store, run.workout.id).isEmpty)
        }

        // Going on from the failed step completes the run, with nothing doubled.
        switch step {
        case .save: try await store.save(run.workout); fallthrough
        case .addSamples: try await store.addSamples(run.samples, to: run.workout); fallthrough
        case .insertRouteData: try await builder.insertRouteData(run.route); fallthrough
        default: try await builder.finishRoute(with: run.workout, metadata: nil)
        }
        try await expectComplete(run, in: store)
        #expect(try await store.storageCounts() == .init(workouts: 1, samples: 600, routes: 1, points: 600))
    }

    @Test func aFaultAtTheLastSampleLeavesNoneOfThem() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let run = SyntheticRun(index: 9, points: 1_000)
        try await store.save(run.workout)
        faults.inject(.row(1_000, of: .addSamples))
        #expect(await thrownError { try await store.addSamples(run.samples, to: run.workout) } != nil)
        #expect(try await store.samples(of: run.workout.id).isEmpty)
    }

    @Test func theNthWriteCountsEveryRowTheStoreWrites() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let run = SyntheticRun(index: 10, points: 100)
        // Rows in order: the workout (1), 100 samples (2...101), 100 points (102...201).
        faults.inject(.write(150))
        let error = await thrownError { try await store.saveWorkout(run.workout, samples: run.samples, route: run.route) }
        #expect(faults.writes == 150)
        #expect(error == .databaseFailed(
            operation: .insertRouteData, path: nil, reason: "disk I/O error (injected by StoreFaults, write 150)"))
        #expect(try await store.storageCounts() == .init())
        try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
        #expect(faults.writes == 150 + 201)
    }

    @Test func aFaultStrikesAsOftenAsAskedWithTheChosenError() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let chosen = WorkoutStoreError.databaseFailed(operation: .save, path: "/mnt/full", reason: "database or disk is full (SQLite code 13)")
        faults.inject(.commit(of: .save), error: chosen, times: 2)
        let record = workout()
        #expect(await thrownError { try await store.save(record) } == chosen)
        #expect(await thrownError { try await store.save(record) } == chosen)
        try await store.save(record)
        #expect(faults.strikes.count == 2)
        #expect(try await store.workouts() == [record])

        faults.inject(.beforeWriting(.delete))   // not a fault point: deleting never asks
        faults.inject(.beforeWriting(.addSamples))
        faults.removeAll()
        try await store.addSamples([QuantitySample(type: .power, value: 250, at: record.start)], to: record)
        #expect(faults.strikes.count == 2)
    }
}
