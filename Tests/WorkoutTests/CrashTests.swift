import Foundation
import GRDB
import LocationFacade
import Simulators
@testable import SimulatorsCore
import WorkoutSimulators
import Testing
import TestSupport
@testable import Workout

/// A child process (`workout-crash-writer`) saves large runs into a store file and stops at a
/// chosen moment, holding what it holds (an open transaction); the test kills it there with
/// SIGKILL, then opens the store. The child waits for the signal, so it lands at that moment
/// however loaded the machine is (a signal sent as the child said where it was came, on a busy
/// machine, after the child had finished).
@Suite("kill -9 at any moment leaves a readable store, each workout complete or absent", .tags(.childProcess), .timeLimit(.minutes(5)),
       .disabled(if: ThreadSanitizer.isRunning, "its threads are the child's, which TSan does not instrument"))
struct CrashTests {
    /// Five runs, so that no moment below is in the last one: the writer is always still at work.
    static let runs = 5
    static let points = 20_000

    /// The moments to kill at. Even runs are one big transaction; odd runs stage 20 batches of
    /// 1,000 points, then commit.
    static let moments = [
        "inside 0",      // halfway through the first run's single transaction
        "staged 1 7",    // a streamed run, 7 batches staged
        "saved 1",       // between runs
        "inside 2",      // inside another big transaction, with two runs already saved
        "staged 3 20",   // every batch staged; the final transaction about to run
    ]

    @Test(arguments: moments)
    func killedAt(moment: String) async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let executable = Repository.builtExecutable("workout-crash-writer").path
        let arguments = [path, "\(Self.runs)", "\(Self.points)"]

        let writer = try ChildProcess(executable, arguments + [moment])
        let stopped = "stopped at \(moment)"
        #expect(await writer.waitForLine { $0 == stopped } == stopped, "the writer never got to \(moment): \(writer.lines(.error))")
        writer.send(signal: SIGKILL)
        let status = await writer.waitUntilExit()
        #expect(status == 128 + SIGKILL, "the writer ended with \(status), not by the signal: \(writer.lines(.error))")
        let reportedSaved = Set(writer.lines().compactMap { $0.hasPrefix("saved ") ? Int($0.dropFirst(6)) : nil })

        // Before the store opens, the killed writer's staging is still in the file.
        let stagedBeforeOpen = try await DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM route WHERE workout IS NULL") ?? 0
        }

        let store = try WorkoutStore(path: path)
        #expect(try await store.checkIntegrity() == [])
        let counts = try await store.storageCounts()
        #expect(counts.stagedRoutes == 0 && counts.stagedPoints == 0)
        var present = 0
        for index in 0..<Self.runs {
            let run = SyntheticRun(index: index, points: Self.points)
            if try await store.workout(id: run.workout.id) != nil {
                try await expectComplete(run, in: store)
                present += 1
            } else {
                #expect(!reportedSaved.contains(index), "run \(index) was reported saved, then lost")
            }
        }
        #expect(present >= reportedSaved.count)
        if moment.hasPrefix("staged") {
            // Killed while staging: the staging was in the file (unless the run's final commit
            // beat the signal), and opening the store deleted it.
            let index = Int(moment.split(separator: " ")[1])!
            let committed = try await store.workout(id: SyntheticRun.id(index)) != nil
            #expect(stagedBeforeOpen == 1 || committed)
        }
        #expect(counts == .init(workouts: present, samples: present * Self.points, routes: present, points: present * Self.points))

        // Running the same saves again completes the job, and saves nothing twice.
        let rerun = try ChildProcess(executable, arguments)
        #expect(await rerun.waitUntilExit() == 0, "\(rerun.lines(.error))")
        #expect(rerun.lines().filter { $0.hasPrefix("already ") }.count == present)
        #expect(try await store.storageCounts() == .init(
            workouts: Self.runs, samples: Self.runs * Self.points, routes: Self.runs, points: Self.runs * Self.points))
        #expect(try await store.checkIntegrity() == [])
    }
}
