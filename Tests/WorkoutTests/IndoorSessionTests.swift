import Foundation
import GRDB
import LocationCore
import Simulators
import Testing
import TestSupport
import WorkoutSimulators
@testable import Workout

/// Sessions without a fix: a trainer ride, a treadmill run. Their time line begins at `start()`
/// on the session's clock, their sensors' samples make the workout (distance from the sensor,
/// auto-pause from its speed, cadence and power), and they save, recover and resume as outdoor
/// sessions do.
// Twenty minutes of a trainer and a strap a second apart: under ThreadSanitizer, beside the rest
// of its run, the first test took 117 s of a one-minute limit (CI, 2026-12-04).
@Suite(.timeLimit(.minutes(ThreadSanitizer.isRunning ? 4 : 1))) struct IndoorSessionTests {
    static let start = Date(timeIntervalSince1970: 1_717_000_000)

    /// A trainer's samples, a second apart from `start` + 1 s for `seconds`: speed, the distance
    /// of each second, power and cadence; standing still (speed, power and cadence 0, no distance)
    /// over `stopped` (seconds since the start).
    static func trainerRide(seconds: Int, speed: Double = 8, stopped: ClosedRange<Int>? = nil, from start: Date = start) -> [QuantitySample] {
        var samples: [QuantitySample] = []
        for second in 1...seconds {
            let at = start.addingTimeInterval(Double(second))
            let still = stopped?.contains(second) ?? false
            samples.append(QuantitySample(type: .speed, value: still ? 0 : speed, at: at))
            samples.append(QuantitySample(type: .power, value: still ? 0 : 200, at: at))
            samples.append(QuantitySample(type: .cadence, value: still ? 0 : 90, at: at))
            if !still {
                samples.append(QuantitySample(type: .distance, value: speed, start: at.addingTimeInterval(-1), end: at))
            }
        }
        return samples
    }

    static func strap(seconds: Int, from start: Date = start) -> [QuantitySample] {
        (1...seconds).map { QuantitySample(type: .heartRate, value: 130 + Double($0 % 20), at: start.addingTimeInterval(Double($0) + 0.4)) }
    }

    @Test func aTrainerRideRecordsWithoutAFixAndStopsWhenThePedalsDo() async throws {
        let store = try WorkoutStore.inMemory()
        let clock = VirtualClock()
        let time = FixTime(startingAt: Self.start, clock: clock)
        let trainer = TimedSampleSource(samples: Self.trainerRide(seconds: 1_200, stopped: 601...660), startingAt: Self.start, clock: clock)
        let strap = TimedSampleSource(samples: Self.strap(seconds: 1_200), startingAt: Self.start, clock: clock)
        let session = WorkoutSession(
            store: store, samples: [trainer, strap],
            configuration: .init(activityType: .cycling, autoPause: .defaults(for: .cycling), autoLapTime: .seconds(300)),
            clock: clock, now: time.now)
        #expect(session.configuration.locationType == .indoor, "without a location source a session is indoors")
        try session.start()
        await clock.advance(by: .seconds(300))
        // The readings of a second are taken together, once the next second's show them all come: a distance is placed at the middle of its second.
        let live = session.currentStatistics
        #expect(live.distance == 8.0 * 300 && live.elapsedTime == 300 && live.distanceSource == .sensor)
        #expect(live.currentSpeed.map { abs($0 - 8) < 1e-9 } == true)
        await clock.advance(by: .seconds(900))
        let workout = try await session.end()

        #expect(workout.metadata.isIndoor == true)
        #expect(workout.start == Self.start && workout.end == Self.start.addingTimeInterval(1_200))
        #expect(workout.totals.distance == 8.0 * 1_140, "the trainer's distance, none while stopped")
        #expect(workout.duration == 1_200 && workout.movingTime == 1_140, "the stop from 600 s to 660 s")
        #expect(try await store.route(of: workout.id) == nil, "no route")
        let events = try await store.events(of: workout.id)
        #expect(events.filter { $0.kind == .motionPaused || $0.kind == .motionResumed }.map(\.time) == [
            Self.start.addingTimeInterval(600), Self.start.addingTimeInterval(660),
        ])
        let laps = try await store.laps(of: workout.id)
        #expect(laps.map(\.movingTime) == [300, 300, 300, 240], "a lap every 5 min of moving time: \(laps.map(\.movingTime))")
        #expect(laps.map(\.distance) == [2_400, 2_400, 2_400, 1_920])
        #expect(laps.allSatisfy { $0.samples[.heartRate] != nil && $0.samples[.power] != nil })
        let final = session.currentStatistics
        #expect(final.distance == workout.totals.distance && final.movingTime == workout.movingTime, "live is what was saved")
        #expect(try await store.samples(of: workout.id, type: .power).count == 1_200)
        #expect(SensorDistance(workout.metadata)?.source == .sensor)
    }

    @Test func lapsByDistanceIndoorsAreTheTrainersMetres() async throws {
        let store = try WorkoutStore.inMemory()
        let clock = VirtualClock()
        let time = FixTime(startingAt: Self.start, clock: clock)
        let trainer = TimedSampleSource(samples: Self.trainerRide(seconds: 1_000), startingAt: Self.start, clock: clock)
        let session = WorkoutSession(
            store: store, samples: [trainer], configuration: .init(activityType: .cycling, autoLapDistance: 2_000), clock: clock,
            now: time.now)
        try session.start()
        await clock.advance(by: .seconds(1_000))
        let workout = try await session.end()
        let laps = try await store.laps(of: workout.id)
        #expect(laps.map(\.distance) == [2_000, 2_000, 2_000, 2_000], "a lap every 250 s at 8 m/s: \(laps.map(\.distance))")
        #expect(laps.dropLast().allSatisfy { $0.trigger == .distance })
    }

    @Test func aPauseIndoorsIsDatedOnTheSessionsClock() async throws {
        let store = try WorkoutStore.inMemory()
        let clock = VirtualClock()
        let time = FixTime(startingAt: Self.start, clock: clock)
        let trainer = TimedSampleSource(samples: Self.trainerRide(seconds: 600), startingAt: Self.start, clock: clock)
        let session = WorkoutSession(
            store: store, samples: [trainer], configuration: .init(activityType: .cycling), clock: clock, now: time.now)
        try session.start()
        await clock.advance(by: .seconds(100.5))
        try session.pause()
        await clock.advance(by: .seconds(60))
        try session.resume()
        await clock.advance(by: .seconds(439.5))
        let workout = try await session.end()
        let events = try await store.events(of: workout.id)
        #expect(events.map(\.time) == [Self.start.addingTimeInterval(100.5), Self.start.addingTimeInterval(160.5)])
        #expect(workout.duration == 540 && workout.elapsedTime == 600)
        #expect(workout.totals.distance == 8.0 * 540, "none while paused")
    }

    @Test func aSessionWithNoSampleAtAllIsATimedWorkout() async throws {
        let store = try WorkoutStore.inMemory()
        let clock = VirtualClock()
        let time = FixTime(startingAt: Self.start, clock: clock)
        let session = WorkoutSession(store: store, samples: [], configuration: .init(activityType: .other), clock: clock, now: time.now)
        try session.start()
        await clock.advance(by: .seconds(90))
        try session.lap()
        await clock.advance(by: .seconds(30))
        let workout = try await session.end()
        #expect(workout.elapsedTime == 120 && workout.totals.distance == 0)
        #expect(try await store.laps(of: workout.id).map(\.elapsedTime) == [90, 30])
    }

    /// Records `seconds` of a trainer ride, waits for all of it to be written, then "crashes": its
    /// staged rows are left as an ended process leaves them (as `SessionResumeTests` does).
    func recordThenCrash(seconds: Int, store: WorkoutStore, configuration: WorkoutSession.Configuration) async throws -> InterruptedSession {
        let clock = VirtualClock()
        let time = FixTime(startingAt: Self.start, clock: clock)
        let trainer = TimedSampleSource(samples: Self.trainerRide(seconds: seconds), startingAt: Self.start, clock: clock)
        let session = WorkoutSession(store: store, samples: [trainer], configuration: configuration, clock: clock, now: time.now)
        try session.start()
        await clock.advance(by: .seconds(Double(seconds)))
        let expected = 4 * seconds - 1  // each second's speed, power, cadence and distance; the last second's distance waits
        await waitUntil { (try? await store.storageCounts())?.stagedSamples ?? 0 >= expected }
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

    @Test func aCrashedIndoorSessionIsSavedWithWhatItWrote() async throws {
        let store = try WorkoutStore.inMemory()
        let configuration = WorkoutSession.Configuration(activityType: .cycling, locationType: .indoor, autoLapTime: .seconds(120))
        let interrupted = try await recordThenCrash(seconds: 600, store: store, configuration: configuration)
        #expect(interrupted.points == 0 && interrupted.start == Self.start)
        let workout = try #require(try await store.end(interrupted))
        #expect(workout.metadata.isIndoor == true)
        #expect(workout.start == Self.start)
        #expect(abs(workout.elapsedTime - 600) <= 1, "to the last thing it wrote: \(workout.elapsedTime)")
        let distance = try #require(workout.totals.distance)
        #expect(distance >= 8 * 599 && distance <= 8 * 600, "\(distance)")
        let laps = try await store.laps(of: workout.id)
        #expect(laps.count == 5 && laps.map(\.distance).reduce(0, +) == distance, "auto-laps made again: \(laps.map(\.distance))")
    }

    @Test func aCrashedIndoorSessionResumesAndTheTimeItWasDownIsAPause() async throws {
        let store = try WorkoutStore.inMemory()
        let configuration = WorkoutSession.Configuration(activityType: .cycling, locationType: .indoor)
        let interrupted = try await recordThenCrash(seconds: 300, store: store, configuration: configuration)
        // Back 60 s later, on a clock of its own.
        let again = Self.start.addingTimeInterval(360)
        let clock = VirtualClock()
        let time = FixTime(startingAt: again, clock: clock)
        let trainer = TimedSampleSource(samples: Self.trainerRide(seconds: 300, from: again), startingAt: again, clock: clock)
        let resumed = try await WorkoutSession.resume(
            interrupted, store: store, source: nil, samples: [trainer], clock: clock, now: time.now)
        #expect(resumed.state == .running && resumed.configuration.locationType == .indoor)
        await clock.advance(by: .seconds(300))
        let workout = try await resumed.end()
        #expect(workout.id == interrupted.id && workout.start == Self.start && workout.end == again.addingTimeInterval(300))
        let pauses = try await store.events(of: workout.id).filter { $0.kind == .pause || $0.kind == .resume }
        #expect(pauses.map(\.kind) == [.pause, .resume] && pauses.last?.time == again, "\(pauses)")
        #expect(abs(workout.duration - 600) <= 1, "the 60 s it was down left out: \(workout.duration)")
        #expect(abs(try #require(workout.totals.distance) - 8 * 600) <= 8, "both rides' distance")
    }
}
