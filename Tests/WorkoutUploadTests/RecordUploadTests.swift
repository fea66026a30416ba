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
    /// `workout record --upload-to` against the real FitTrackee: the upload is queued in the
    /// transaction that saves the workout, so whatever is killed when, the workout reaches the server
    /// once. Killed while recording (SIGKILL, once the fake gpsd's fixes are written), the session
    /// is saved by `workout recover --end` with its upload queued, and `workout upload --pending`
    /// sends it, once; a recording that ends sends it at once.
    @Suite(.serialized) struct RecordUploadTests {
        static let walk = Fixtures.greenwichWalk().fixes

        struct Folder {
            let path = NSTemporaryDirectory() + "record-upload-" + UUID().uuidString
            var store: String { path + "/workouts.sqlite" }
            var credentials: String { path + "/fittrackee.json" }
        }

        /// The workouts at the server starting when `workout` does, deleted.
        static func clear(_ workout: WorkoutRecord, _ destination: FitTrackeeDestination, _ server: FitTrackeeServer) async throws {
            try await Stage.Alone.FitTrackeeTests.removeAtServer(workout, destination, server)
        }

        @Test func killedWhileRecordingItIsRecoveredAndUploadedOnce() async throws {
            guard let server = Stage.Alone.FitTrackeeTests.server() else { return }
            let folder = Folder()
            try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            try await server.writeCredentials(to: folder.credentials, expiresAt: Date().addingTimeInterval(86_400))
            let sent = 40
            let gpsd = FakeGPSDServer(script: .fixes(Array(Self.walk.prefix(sent))), pace: .recorded(speed: 10))
            let port = try gpsd.start()
            defer { gpsd.shutdown() }
            let workout = Repository.builtExecutable("workout").path
            let destination = "fittrackee+http://\(server.authority)"
            let recorder = try ChildProcess(workout, [
                "record", "127.0.0.1:\(port)", "--store", folder.store, "--activity", "walking",
                "--upload-to", destination, "--credentials", folder.credentials,
            ])
            var watcher: WorkoutStore?
            await waitUntil {
                if watcher == nil, FileManager.default.fileExists(atPath: folder.store) { watcher = try? WorkoutStore(path: folder.store) }  // not there yet: asked again
                let written = (try? await watcher?.storageCounts().stagedPoints) ?? 0  // a store being opened: asked again
                return written >= sent || recorder.exitStatus != nil
            }
            recorder.send(signal: SIGKILL)
            let status = await recorder.waitUntilExit()
            try #require(status == 128 + SIGKILL, "the recording ended before the kill: \(status) \(recorder.lines(.error))")

            let recovered = try await Command.run(workout, ["recover", "--end", "--store", folder.store, "--json"])
            #expect(recovered.status == 0, "\(recovered.error)")
            let store = try WorkoutStore(path: folder.store)
            let saved = try #require(try await store.workouts().first)
            let fittrackee = try await Stage.Alone.FitTrackeeTests.destination(server)
            try await Self.clear(saved, fittrackee, server)
            #expect(try await store.uploads().map(\.state) == [.pending], "queued as it was saved")

            let upload = try await Command.run(workout, ["upload", "--pending", "--store", folder.store, "--to", destination, "--credentials", folder.credentials])
            #expect(upload.status == 0, "\(upload.error)")
            let again = try await Command.run(workout, ["upload", "--pending", "--store", folder.store, "--to", destination, "--credentials", folder.credentials])
            #expect(again.status == 0 && again.outputText == "Nothing queued for fittrackee://\(server.authority).\n")
            let atServer = try await Stage.Alone.FitTrackeeTests.atServer(saved, server)
            #expect(atServer.count == 1, "once at the server: \(atServer)")
            #expect(try await store.uploads().first?.remoteID == atServer.first)
            try await Self.clear(saved, fittrackee, server)
        }

        @Test func aRecordingThatEndsIsUploadedAtOnce() async throws {
            guard let server = Stage.Alone.FitTrackeeTests.server() else { return }
            let folder = Folder()
            try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            try await server.writeCredentials(to: folder.credentials, expiresAt: Date().addingTimeInterval(86_400))
            let gpsx = folder.path + "/walk.gpx"
            try Fixtures.greenwichWalkGPX().write(toFile: gpsx, atomically: true, encoding: .utf8)
            let fittrackee = try await Stage.Alone.FitTrackeeTests.destination(server)
            // The walk's start, to clear what an earlier run left at the server.
            let first = try #require(Self.walk.first { $0.time != nil }?.time)
            try await Self.clear(WorkoutRecord(activityType: .walking, start: first, end: first), fittrackee, server)

            let recorded = try await Command.run(Repository.builtExecutable("workout").path, [
                "record", "--simulate", gpsx, "--speed", "100", "--store", folder.store, "--activity", "walking", "--json",
                "--upload-to", "fittrackee+http://\(server.authority)", "--credentials", folder.credentials,
            ])
            #expect(recorded.status == 0, "\(recorded.error)")
            let object = try #require(try JSONSerialization.jsonObject(with: recorded.output) as? [String: Any])
            let upload = try #require(object["upload"] as? [String: Any], "\(object)")
            #expect(upload["state"] as? String == "done" && upload["destination"] as? String == "fittrackee://\(server.authority)")
            let store = try WorkoutStore(path: folder.store)
            let saved = try #require(try await store.workouts().first)
            let atServer = try await Stage.Alone.FitTrackeeTests.atServer(saved, server)
            #expect(atServer.count == 1 && upload["remote_url"] as? String == "\(server.url)/workouts/\(atServer.first ?? "")")
            #expect(recorded.error.contains { $0.hasPrefix("workout record: uploaded to fittrackee://\(server.authority): ") }, "\(recorded.error)")
            try await Self.clear(saved, fittrackee, server)
        }
    }
}
