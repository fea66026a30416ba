import Foundation
import GRDB
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
import TestSupport
@testable import Workout

/// Samples written with the route as it comes (the GPX importer's way), under a workout row that
/// no query sees until the run commits.
@Suite("Samples written with the route stay out of sight until the run commits")
struct StagedWorkoutTests {
    let start = SyntheticTrack.defaultStartTime

    /// A builder for a workout whose times are not known yet, as the importer makes one.
    func builder(for id: UUID, in store: WorkoutStore) -> RouteBuilder {
        // Measuring, as saveWorkout's builder does (an importer's works the figures out as it reads).
        RouteBuilder(store: store, for: WorkoutRecord(id: id, activityType: .other, start: .distantPast, end: .distantFuture), measuring: true)
    }

    func heartRate(for route: [Location]) -> [QuantitySample] {
        route.enumerated().map { QuantitySample(type: .heartRate, value: 120 + Double($0.offset % 30), at: $0.element.time!) }
    }

    @Test func nothingIsVisibleBeforeTheCommitAndEverythingAfter() async throws {
        let store = try WorkoutStore.inMemory()
        let final = workout(seconds: 99, startingAt: start)
        let route = fixes(100, from: start)
        let builder = builder(for: final.id, in: store)
        try await builder.insert(Array(route[..<50]), samples: heartRate(for: Array(route[..<50])))
        try await builder.insert(Array(route[50...]), samples: Array(heartRate(for: route)[50...]))

        #expect(try await store.workouts().isEmpty)
        #expect(try await store.workout(id: final.id) == nil)
        #expect(try await store.workoutCount() == 0)
        await #expect(throws: WorkoutStoreError.workoutNotSaved(workoutID: final.id, step: .read)) {
            try await store.samples(of: final.id)
        }
        #expect(try await store.deleteWorkout(id: final.id) == false)
        #expect(try await store.storageCounts() == .init(stagedRoutes: 1, stagedPoints: 100, stagedWorkouts: 1, stagedSamples: 100))

