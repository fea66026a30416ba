import Foundation
import LocationFacade
import Workout

/// The README's "Recording a workout" example, verbatim, so it keeps compiling. It is not run
/// here (it records from a gpsd on port 2947); WorkoutSessionTests run the same calls on replays.
enum ReadmeSessionExample {
    static func recordARun(in store: WorkoutStore, strap: any SampleSource) async throws {
        let session = WorkoutSession(
            store: store, source: GPSDClient(host: "127.0.0.1", port: 2947), samples: [strap],
            configuration: .init(activityType: .running, autoPause: .defaults(for: .running), autoLapDistance: 1_000))
        try session.start()                                    // written to the store as it goes
        let screen = Task {
            for await figures in session.statistics() {        // the newest figures; buffering: .all for each one
                print(figures.distance, figures.movingTime, figures.currentSpeed ?? 0, figures.lap, figures.heartRate ?? 0)
                if !figures.storage.isOK { print("the store fails, recording goes on: \(figures.storage)") }
            }
        }
        try session.pause()                                    // resume(), lap(), mark("water")...
        try session.resume()
        let workout = try await session.end()                  // one transaction; waits up to 60 s for a busy store
        print(try await store.laps(of: workout.id), try await store.splits(of: workout.id, every: 1_000))
        await screen.value

        for interrupted in try await store.interruptedSessions() {   // after a crash or a power cut
            let again = try await WorkoutSession.resume(              // started, configured as it was
                interrupted, store: store, source: GPSDClient(host: "127.0.0.1", port: 2947))
            _ = try await again.end()                                 // or store.end / store.discard
        }
    }
}
