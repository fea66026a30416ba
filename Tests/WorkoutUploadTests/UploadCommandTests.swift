import Foundation
import Simulators
import Testing
import TestSupport
import Workout
@testable import WorkoutUpload

/// Inside FitTrackeeTests, whose serial order keeps the suites that share its server apart: two
/// workouts starting at the same second (our GPX fixture's morning run and Garmin's FIT run) would
/// each be counted as the other's at the server.
extension Stage.Alone.FitTrackeeTests {
    /// `workout upload` stopped by a signal, and `workout upload --watch`, as the help promises.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct UploadCommandTests {
        struct Folder {
            let path = NSTemporaryDirectory() + "upload-command-" + UUID().uuidString
            var store: String { path + "/workouts.sqlite" }
            var credentials: String { path + "/credentials.json" }
        }

        static let workout = Repository.builtExecutable("workout").path

        /// A store holding the project's two runs (GPX), imported by the command.
        static func imported(in folder: Folder) async throws -> [String] {
            try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
            let imported = try await Command.run(workout, ["import", "--store", folder.store, "--json", Repository.fixture("gpx/two-runs.gpx").path])
            return imported.outputText.split(separator: "\n").compactMap { line in
                ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["id"] as? String  // a line that is not JSON: none
            }
        }

        /// SIGINT while the server holds the request unanswered: the exchange is cancelled, the entry
        /// kept pending (nothing had gone out) with "interrupted", and the command exits 75, as its
        /// help says for an interrupted run.
        @Test func anInterruptedUploadKeepsItsEntryAndExits75() async throws {
            let folder = Folder()
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            let ids = try await Self.imported(in: folder)
            try #require(ids.count == 2)
            try OAuthCredentials(clientID: "c", clientSecret: "s", accessToken: "a", refreshToken: nil, expiresAt: nil).write(to: folder.credentials)
            let server = try await HTTPRecorder(hold: 1)
            let authority = String(server.url.dropFirst("http://".count))
            let upload = try ChildProcess(Self.workout, [
                "upload", ids[0], "--store", folder.store, "--to", "fittrackee+http://\(authority)", "--credentials", folder.credentials,
            ], blockedSignals: [])
            let held = await server.request(1)
            #expect(held?.path == "/api/config", "asked for the server's largest file first")
            upload.send(signal: SIGINT)
            let status = await upload.waitUntilExit()
            #expect(status == 75, "\(upload.lines(.error))")
            let entries = try await WorkoutStore(path: folder.store).uploads()
            #expect(entries.map(\.state) == [.pending] && entries.first?.lastError?.contains("interrupted") == true, "\(entries)")
            #expect(upload.lines(.error).contains { $0.hasPrefix("workout upload: 1 waiting for fittrackee://\(authority), kept in the queue") })
            await server.stop()
        }

        /// `--watch` sends what is queued, then what is queued later (another process's workout, say),
        /// each said once, and ends with 0 at SIGTERM, as a service is stopped.
        @Test func aWatchSendsWhatComesAndEndsCleanly() async throws {
            guard let server = Stage.Alone.FitTrackeeTests.server() else { return }
            let folder = Folder()
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            let ids = try await Self.imported(in: folder)
            try #require(ids.count == 2)
            try await server.writeCredentials(to: folder.credentials, expiresAt: Date().addingTimeInterval(86_400))
            let store = try WorkoutStore(path: folder.store)
            let workouts = try await store.workouts()
            let fittrackee = try await Stage.Alone.FitTrackeeTests.destination(server)
            for workout in workouts { try await Stage.Alone.FitTrackeeTests.removeAtServer(workout, fittrackee, server) }
            let first = try #require(workouts.first { $0.id.uuidString == ids[0] })
            try await store.enqueueUpload(of: first.id, to: fittrackee.name)

            let watch = try ChildProcess(Self.workout, [
                "upload", "--watch", "--interval", "1", "--store", folder.store, "--to", "fittrackee+http://\(server.authority)",
                "--credentials", folder.credentials,
            ], blockedSignals: [])
            let uploaded = await watch.waitForLine { $0.hasPrefix("Uploaded \(ids[0]): ") }
            #expect(uploaded != nil, "\(watch.lines(.error))")
            // Queued while it watches: sent at its next look.
            try await store.enqueueUpload(of: try #require(UUID(uuidString: ids[1])), to: fittrackee.name)
            let later = await watch.waitForLine { $0.hasPrefix("Uploaded \(ids[1]): ") }
            #expect(later != nil, "\(watch.lines(.error))")
            watch.send(signal: SIGTERM)
            let status = await watch.waitUntilExit()
            #expect(status == 0, "\(watch.lines(.error))")
            #expect(watch.lines().filter { $0.hasPrefix("Uploaded") }.count == 2, "each said once: \(watch.lines())")
            for workout in workouts {
                #expect(try await Stage.Alone.FitTrackeeTests.atServer(workout, server).count == 1)
                try await Stage.Alone.FitTrackeeTests.removeAtServer(workout, fittrackee, server)
            }
        }
    }
}
