// workout-crash-writer STORE RUNS POINTS [STOP]
//
// Saves RUNS deterministic runs of POINTS route points and as many heart-rate samples into the
// workout store at STORE, one after another, for the kill -9 tests (WorkoutTests/CrashTests).
// Even runs go through saveWorkout with the whole route in memory (one transaction), odd runs
// through saveWorkout with the route streamed in batches of 1,000 (staged, then one final
// transaction). It prints, flushed at once:
//   begin K        before run K
//   staged K N     after the Nth staged batch of an odd run
//   saved K        once run K is committed
//   already K      when run K was saved before (a re-run)
// With STOP, one of those lines, or "inside K" (halfway through the points of run K's single
// transaction), it prints "stopped at STOP" when it gets there and waits, holding whatever it
// holds (an open transaction), until it is killed: so the test's SIGKILL lands at that moment
// however loaded the machine is.
// Run K is Simulators' SyntheticRun(index: K, points: POINTS): the test rebuilds it to check the store.
import Foundation
import GPSCore
import LocationFacade
import Simulators
import WorkoutSimulators
@testable import Workout

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let runs = Int(arguments[2]), let points = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: workout-crash-writer STORE RUNS POINTS [STOP]\n".utf8))
    exit(64)
}
let stop = arguments.count == 5 ? arguments[4] : nil

/// Says where it stopped, and waits to be killed.
func stopHere(_ moment: String) -> Never {
    say("stopped at \(moment)")
    while true { pause() }
}

/// Says `line`, and stops there if it is the moment to stop at.
func reach(_ line: String) {
    say(line)
    if line == stop { stopHere(line) }
}

/// Stops halfway through the route rows of the run being saved, when told to stop "inside" it.
final class StopInside: StoreFaultHook {
    let run = Locked<Int>(-1)
    let points: Int

    init(points: Int) {
        self.points = points
    }

    func reach(_ point: FaultPoint, path: String?) throws(WorkoutStoreError) {
        let index = run.withLock { $0 }
        guard point == .row(.insertRouteData, number: points / 2), stop == "inside \(index)" else { return }
        stopHere("inside \(index)")
    }
}

do {
    let hook = StopInside(points: points)
    let store = try WorkoutStore(path: arguments[1], faultHook: hook, logger: WorkoutStore.defaultLogger)
    for index in 0..<runs {
        let run = SyntheticRun(index: index, points: points)
        hook.run.withLock { $0 = index }
        reach("begin \(index)")
        let outcome: SaveOutcome
        if index % 2 == 0 {
            outcome = try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
        } else {
            outcome = try await store.saveWorkout(run.workout, samples: run.samples) { route in
                var batches = 0
                for start in stride(from: 0, to: run.route.count, by: 1_000) {
                    try await route.insertRouteData(Array(run.route[start..<min(start + 1_000, run.route.count)]))
                    batches += 1
                    reach("staged \(index) \(batches)")
                }
            }
        }
        switch outcome {
        case .saved: reach("saved \(index)")
        case .alreadySaved: reach("already \(index)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("workout-crash-writer: \(error)\n".utf8))
    exit(70)
}
