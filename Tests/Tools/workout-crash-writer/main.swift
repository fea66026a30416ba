// workout-crash-writer STORE RUNS POINTS
//
// Saves RUNS deterministic runs of POINTS route points and as many heart-rate samples into the
// workout store at STORE, one after another, for the kill -9 tests (WorkoutTests/CrashTests).
// Even runs go through saveWorkout with the whole route in memory (one transaction), odd runs
// through saveWorkout with the route streamed in batches of 1,000 (staged, then one final
// transaction). It prints, flushed at once, so the test can kill it at a chosen moment:
//   begin K        before run K
//   staged K N     after the Nth staged batch of an odd run
//   saved K        once run K is committed
//   already K      when run K was saved before (a re-run)
// Run K is Simulators' SyntheticRun(index: K, points: POINTS): the test rebuilds it to check the store.
import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Workout

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let runs = Int(arguments[2]), let points = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: workout-crash-writer STORE RUNS POINTS\n".utf8))
    exit(64)
}

do {
    let store = try WorkoutStore(path: arguments[1])
    for index in 0..<runs {
        let run = SyntheticRun(index: index, points: points)
        say("begin \(index)")
        let outcome: SaveOutcome
        if index % 2 == 0 {
            outcome = try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
        } else {
            outcome = try await store.saveWorkout(run.workout, samples: run.samples) { route in
                var batches = 0
                for start in stride(from: 0, to: run.route.count, by: 1_000) {
                    try await route.insertRouteData(Array(run.route[start..<min(start + 1_000, run.route.count)]))
                    batches += 1
                    say("staged \(index) \(batches)")
                }
            }
        }
        switch outcome {
        case .saved: say("saved \(index)")
        case .alreadySaved: say("already \(index)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("workout-crash-writer: \(error)\n".utf8))
    exit(70)
}
