import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
import TestSupport
@testable import Workout

@Suite("Many tasks saving and reading at once", .timeLimit(.minutes(2)))
struct ConcurrencyTests {
    /// Left out under TSan: there Swift's runtime takes a lock each time unspecialized code asks
    /// for an `Optional<T>`'s metadata, and GRDB's row decoding on the many stores' threads queued
    /// on it for seconds, past the time limit.
    @Test(.disabled(if: ThreadSanitizer.isRunning, "its many stores' threads queue on a runtime lock under TSan"))
    func concurrentChainsSavesAndReadersOnAFileStore() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore(path: folder.file("w.sqlite"))
        let runs = (0..<16).map { SyntheticRun(index: 100 + $0, points: 400) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, run) in runs.enumerated() {
                group.addTask {
                    if number.isMultiple(of: 2) {
                        try await store.save(run.workout)
                        try await store.addSamples(run.samples, to: run.workout)
                        let builder = RouteBuilder(store: store)
                        for start in stride(from: 0, to: run.route.count, by: 50) {
                            try await builder.insertRouteData(Array(run.route[start..<(start + 50)]))
                        }
                        try await builder.finishRoute(with: run.workout, metadata: nil)
                    } else {
                        try await SaveVariant(rawValue: number % 4 == 1 ? "inMemory" : "streamed")!.save(run, in: store, batch: 64)
                    }
                }
            }
            for _ in 0..<6 {
                group.addTask {
                    // Readers see whole runs only: a route is there with all its points, or not at all.
                    for _ in 0..<20 {
                        for record in try await store.workouts() {
                            if let route = try await store.route(of: record.id) {
                                #expect(try await readRoute(store, record.id, batchSize: 128).count == route.pointCount)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for run in runs { try await expectComplete(run, in: store) }
        #expect(try await store.storageCounts() == .init(workouts: 16, samples: 16 * 400, routes: 16, points: 16 * 400))
        #expect(try await store.checkIntegrity() == [])
    }

    @Test(arguments: SaveVariant.allCases)
    func theSameRunSavedByManyTasksAtOnceIsSavedOnce(variant: SaveVariant) async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore(path: folder.file("w.sqlite"))
        let run = SyntheticRun(index: 200, points: 500)
        let outcomes = try await withThrowingTaskGroup(of: SaveOutcome.self) { group in
            for _ in 0..<8 {
                group.addTask { try await variant.save(run, in: store) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .saved(workoutID: run.workout.id) }.count == 1)
        #expect(outcomes.filter { $0 == .alreadySaved(existingID: run.workout.id, matchedBy: .id) }.count == 7)
        try await expectComplete(run, in: store)
        #expect(try await store.storageCounts() == .init(workouts: 1, samples: 500, routes: 1, points: 500))
    }

    @Test func callsOnOneBuilderRunOneAtATime() async throws {
        let store = try WorkoutStore.inMemory()
        let saved = workout(seconds: 60)
        try await store.save(saved)
        let builder = RouteBuilder(store: store)
        // Twenty batches at the same second (allowed: equal times are kept), from twenty tasks.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<20 {
                group.addTask {
                    let batch = (0..<25).map {
                        Location(latitude: 50 + Double(task) * 0.01 + Double($0) * 1e-5, longitude: 1, time: saved.start)
                    }
                    try await builder.insertRouteData(batch)
                }
            }
            try await group.waitForAll()
        }
        let route = try await builder.finishRoute(with: saved, metadata: nil)
        #expect(route.pointCount == 500)
        let points = try await readRoute(store, saved.id)
        #expect(points.map(\.ordinal) == Array(0..<500))
        // Each task's batch arrived whole, not interleaved with another's.
        let batches = stride(from: 0, to: 500, by: 25).map { Set(points[$0..<($0 + 25)].map { Int(($0.location.latitude - 50) / 0.01 + 1e-6) }) }
        #expect(batches.allSatisfy { $0.count == 1 })
    }
}
