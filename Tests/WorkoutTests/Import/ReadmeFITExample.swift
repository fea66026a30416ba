import Foundation
import Testing
import TestSupport
import Workout

/// The README's FIT and TCX example, as written there, run on our fixtures.
@Test func theReadmeFITExampleRuns() async throws {
    let folder = try TemporaryFolder()
    let store = try WorkoutStore.inMemory()
    let watchFile = Repository.fixture("fit/garmin-sdk-run.fit").path
    let trainingCenterFile = Repository.fixture("tcx/gpsbabel-two-runs.tcx").path
    let exportedFIT = folder.file("ride.fit")

    // From the README:
    let fit = try await FITImporter(store: store).importFile(at: watchFile)          // one workout per activity
    for activity in fit.workouts {
        print(activity.workoutID, activity.points, activity.laps, activity.pauses, activity.deviceTotals?.distance ?? 0)
    }
    for problem in fit.read.issues { print(problem) }                                 // a bad CRC, a file cut short: imported anyway
    let tcx = try await TCXImporter(store: store).importFile(at: trainingCenterFile)
    try await store.export(fit.workouts[0].workoutID, format: .fit, toFileAt: exportedFIT)   // or .tcx

    #expect(fit.workouts.count == 1 && tcx.workouts.count == 2)
    #expect(FileManager.default.fileExists(atPath: exportedFIT))
}
