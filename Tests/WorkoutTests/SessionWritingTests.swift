import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
import WorkoutSimulators
@testable import Workout

/// The session's one writer against a store that fails: nothing held is dropped, writing is tried
/// again on the session's clock, the session says how writing stands, and end() waits for the
/// store as long as it is configured to, then fails saying how the session can still be saved.
@Suite(.timeLimit(.minutes(1))) struct SessionWritingTests {
    static let locked = WorkoutStoreError.databaseFailed(operation: .insertRouteData, path: nil, reason: "database is locked (SQLite code 5)")
    static let track = WorkoutSessionTests.runWithStops(0)  // 61 fixes, 60 s at 3 m/s

    /// A session over `track` on a virtual clock, the clock of its writer too.
    func session(store: WorkoutStore, configuration: WorkoutSession.Configuration = .init(activityType: .running))
        -> (WorkoutSession, VirtualClock)
    {
        let clock = VirtualClock()
        let session = WorkoutSession(
            store: store, source: ReplayLocationSource(locations: Self.track, clock: clock), configuration: configuration, clock: clock)
        return (session, clock)
    }

    /// Advances the clock a second at a time until `condition` holds (at most `seconds`), letting
    /// the writer settle after each second (its store call runs on the store's own queue).
    func advance(
        _ clock: VirtualClock, of session: WorkoutSession, upTo seconds: Int, until condition: () async throws -> Bool
    ) async rethrows {
        for _ in 0..<seconds where try await !condition() {
            await clock.advance(by: .seconds(1))
            await session.settled()
        }
    }

    @Test func aStoreThatFailsForAWhileLosesNothingAndTheSessionSaysSo() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let (session, clock) = session(store: store)
        let figures = session.statistics(buffering: .all)
        try session.start()
        try await advance(clock, of: session, upTo: 10) { try await store.storageCounts().stagedPoints >= 5 }
        faults.inject(.beforeWriting(.insertRouteData), error: Self.locked, times: 12)
        await advance(clock, of: session, upTo: 50) { false }
        await advance(clock, of: session, upTo: 120) {
            faults.strikes.count == 12 && session.currentStatistics.unwritten == 0 && session.currentStatistics.elapsedTime == 60
        }
        #expect(session.currentStatistics.storage == .ok)
        let workout = try await session.end()
        #expect(try await store.route(of: workout.id)?.pointCount == Self.track.count, "every fix saved")
        var states: [WorkoutSession.StorageState] = []
        var iterator = figures.makeAsyncIterator()
        while let next = await iterator.next() {
            if states.last != next.storage { states.append(next.storage) }
        }
        #expect(states.count >= 3 && states.first == .ok && states.last == .ok)
        guard case let .retrying(_, attempts, error) = states[1] else {
            Issue.record("the failure was not reported: \(states)")
            return
        }
        #expect(attempts == 1 && error == Self.locked)
    }

    /// While the store fails, the session holds at most `maximumHeldPoints`; past it new input is
    /// dropped and counted, and the session says the store is failing. When the store works
    /// again, all it held is written.
    @Test func pastTheMostItMayHoldNewInputIsDroppedAndCounted() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        faults.inject(.beforeWriting(.insertRouteData), error: Self.locked, times: 1_000)
        let (session, clock) = session(store: store, configuration: .init(activityType: .running, maximumHeldPoints: 20))
        try session.start()
        await advance(clock, of: session, upTo: 40) { false }
        let during = session.currentStatistics
        #expect(during.unwritten == 20)
        #expect(during.inputIssues[.backlogFull] == 20, "41 fixes came: 20 are held, one waits in admission for the next")
        await advance(clock, of: session, upTo: 60) { if case .failing = session.currentStatistics.storage { true } else { false } }
        guard case .failing = session.currentStatistics.storage else {
            Issue.record("\(session.currentStatistics.storage)")
            return
        }
        faults.removeAll()
        await advance(clock, of: session, upTo: 30) { session.currentStatistics.unwritten == 0 && session.currentStatistics.storage == .ok }
        await clock.advance(by: .seconds(30))
        let workout = try await session.end()
        let dropped = try #require(session.currentStatistics.inputIssues[.backlogFull])
        #expect(dropped >= 20)
        #expect(try await store.route(of: workout.id)?.pointCount == Self.track.count - dropped)
        #expect(workout.metadata.values[InputIssue.backlogFull.metadataKey] == "\(dropped)")
    }

    /// end() waits for a failing store for `endTimeout` of the session's clock, then says the
    /// session is kept and how to save it; the session is stopped, holding everything, and a
    /// later end() saves it all.
    @Test func endWaitsForTheStoreThenFailsKeepingEverything() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let (session, clock) = session(store: store, configuration: .init(activityType: .running, endTimeout: .seconds(30)))
        try session.start()
        await clock.advance(by: .seconds(61))
        faults.inject(.commit(of: .finishRoute), error: Self.locked, times: 1_000)
        let ending = Task { () -> Result<WorkoutRecord, WorkoutSessionError> in
            do throws(WorkoutSessionError) { return .success(try await session.end()) } catch { return .failure(error) }
        }
        await advance(clock, of: session, upTo: 29) { faults.strikes.count >= 3 }
        #expect(session.state == .ending, "still waiting")
        await advance(clock, of: session, upTo: 60) { session.state != .ending }
        guard case let .failure(.notSaved(error, waited, _)) = await ending.value else {
            Issue.record("end() must fail once the store has failed for 30 s")
            return
        }
        #expect(error == Self.locked && waited >= .seconds(30) && waited <= .seconds(32), "\(waited): the clock moves a second at a time")
        #expect("\(WorkoutSessionError.notSaved(error: error, waited: waited, unwritten: 0))".contains("workout recover --end"))
        #expect(session.state == .stopped)
        #expect(try await store.workoutCount() == 0)
        faults.removeAll()
        let workout = try await session.end()
        #expect(try await store.route(of: workout.id)?.pointCount == Self.track.count)
        #expect(session.state == .ended)
    }

    /// A store locked during end() for less than endTimeout: end() waits and saves everything.
    @Test func aStoreLockedDuringEndForLessThanTheTimeoutSavesEverything() async throws {
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)
        let (session, clock) = session(store: store)
        try session.start()
        await clock.advance(by: .seconds(30))
        faults.inject(.beforeWriting(.insertRouteData), error: Self.locked, times: 8)
        await clock.advance(by: .seconds(31))
        let ending = Task { try await session.end() }
        // Until it has ended, not until it is no longer ending: the task may not have begun ending
        // yet when the writer has already failed 8 times (it did under ThreadSanitizer), and end()
        // then waited on a clock nobody moved.
        await advance(clock, of: session, upTo: 60) { faults.strikes.count == 8 && session.state == .ended }
        let workout = try await ending.value
        #expect(try await store.route(of: workout.id)?.pointCount == Self.track.count)
    }
}
