import Foundation
import Workout
import WorkoutUpload

/// The WorkoutUpload module's examples (FitTrackeeDestination, WorkoutUploader and the catalog),
/// type-checked: a FitTrackee server cannot be reached from a unit test, so this is compiled,
/// not run (Tests/WorkoutUploadTests runs the same calls against a real one).
enum UploadExamples {
    static func uploadToFitTrackee(store: WorkoutStore, workout: WorkoutRecord, path: String) async throws {
        let fittrackee = try FitTrackeeDestination(url: "https://fittrackee.example", credentialsFile: path)
        try await store.enqueueUpload(of: workout.id, to: fittrackee.name)
        let report = try await WorkoutUploader(store: store, destination: fittrackee).run()
        print(report.done.count, report.waiting.count)
    }
}
