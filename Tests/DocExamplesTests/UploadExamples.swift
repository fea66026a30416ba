import Foundation
import Workout
import WorkoutUpload

/// The WorkoutUpload module's examples (FitTrackeeDestination, StravaDestination,
/// IntervalsDestination, WorkoutUploader and the catalog), type-checked: the servers cannot be
/// reached from a unit test, so this is compiled, not run (Tests/WorkoutUploadTests runs the same
/// calls against a real FitTrackee and against stand-ins of Strava and intervals.icu).
enum UploadExamples {
    static func uploadToFitTrackee(store: WorkoutStore, workout: WorkoutRecord, path: String) async throws {
        let fittrackee = try FitTrackeeDestination(url: "https://fittrackee.example", credentialsFile: path)
        try await store.enqueueUpload(of: workout.id, to: fittrackee.name)
        let report = try await WorkoutUploader(store: store, destination: fittrackee).run()
        print(report.done.count, report.waiting.count)
    }

    static func uploadToStrava(store: WorkoutStore, workout: WorkoutRecord, path: String) async throws {
        let strava = try StravaDestination(credentialsFile: path)
        try await store.enqueueUpload(of: workout.id, to: strava.name)
        _ = try await WorkoutUploader(store: store, destination: strava).run()
    }

    static func uploadToIntervals(store: WorkoutStore, workout: WorkoutRecord, path: String) async throws {
        let intervals = try IntervalsDestination(credentialsFile: path)
        try await store.enqueueUpload(of: workout.id, to: intervals.name)
        _ = try await WorkoutUploader(store: store, destination: intervals).run()
    }

    /// OAuthLogin: the first tokens, from the browser's return to the redirect URI.
    static func logIn(id: String, secret: String, answer: String) async throws {
        let login = OAuthLogin(service: .fitTrackee(url: "https://fittrackee.example.org"),
                               clientID: id, clientSecret: secret, redirectURI: "http://127.0.0.1:8765/callback")
        print("Open \(login.authorizationURL)")
        // ... the browser comes back to the redirect URI, here `answer` (its path and query)
        let credentials = try await login.credentials(fromRedirect: answer)
        try credentials.write(to: "fittrackee.json")
    }

    /// WorkoutMetadata.uploadDestinations: a session that asks for its upload.
    static func sessionThatUploads() -> WorkoutSession.Configuration {
        var configuration = WorkoutSession.Configuration(activityType: .cycling)
        configuration.metadata.uploadDestinations = ["fittrackee://fittrackee.example"]
        return configuration
    }
}
