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
@Suite(.timeLimit(.minutes(1))) struct IndoorSessionTests {
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
}
