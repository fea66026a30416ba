import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
import WorkoutSimulators
@testable import Workout

/// Sessions resumed after a crash: the same workout goes on, the time it was down is a pause,
/// and the figures carry on from where they were. The crash is played in-process: the first
/// session writes part of a run, then its owner in the store is made a process that has ended,
/// as a kill -9 leaves it (the command-level kill -9 tests are in SessionCrashTests).
@Suite(.timeLimit(.minutes(1))) struct SessionResumeTests {
    static let track = WorkoutSessionTests.runWithStops(2)

    /// Records `fixes` into a new session until all are written, then "crashes" it: its staged
    /// rows are left as an ended process leaves them. Returns the interrupted session.
    func recordThenCrash(
        _ fixes: ArraySlice<Location>, configuration: WorkoutSession.Configuration, store: WorkoutStore,
        pausingAtTheEnd: Bool = false
    ) async throws -> InterruptedSession {
        let clock = VirtualClock()
        let device = ReplayLocationSource(locations: Array(fixes), clock: clock)
        let session = WorkoutSession(
            store: store, source: device, heartRate: FakeHeartRateSensor(seed: 3).live(following: device), configuration: configuration,
            clock: clock)
        try session.start()
        await clock.advance(by: .seconds(Double(fixes.count + 5)))
        if pausingAtTheEnd { try session.pause() }
        // A session writes a second behind: fixes two by two here, so all of an even count.
        await waitUntil {
            let counts = try? await store.storageCounts()
            return counts?.stagedPoints == fixes.count && counts?.stagedSamples == fixes.count
        }
        if pausingAtTheEnd {
            await waitUntil { (try? await store.withDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM workout_event") }) == 1 }
        }
        let ended = StagingOwner(pid: getpid(), start: StagingOwner.current.start + 1)
        try await store.withDatabase { db in
            for table in ["workout", "route"] {
                try db.execute(
                    sql: "UPDATE \(table) SET builder_owner = substr(builder_owner, 1, 44) || ':' || ? WHERE builder_owner LIKE 'session:%'",
                    arguments: [ended.description])
            }
        }
        withExtendedLifetime(session) {}
        let interrupted = try await store.interruptedSessions()
        try #require(interrupted.count == 1)
        return interrupted[0]
    }

    /// Records `fixes` alone in a session of its own, for the truth.
    func recordAlone(_ fixes: ArraySlice<Location>, configuration: WorkoutSession.Configuration) async throws -> WorkoutRecord {
        let clock = VirtualClock()
        let session = WorkoutSession(
            store: try WorkoutStore.inMemory(), source: ReplayLocationSource(locations: Array(fixes), clock: clock), configuration: configuration,
            clock: clock)
        try session.start()
        await clock.advance(by: .seconds(Double(fixes.count + 5)))
        return try await session.end()
    }

    @Test func theTimeItWasDownIsAPauseAndTheFiguresCarryOn() async throws {
        let store = try WorkoutStore.inMemory()
        let configuration = WorkoutSession.Configuration(activityType: .running, autoLapDistance: 100)
        let (before, after) = (Self.track[..<80], Self.track[100...])  // 20 fixes lost while it was down
        let interrupted = try await recordThenCrash(before, configuration: configuration, store: store)
        #expect(interrupted.points == 80)

        let clock = VirtualClock()
        let device = ReplayLocationSource(locations: Array(after), clock: clock)
        let resumed = try await WorkoutSession.resume(
            interrupted, store: store, source: device, heartRate: FakeHeartRateSensor(seed: 4).live(following: device),
            configuration: configuration, clock: clock)
        #expect(resumed.state == .running)
        #expect(try await store.interruptedSessions().isEmpty, "it is this process's own again")
        await #expect(throws: WorkoutSessionError.notInterrupted) {
            _ = try await WorkoutSession.resume(interrupted, store: store, source: device, configuration: configuration, clock: clock)
        }
        await clock.advance(by: .seconds(Double(after.count + 5)))
        let workout = try await resumed.end()

        #expect(workout.id == interrupted.id)
        #expect(workout.start == before.first?.time && workout.end == after.last?.time)
        let (first, second) = (try await recordAlone(before, configuration: configuration), try await recordAlone(after, configuration: configuration))
        let distance = try #require(workout.totals.distance)
        #expect(abs(distance - (first.totals.distance! + second.totals.distance!)) < 1e-6, "no distance across the gap")
        #expect(abs(workout.totals.movingTime! - (first.totals.movingTime! + second.totals.movingTime!)) < 1e-6, "no active time in it")
        let events = try await store.events(of: workout.id)
        #expect(events.filter { $0.kind == .pause || $0.kind == .resume } == [
            WorkoutEvent(.pause, at: before.last!.time!), WorkoutEvent(.resume, at: after.first!.time!),
        ])
        let laps = try await store.laps(of: workout.id)
        #expect(laps.count >= 7 && laps.dropLast().allSatisfy { $0.distance >= 100 && $0.distance < 105 }, "laps count on across the gap: \(laps.map(\.distance))")
        #expect(abs(laps.map(\.distance).reduce(0, +) - distance) <= distance * 0.001)
        let route = try #require(try await store.route(of: workout.id))
        #expect(route.pointCount == before.count + after.count && route.segmentCount == 2)
        let samples = try await store.samples(of: workout.id, type: .heartRate)
        #expect(samples.count == before.count + after.count, "\(samples.first!.start) \(samples.last!.start) \(workout.start) \(workout.end)")
        #expect(try await store.storageCounts().stagedPoints == 0)
    }

    @Test func aSessionThePersonHadPausedResumesPaused() async throws {
        let store = try WorkoutStore.inMemory()
        let configuration = WorkoutSession.Configuration(activityType: .running)
        let (before, after) = (Self.track[..<60], Self.track[70...])
        let interrupted = try await recordThenCrash(before, configuration: configuration, store: store, pausingAtTheEnd: true)
        let clock = VirtualClock()
        let resumed = try await WorkoutSession.resume(
            interrupted, store: store, source: ReplayLocationSource(locations: Array(after), clock: clock), configuration: configuration,
            clock: clock)
        #expect(resumed.state == .paused)
        await clock.advance(by: .seconds(5))  // six fixes (0 to 5 s) while still paused: not part of the route
        try resumed.resume()
        await clock.advance(by: .seconds(Double(after.count)))
        let workout = try await resumed.end()
        let events = try await store.events(of: workout.id)
        #expect(events == [
            WorkoutEvent(.pause, at: before.last!.time!), WorkoutEvent(.resume, at: after[after.startIndex + 5].time!),
        ], "\(events)")
        // Every fix is kept; the six seen while paused do not count (the last of them, where the run
        // went on from, does).
        #expect(try await store.route(of: workout.id)?.pointCount == before.count + after.count)
        let exported = try await store.export(workout.id, format: .gpx) { _ in }
        #expect(exported.points == before.count + after.count - 5)
    }

    /// Down during a stop, it loses nothing: the stop was auto-paused, and stays so until the run
    /// goes on. Three stops give three motion pauses still, and the active time is the truth.
    @Test func downDuringAStopCostsNothing() async throws {
        let store = try WorkoutStore.inMemory()
        let track = WorkoutSessionTests.runWithStops(3)
        let configuration = WorkoutSession.Configuration(activityType: .running, autoPause: .defaults(for: .running))
        // The second stop is fixes 161-200: down from 182 to 191.
        let interrupted = try await recordThenCrash(track[..<182], configuration: configuration, store: store)
        let clock = VirtualClock()
        let resumed = try await WorkoutSession.resume(
            interrupted, store: store, source: ReplayLocationSource(locations: Array(track[192...]), clock: clock), configuration: configuration,
            clock: clock)
        await clock.advance(by: .seconds(Double(track.count)))
        let workout = try await resumed.end()
        let kinds = try await store.events(of: workout.id).map(\.kind)
        #expect(kinds == [.motionPaused, .motionResumed, .motionPaused, .pause, .resume, .motionResumed, .motionPaused, .motionResumed])
        let active = try #require(workout.totals.movingTime)
        #expect(abs(active - 240) <= 1, "active time \(active) s, truth 240 s")
        #expect(abs(try #require(workout.totals.distance) - 720) <= 12)
    }

    /// A bike computer resumed after a crash replays the rest of a recorded ride from a GPX file,
    /// with its heart rates: the heart rates start where the replay's fixes start, so none from
    /// the time it was down is saved, and the live heart rate follows the fixes.
    @Test func aResumedReplaysHeartRatesStartWhereItsFixesStart() async throws {
        let store = try WorkoutStore.inMemory()
        let clock = VirtualClock()
        let device = ReplayLocationSource(locations: Self.track, clock: clock)
        let ride = WorkoutSession(
            store: store, source: device, heartRate: FakeHeartRateSensor(seed: 9).live(following: device),
            configuration: .init(activityType: .running), clock: clock)
        try ride.start()
        await clock.advance(by: .seconds(Double(Self.track.count)))
        let original = try await ride.end()
        let file = NSTemporaryDirectory() + "ride-\(UUID()).gpx"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await store.export(original.id, format: .gpx, toFileAt: file)

        let interrupted = try await recordThenCrash(Self.track[..<100], configuration: .init(activityType: .running), store: store)
        let replayClock = VirtualClock()
        let rest = try ReplayRecording(contentsOf: URL(fileURLWithPath: file)).device(startOffset: .seconds(150), clock: replayClock)
        let resumed = try await WorkoutSession.resume(
            interrupted, store: store, source: rest, heartRate: try FakeHeartRateSensor.replay(heartRatesOf: file, following: rest),
            clock: replayClock)
        let figures = resumed.statistics(buffering: .all)
        await replayClock.advance(by: .seconds(Double(Self.track.count)))
        let workout = try await resumed.end()
        let saved = try await store.samples(of: workout.id, type: .heartRate)
        let gap = saved.filter { $0.start > Self.track[99].time! && $0.start < Self.track[150].time! }
        #expect(gap.isEmpty, "\(gap.count) heart rates from the time it was down")
        #expect(saved.count == 100 + (Self.track.count - 150), "\(saved.count) heart rates: one per fix recorded")
        // The live heart rate followed the fixes: each update's rate is the one at its fix.
        var iterator = figures.makeAsyncIterator()
        var rates: [Double] = []
        while let next = await iterator.next() {
            if let rate = next.heartRate, rates.last != rate { rates.append(rate) }
        }
        #expect(Set(rates).isSubset(of: Set(saved.map(\.value))))
    }

    /// A resumed session records as it was configured (the store keeps its configuration): given
    /// no configuration, its auto-laps and auto-pause go on.
    @Test func aResumedSessionKeepsItsConfiguration() async throws {
        let store = try WorkoutStore.inMemory()
        let track = WorkoutSessionTests.runWithStops(3)
        let configuration = WorkoutSession.Configuration(activityType: .cycling, autoPause: .defaults(for: .running), autoLapDistance: 100)
        let interrupted = try await recordThenCrash(track[..<120], configuration: configuration, store: store)
        let clock = VirtualClock()
        let resumed = try await WorkoutSession.resume(
            interrupted, store: store, source: ReplayLocationSource(locations: Array(track[130...]), clock: clock), clock: clock)
        #expect(resumed.configuration == configuration)
        await clock.advance(by: .seconds(Double(track.count)))
        let workout = try await resumed.end()
        #expect(workout.activityType == .cycling)
        let events = try await store.events(of: workout.id)
        let after = events.filter { $0.time > track[129].time! }
        #expect(after.contains { $0.kind == .lap && $0.trigger == .distance }, "auto-laps go on")
        #expect(after.contains { $0.kind == .motionPaused }, "auto-pause goes on")
    }

    /// A sample of a type this version does not know (written by a newer one) is said by the end
    /// and the resume of the interrupted session, as ``WorkoutStore/samples(of:type:)`` says it
    /// of a saved workout: it used to be left out of what the session was rebuilt from.
    @Test func aSampleOfAnUnknownTypeIsSaidNotLeftOut() async throws {
        let store = try WorkoutStore.inMemory()
        let interrupted = try await recordThenCrash(Self.track[..<20], configuration: .init(activityType: .running), store: store)
        try await store.withDatabase { db in
            try db.execute(sql: "UPDATE quantity_sample SET type = 'glucose' WHERE start_time = (SELECT min(start_time) FROM quantity_sample)")
        }
        let said = WorkoutStoreError.unreadableRecord(
            path: nil, reason: "a sample of workout \(interrupted.id) has the unknown type \"glucose\"")
        await #expect(throws: said) { _ = try await store.end(interrupted) }
        await #expect(throws: WorkoutSessionError.store(said)) {
            _ = try await WorkoutSession.resume(interrupted, store: store, source: FakeLocationSource())
        }
        #expect(try await store.interruptedSessions().map(\.id) == [interrupted.id], "nothing changed")
    }

    /// A pause the user makes while a resumed session waits for its first new fix (a receiver's
    /// cold start after a crash) holds: the first fix does not end it, the user's resume does.
    @Test func aPauseBeforeTheFirstNewFixHolds() async throws {
        let store = try WorkoutStore.inMemory()
        let configuration = WorkoutSession.Configuration(activityType: .running)
        let interrupted = try await recordThenCrash(Self.track[..<60], configuration: configuration, store: store)
        let source = FakeLocationSource()
        let resumed = try await WorkoutSession.resume(interrupted, store: store, source: source)
        try resumed.pause()
        for fix in Self.track[70..<90] { source.send(.location(fix)) }
        try resumed.resume()
        for fix in Self.track[90..<120] { source.send(.location(fix)) }
        let workout = try await resumed.end()
        let events = try await store.events(of: workout.id).filter { $0.kind == .pause || $0.kind == .resume }
        #expect(events.last == WorkoutEvent(.resume, at: Self.track[89].time!), "\(events)")
        let alone = try await recordAlone(Self.track[..<60], configuration: configuration)
        #expect(workout.totals.movingTime == alone.totals.movingTime! + 30, "the 20 s paused do not count: \(workout.totals)")
    }

    /// Resumed with another configuration (no auto-laps), the session works its events out again
    /// by it: the user's marker stays, the auto-laps go, and what it adds comes after.
    @Test func aResumeWithAnotherConfigurationKeepsTheUsersEvents() async throws {
        let store = try WorkoutStore.inMemory()
        let clock = VirtualClock()
        let device = ReplayLocationSource(locations: Array(Self.track[..<80]), clock: clock)
        let first = WorkoutSession(
            store: store, source: device, configuration: .init(activityType: .running, autoLapDistance: 50), clock: clock)
        try first.start()
        await clock.advance(by: .seconds(30))
        try first.mark("water")
        await clock.advance(by: .seconds(60))
        try #require(first.events.filter { $0.trigger == .distance }.count >= 2)
        await first.settled()
        for _ in 0..<3 where !first.isAllWritten {
            await clock.advance(by: .seconds(1))
            await first.settled()
        }
        let interrupted = try await SessionPropertyTests().crash(first, in: store)
        let source = FakeLocationSource()
        let resumed = try await WorkoutSession.resume(
            interrupted, store: store, source: source, configuration: .init(activityType: .running))
        for fix in Self.track[100..<120] { source.send(.location(fix)) }
        let workout = try await resumed.end()
        let events = try await store.events(of: workout.id)
        #expect(events.map(\.kind) == [.marker, .pause, .resume], "\(events)")
        #expect(events.first?.name == "water")
    }
}
