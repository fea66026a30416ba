// The README's test example for sessions, verbatim (ReadmeTests checks it): a session over a
// fake run on a virtual clock, with a fake heart-rate sensor, into a real store in memory.
import Foundation
import Simulators
import Testing
import Workout
import WorkoutSimulators

@Test func aRecordedRunHasItsLapsAndHeartRate() async throws {
    let store = try WorkoutStore.inMemory()          // real SQLite, in memory
    let clock = VirtualClock()                       // time moves only when the test says so
    let run = ReplayLocationSource(locations: SyntheticTrack.generate(count: 1_200, seed: 7), clock: clock)
    let session = WorkoutSession(
        store: store, source: run, heartRate: FakeHeartRateSensor(seed: 7).live(following: run),
        configuration: .init(activityType: .running, autoLapDistance: 1_000), clock: clock)
    try session.start()
    await clock.advance(by: .seconds(1_200))         // twenty minutes of running, at once
    let workout = try await session.end()
    let laps = try await store.laps(of: workout.id)
    #expect(laps.count == 4 && laps.dropLast().allSatisfy { $0.distance >= 1_000 })
    #expect(laps.allSatisfy { $0.heartRateAverage != nil })
}
