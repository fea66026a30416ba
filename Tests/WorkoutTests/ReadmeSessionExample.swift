import Foundation
import LocationFacade
import Workout

/// The README's "Recording a workout" example, verbatim, so it keeps compiling. It is not run
/// here (it records from a gpsd on port 2947); WorkoutSessionTests run the same calls on replays.
enum ReadmeSessionExample {
    static func recordARun(in store: WorkoutStore) async throws {
        let session = WorkoutSession(
            store: store, source: GPSDClient(host: "127.0.0.1", port: 2947),
            configuration: .init(activityType: .running, autoPause: .defaults(for: .running), autoLapDistance: 1_000))
        try session.start()                                    // written to the store as it goes
        let screen = Task {
            for await figures in session.statistics() {        // after each fix, until the end
                print(figures.distance, figures.activeTime, figures.lap, figures.isMotionPaused)
            }
        }
        try session.pause()                                    // resume(), lap(), mark("water")...
        try session.resume()
        let workout = try await session.end()                  // one transaction: totals, route, events
        print(try await store.laps(of: workout.id), try await store.splits(of: workout.id, every: 1_000))
        await screen.value

        for interrupted in try await store.interruptedSessions() {   // after a crash or a power cut
            let again = try await WorkoutSession.resume(              // or store.end / store.discard
                interrupted, store: store, source: GPSDClient(host: "127.0.0.1", port: 2947),
                configuration: .init(activityType: .running))         // the time it was down is a pause
            _ = try await again.end()
        }
    }
}