        #expect(try await builder.commit(final, samples: [], metadata: nil) == .saved(workoutID: final.id))
        // Saved without totals, it gets its route's distance.
        var stored = try #require(try await store.workout(id: final.id))
        let distance = zip(route, route.dropFirst()).map { $0.distance(to: $1) }.reduce(0, +)
        #expect(abs(try #require(stored.totals.distance) - distance) < 1e-6)
        stored.totals = final.totals
        #expect(stored == final)
        #expect(try await store.samples(of: final.id, type: .heartRate) == heartRate(for: route))
        #expect(try await store.storageCounts() == .init(workouts: 1, samples: 100, routes: 1, points: 100))
    }

    @Test func aDiscardedOrReleasedBuilderTakesItsSamplesWithIt() async throws {
        let store = try WorkoutStore.inMemory()
        let route = fixes(20, from: start)
        let discarded = builder(for: UUID(), in: store)
        try await discarded.insert(route, samples: heartRate(for: route))
        await discarded.discard()
        #expect(try await store.storageCounts() == .init())
        do {
            let released = builder(for: UUID(), in: store)
            try await released.insert(route, samples: heartRate(for: route))
        }
        #expect(try await store.storageCounts() == .init())
    }

    @Test func aRunAlreadySavedLeavesNoStagedSamplesBehind() async throws {
        let store = try WorkoutStore.inMemory()
        let route = fixes(20, from: start)
        let first = workout(seconds: 19, externalID: "same-run", startingAt: start)
        try await store.saveWorkout(first, samples: heartRate(for: route), route: route)
        var again = first
        again.id = UUID()
        let builder = builder(for: again.id, in: store)
        try await builder.insert(route, samples: heartRate(for: route))
        #expect(try await builder.commit(again, samples: [], metadata: nil)
            == .alreadySaved(existingID: first.id, matchedBy: .externalID("same-run")))
        #expect(try await store.storageCounts() == .init(workouts: 1, samples: 20, routes: 1, points: 20))
    }

    @Test func aSampleOutsideTheWorkoutRefusesTheCommitAndLeavesNothing() async throws {
        let store = try WorkoutStore.inMemory()
        let route = fixes(20, from: start)
        let short = workout(seconds: 19, startingAt: start)
        var samples = heartRate(for: route)
        samples.append(QuantitySample(type: .cadence, value: 80, at: start.addingTimeInterval(60)))
        let builder = builder(for: short.id, in: store)
        try await builder.insert(route, samples: samples)
        await #expect {
            try await builder.commit(short, samples: [], metadata: nil)
        } throws: { error in
            guard case let .invalidSample(id, _, reason) = error as? WorkoutStoreError else { return false }
            return id == short.id && reason.contains("outside the workout")
        }
        #expect(try await store.storageCounts() == .init())
    }

    @Test func aFaultWhileWritingSamplesLeavesTheBuilderAsItWas() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let route = fixes(20, from: start)
        let builder = builder(for: UUID(), in: store)
        try await builder.insert(Array(route[..<10]), samples: Array(heartRate(for: route)[..<10]))
        faults.inject(.row(5, of: .addSamples))
        await #expect(throws: WorkoutStoreError.self) {
            try await builder.insert(Array(route[10...]), samples: Array(heartRate(for: route)[10...]))
        }
        #expect(try await store.storageCounts() == .init(stagedRoutes: 1, stagedPoints: 10, stagedWorkouts: 1, stagedSamples: 10))
        try await builder.insert(Array(route[10...]), samples: Array(heartRate(for: route)[10...]))
        #expect(await builder.pointCount == 20)
    }

    @Test func stagedWorkoutsOfAnEndedProcessAreDeletedWhenTheStoreOpens() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let ended = try ChildProcess("true", [])
        #expect(await ended.waitUntilExit() == 0)
        let deadOwner = StagingOwner(pid: ended.processIdentifier, start: StagingOwner.current.start)
        let store = try WorkoutStore(path: path)
        try await store.withDatabase { db in
            try db.execute(sql: """
                INSERT INTO workout (id, uuid, activity_type, start_time, end_time, saved_at, builder_owner)
                VALUES (7, ?, 'other', 0, 0, 0, ?)
                """, arguments: [UUID(), deadOwner.description])
            for second in 0..<25 {
                try db.execute(
                    sql: "INSERT INTO quantity_sample (workout, type, start_time, end_time, value) VALUES (7, 'heart_rate', ?, ?, 130)",
                    arguments: [Double(second), Double(second)])
            }
        }
        #expect(try await store.storageCounts() == .init(stagedWorkouts: 1, stagedSamples: 25))
        #expect(try await WorkoutStore(path: path).storageCounts() == .init())
    }
}

@Suite("The importer's hand-off between the reader thread and the saving task")
struct HandOffTests {
    /// Counts how many of its values are alive.
    final class Tracked: Sendable {
        static let alive = Locked(0)
        init() { Self.alive.withLock { $0 += 1 } }
        deinit { Self.alive.withLock { $0 -= 1 } }
    }

    @Test func aSlowConsumerHoldsAtMostTheCapacityAndNothingItTook() async throws {
        let handOff = HandOff<Tracked>(capacity: 3)
        let producer = Thread {
            for _ in 0..<200 { _ = handOff.send(Tracked()) }
            handOff.finish()
        }
        producer.start()
        var taken = 0
        var mostAlive = 0
        while let item = await handOff.next() {
            _ = item
            taken += 1
            await Task.yield()
            mostAlive = max(mostAlive, Tracked.alive.withLock { $0 })
        }
        #expect(taken == 200)
        // Queued (3), the one being sent, and the one in hand.
        #expect(mostAlive <= 5)
    }

    @Test func closingStopsTheProducer() async throws {
        let handOff = HandOff<Int>(capacity: 2)
        let refused = Locked<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let producer = Thread {
            for index in 0..<1_000 where !handOff.send(index) {
                refused.withLock { $0 = index }
                break
            }
            done.signal()
        }
        producer.start()
        #expect(await handOff.next() == 0)
        handOff.close()
        done.wait()
        #expect(refused.withLock { $0 } != nil)
        #expect(await handOff.next() == nil)
    }
}
