import Foundation
import Simulators
import Testing
import TestSupport
import Workout

extension Stage.Alone {
    /// `workout import` interrupted while it reads a long track. Alone in `scripts/test`: the
    /// signal must land while the import is still at work, and nothing of the child can hold it
    /// there; on a loaded machine the signal came after the import had finished.
    @Suite(.tags(.childProcess), .timeLimit(.minutes(1)))
    struct InterruptedImportTests {
        let commands: WorkoutCommandTests

        init() throws {
            commands = try WorkoutCommandTests()
        }

        /// SIGINT or SIGTERM during an import used to kill it by the signal (exit 130/143, no
        /// message). It exits 75 with one line; the finished track is kept, the one being read is not.
        @Test(arguments: [SIGINT, SIGTERM])
        func anInterruptedImportKeepsFinishedTracksAndExits75(signal: Int32) async throws {
            let file = try commands.shortThenLongTracks(points: 300_000)
            let process = try ChildProcess(Repository.builtExecutable("workout").path, ["import", "--store", commands.store, file])
            // Once the short track is in the store, the long one is being read.
            let reader = try WorkoutStore(path: commands.store)
            try await waitUntil { try await reader.workoutCount() > 0 || process.exitStatus != nil }
            process.send(signal: signal)
            #expect(await process.waitUntilExit() == 75)
            let errors = process.lines(.error)
            #expect(errors.count == 1, "\(errors)")
            #expect(errors.first?.hasPrefix("workout import: interrupted: ") == true)
            let workouts = try await WorkoutStore(path: commands.store).workouts()
            #expect(workouts.map { $0.metadata.values["name"] } == ["short"])
            #expect(try await WorkoutStore(path: commands.store).storageCounts().stagedPoints == 0, "nothing of the long track stays")
        }
    }
}
