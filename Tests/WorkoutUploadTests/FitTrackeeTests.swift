import Foundation
import HTTPClient
import Testing
import TestSupport
import Workout
import WorkoutSimulators
@testable import WorkoutUpload

extension Stage.Alone {
    /// Uploads held to a real FitTrackee 1.3.6 on PostgreSQL with PostGIS (`scripts/fittrackee-server`,
    /// started by scripts/test): what FitTrackee makes of our exports, tokens refreshed as its OAuth
    /// server hands them out, and a lost answer found at the server instead of a second workout.
    ///
    /// The suite is serial: its tests share one user's workouts at the server, and each first
    /// deletes there what an earlier run of it left (FitTrackee keeps every upload: it finds no
    /// duplicates of its own).
    ///
    /// In the stage of its own (`Stage.Alone`): the server is a process of its own whose every
    /// upload takes the cores for its map and figures, so beside the parallel stage the suite took
    /// 312 s for what takes 25 s alone, and slowed every test beside it.
    @Suite(.serialized) struct FitTrackeeTests {
        /// The server, or nil after saying why there is none (a failure on CI, a skip elsewhere).
        static func server() -> FitTrackeeServer? {
            guard let server = FitTrackeeServer.running else {
                if FitTrackeeServer.required { Issue.record("\(FitTrackeeServer.missing), and CI=true needs one") }
                print("skipped: \(FitTrackeeServer.missing)")
                return nil
            }
            return server
        }

        /// A real device's file: georust's Garmin run (988 points with heart rate) from the shared
        /// corpus, else the project's own walk, when the corpus is not there (a user's clone).
        static let deviceFile: String = {
            let corpus = Repository.root.appendingPathComponent("../shared/corpora/gpx/georust/garmin-activity.gpx").standardized.path
            return FileManager.default.fileExists(atPath: corpus) ? corpus : Repository.fixture("gpx/greenwich-walk.gpx").path
        }()

        /// Garmin's SDK run, the project's own FIT file: two segments with a 20 s pause between.
        static let pausedFile = Repository.fixture("fit/garmin-sdk-run.fit").path

        /// A store holding the device file's workout.
        static func storeWithDeviceWorkout() async throws -> (WorkoutStore, WorkoutRecord) {
            try await store(with: deviceFile)
        }

        /// A store holding the workout of `file` (GPX or FIT), imported.
        static func store(with file: String) async throws -> (WorkoutStore, WorkoutRecord) {
            let store = try WorkoutStore.inMemory()
            let workout = file.hasSuffix(".fit")
                ? try await FITImporter(store: store).importFile(at: file).workouts.first?.workout
                : try await GPXImporter(store: store).importFile(at: file).workouts.first?.workout
            return (store, try #require(workout))
        }

        /// A private folder for a test's credentials file.
        static func credentialsPath(_ name: String) throws -> String {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fittrackee-tests-\(getpid())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return folder.appendingPathComponent(name + ".json").path
        }

        /// A destination with the shared pair.
        static func destination(_ server: FitTrackeeServer, format: WorkoutExportFormat? = nil) async throws -> FitTrackeeDestination {
            let path = try credentialsPath("shared")
            try await server.writeCredentials(to: path)
            return try FitTrackeeDestination(url: server.url, credentialsFile: path, format: format)
        }

        /// A call to the API with the shared token, outside the library: what a test reads back.
        static func api(_ server: FitTrackeeServer, _ method: String, _ path: String) async throws -> (status: Int, json: [String: Any]) {
            let request = HTTPRequest(
                method: method, url: server.url + path, headers: ["Authorization: Bearer \(server["ACCESS_TOKEN"])"], responseLimit: 8 * 1024 * 1024)
            let response = try await CurlClient().send(request)
            let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]  // a 204 has no body
            return (response.status, json ?? [:])
        }

        /// Deletes at the server every workout that `destination` would take for `workout`, so a
        /// test starts from none whatever an earlier run left.
        static func removeAtServer(_ workout: WorkoutRecord, _ destination: FitTrackeeDestination, _ server: FitTrackeeServer) async throws {
            while let found = try await destination.find(workout) {
                let (status, _) = try await api(server, "DELETE", "/api/workouts/\(found.id)")
                try #require(status == 204, "DELETE /api/workouts/\(found.id) answered \(status)")
            }
        }

        /// The workouts at the server that start when `workout` does (to the second).
        static func atServer(_ workout: WorkoutRecord, _ server: FitTrackeeServer) async throws -> [String] {
            var ids: [String] = []
            // find() gives the first; the list is read here whole, to count them.
            let from = FitTrackeeDestination.dateText(workout.start.addingTimeInterval(-86_400), in: .gmt, withTime: false)
            let to = FitTrackeeDestination.dateText(workout.start.addingTimeInterval(86_400), in: .gmt, withTime: false)
            let (status, json) = try await api(server, "GET", "/api/workouts?from=\(from)&to=\(to)&per_page=100")
            try #require(status == 200)
            for candidate in (json["data"] as? [String: Any])?["workouts"] as? [[String: Any]] ?? [] {
                if let text = candidate["workout_date"] as? String, let date = FitTrackeeDestination.httpDate(text),
                   abs(date.timeIntervalSince(workout.start)) < 2, let id = candidate["id"] as? String {
                    ids.append(id)
                }
            }
            return ids
        }

        /// `1:31:38` → 5498 s.
        static func seconds(_ text: Any?) -> Double? {
            guard let text = text as? String else { return nil }
            var total = 0.0
            for part in text.split(separator: ":") {
                guard let value = Double(part) else { return nil }
                total = total * 60 + value
            }
            return total
        }

        /// Each export format of a device's run without pauses and of one with a pause, uploaded:
        /// FitTrackee's own distance, elapsed and moving time (worked out by gpxpy and its FIT and TCX
        /// readers from the file) within 1 % of ours. FitTrackee's `duration` is the elapsed time,
        /// its `pauses` the rest (workout_gpx_service.py: moving plus pauses): our `duration` leaves
        /// the pauses out, so it is held to their `moving`, as our moving time is.
        @Test(arguments: [WorkoutExportFormat.gpx, .fit, .tcx], [false, true])
        func fitTrackeesFiguresOfOurExportAreOurs(format: WorkoutExportFormat, paused: Bool) async throws {
            guard let server = Self.server() else { return }
            let (store, workout) = try await Self.store(with: paused ? Self.pausedFile : Self.deviceFile)
            let destination = try await Self.destination(server, format: format)
            try await Self.removeAtServer(workout, destination, server)

            try await store.enqueueUpload(of: workout.id, to: destination.name)
            let report = try await WorkoutUploader(store: store, destination: destination).run()
            let done = try #require(report.done.first, "waiting: \(report.waiting.map(\.lastError)), refused: \(report.refused.map(\.lastError))")
            #expect(done.format == format.rawValue)
            let id = try #require(done.remoteID)
            #expect(done.remoteURL == server.url + "/workouts/" + id)

            let (status, json) = try await Self.api(server, "GET", "/api/workouts/\(id)")
            try #require(status == 200)
            let theirs = try #require(((json["data"] as? [String: Any])?["workouts"] as? [[String: Any]])?.first)
            let distance = try #require(theirs["distance"] as? Double) * 1_000
            let elapsed = try #require(Self.seconds(theirs["duration"]))
            let moving = try #require(Self.seconds(theirs["moving"]))
            let ours = (
                distance: try #require(workout.totals.distance), elapsed: workout.end.timeIntervalSince(workout.start),
                duration: workout.duration, moving: workout.totals.movingTime ?? workout.duration
            )
            #expect(abs(elapsed - ours.elapsed) <= 0.01 * ours.elapsed, "elapsed: FitTrackee \(elapsed) s, ours \(ours.elapsed) s")
            var points: [RoutePoint] = []
            for try await batch in store.routePoints(of: workout.id) { points += batch }
            let breaks = zip(points, points.dropFirst()).filter { $0.segment != $1.segment }
            if format == .tcx, !breaks.isEmpty {
                // Where we differ, on FitTrackee's side: its TCX reader makes one segment of a whole
                // activity (workout_tcx_service.py, parse_file: "one segment per activity"), so a
                // pause between our <Track>s (a segment break: the paused run's, and the project's
                // walk has one too) counts as moving and the step across it as distance. Held to
                // exactly that: a paused workout is sent as GPX unless TCX is asked for.
                let gap = breaks.reduce(0.0) { $0 + $1.0.location.distance(to: $1.1.location) }
                #expect(abs(distance - (ours.distance + gap)) <= 0.01 * ours.distance, "distance: FitTrackee \(distance) m, ours \(ours.distance) m and \(gap) m across the pause")
                #expect(abs(moving - ours.elapsed) <= 0.01 * ours.elapsed, "moving: FitTrackee \(moving) s, our elapsed \(ours.elapsed) s")
            } else {
                #expect(abs(distance - ours.distance) <= 0.01 * ours.distance, "distance: FitTrackee \(distance) m, ours \(ours.distance) m")
                #expect(abs(moving - ours.moving) <= 0.01 * ours.moving, "moving: FitTrackee \(moving) s, ours \(ours.moving) s")
                #expect(abs(moving - ours.duration) <= 0.01 * ours.duration, "duration: FitTrackee's moving \(moving) s, ours \(ours.duration) s")
            }
            #expect(paused == (ours.elapsed > ours.duration + 10), "the paused file has its pause")
            #expect(theirs["sport_id"] as? Int == server.sportID(FitTrackeeDestination.sportLabel(for: workout)))
            try await Self.removeAtServer(workout, destination, server)
        }

        /// A 3-hour ride at one point a second: its GPX is over FitTrackee's largest file (1 MiB,
        /// held to the whole request), so it goes as FIT, and FitTrackee's figures of it are ours.
        /// Asked for as GPX, it is refused here, before anything is sent, saying how large it is,
        /// the limit, and what to do.
        @Test func aRideOverTheServersLargestFileGoesAsFIT() async throws {
            guard let server = Self.server() else { return }
            let ride = SyntheticRun(index: 30, points: 10_800, activityType: .cycling)
            let store = try WorkoutStore.inMemory()
            _ = try await store.saveWorkout(ride.workout, samples: ride.samples, route: ride.route)
            let workout = try #require(try await store.workout(id: ride.workout.id))
            let destination = try await Self.destination(server)
            try await Self.removeAtServer(workout, destination, server)
            let sizes = (gpx: try await store.exportData(workout.id, format: .gpx).count, fit: try await store.exportData(workout.id, format: .fit).count)
            #expect(sizes.gpx > 1_048_576 && sizes.fit * 5 <= sizes.gpx, "the GPX over the limit, the FIT a fifth of it or less: \(sizes)")

            try await store.enqueueUpload(of: workout.id, to: destination.name)
            let report = try await WorkoutUploader(store: store, destination: destination).run()
            let done = try #require(report.done.first, "\(report.refused.map(\.lastError)) \(report.waiting.map(\.lastError))")
            #expect(done.format == "fit")
            let (_, json) = try await Self.api(server, "GET", "/api/workouts/\(try #require(done.remoteID))")
            let theirs = try #require(((json["data"] as? [String: Any])?["workouts"] as? [[String: Any]])?.first)
            let distance = try #require(theirs["distance"] as? Double) * 1_000
            let ours = try #require(workout.totals.distance)
            #expect(abs(distance - ours) <= 0.01 * ours, "distance: FitTrackee \(distance) m, ours \(ours) m")
            #expect(Self.seconds(theirs["duration"]) == workout.duration)
            try await Self.removeAtServer(workout, destination, server)

            let other = try WorkoutStore.inMemory()
            _ = try await other.saveWorkout(ride.workout, samples: ride.samples, route: ride.route)
            let asGPX = try await Self.destination(server, format: .gpx)
            try await other.enqueueUpload(of: workout.id, to: asGPX.name)
            let refused = try await WorkoutUploader(store: other, destination: asGPX).run()
            let reason = try #require(refused.refused.first?.lastError)
            #expect(reason.hasPrefix("the GPX export is 3.") && reason.contains("over fittrackee://\(server.authority)'s largest file, 1.05 MB: send it as FIT, a fifth of the size or less,"), "\(reason)")
            #expect(try await Self.atServer(workout, server).isEmpty, "nothing sent")
        }

        /// The process died after FitTrackee kept the file and before the queue heard (the entry
        /// left `sending`): the next run finds it there and sends nothing; where the server has
        /// none, it sends it once.
        @Test func anUnknownOutcomeIsFoundAtTheServerNotSentAgain() async throws {
            guard let server = Self.server() else { return }
            let (store, workout) = try await Self.storeWithDeviceWorkout()
            let destination = try await Self.destination(server)
            try await Self.removeAtServer(workout, destination, server)

            // The upload happened (the server has it), the queue never heard.
            let sent = try await destination.send(try await destination.file(for: workout, in: store), of: workout)
            guard case let .done(remote) = sent else { Issue.record("FitTrackee answered \(sent)"); return }
            var entry = try await store.enqueueUpload(of: workout.id, to: destination.name)
            entry.state = .sending
            entry.attempts = 1
            try await store.updateUpload(entry)

            let report = try await WorkoutUploader(store: store, destination: destination).run()
            #expect(report.foundAtServer.map(\.remoteID) == [remote.id])
            #expect(try await Self.atServer(workout, server) == [remote.id], "one workout at the server, not two")

            // The same, with the server holding none: sent, once.
            try await Self.removeAtServer(workout, destination, server)
            entry = try #require(try await store.uploads().first)
            entry.state = .sending
            entry.remoteID = nil
            try await store.updateUpload(entry)
            let again = try await WorkoutUploader(store: store, destination: destination).run()
            #expect(again.done.count == 1 && again.foundAtServer.isEmpty)
            #expect(try await Self.atServer(workout, server).count == 1)
            try await Self.removeAtServer(workout, destination, server)
        }

        /// An access token FitTrackee no longer takes: refreshed (after its 401, and before its
        /// expiry when the file says when that is), the new pair kept in the file (0600), uploaded.
        @Test(arguments: [false, true])
        func anExpiredTokenIsRefreshedAndKept(fileKnowsTheExpiry: Bool) async throws {
            guard let server = Self.server() else { return }
            let (store, workout) = try await Self.storeWithDeviceWorkout()
            let path = try Self.credentialsPath("expired-\(fileKnowsTheExpiry)")
            try await server.writeCredentials(to: path, expired: true, expiresAt: fileKnowsTheExpiry ? Date().addingTimeInterval(-1) : nil)
            let before = try OAuthCredentials.read(from: path)
            let destination = try FitTrackeeDestination(url: server.url, credentialsFile: path)
            try await Self.removeAtServer(workout, try await Self.destination(server), server)

            try await store.enqueueUpload(of: workout.id, to: destination.name)
            let report = try await WorkoutUploader(store: store, destination: destination).run()
            #expect(report.done.count == 1, "\(report.waiting.map(\.lastError)) \(String(describing: report.credentialsRefused))")
            let after = try OAuthCredentials.read(from: path)
            #expect(after.accessToken != before.accessToken && after.refreshToken != before.refreshToken)
            #expect(try #require(after.expiresAt).timeIntervalSinceNow > 86_400, "FitTrackee's tokens live 10 days")
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
            try await Self.removeAtServer(workout, try await Self.destination(server), server)
        }

        /// A refresh token FitTrackee refuses: the run stops with refused credentials, the entry
        /// kept pending, the file untouched.
        @Test func aRefusedRefreshStopsWithTheQueueKept() async throws {
            guard let server = Self.server() else { return }
            let (store, workout) = try await Self.storeWithDeviceWorkout()
            let path = try Self.credentialsPath("refused")
            try await server.writeCredentials(to: path, expired: true)
            var credentials = try OAuthCredentials.read(from: path)
            credentials.refreshToken = "not-a-token-fittrackee-gave"
            try credentials.write(to: path)

            let destination = try FitTrackeeDestination(url: server.url, credentialsFile: path)
            try await store.enqueueUpload(of: workout.id, to: destination.name)
            let report = try await WorkoutUploader(store: store, destination: destination).run()
            let reason = try #require(report.credentialsRefused)
            #expect(reason.contains("refused the refresh token") && reason.contains("invalid_grant") && reason.contains("log in again"), "\(reason)")
            #expect(try await store.uploads().map(\.state) == [.pending])
            #expect(try OAuthCredentials.read(from: path) == credentials)
        }

        /// A workout without positions (a trainer ride) goes to `no_gpx` with its figures, its
        /// start given in the user's time zone; one without a distance is refused here, saying why.
        @Test func aWorkoutWithoutPositionsGoesAsFigures() async throws {
            guard let server = Self.server() else { return }
            let store = try WorkoutStore.inMemory()
            let start = Date(timeIntervalSince1970: 1_767_261_600)  // 2026-01-01 10:00 UTC
            var ride = WorkoutRecord(
                activityType: .cycling, start: start, end: start.addingTimeInterval(3_600),
                totals: WorkoutTotals(distance: 30_500), metadata: WorkoutMetadata(values: ["virtual": "true"]))
            _ = try await store.saveWorkout(ride, samples: [], route: [])
            ride = try #require(try await store.workout(id: ride.id))
            let destination = try await Self.destination(server)
            try await Self.removeAtServer(ride, destination, server)

            try await store.enqueueUpload(of: ride.id, to: destination.name)
            let report = try await WorkoutUploader(store: store, destination: destination).run()
            let done = try #require(report.done.first, "\(report.refused.map(\.lastError)) \(report.waiting.map(\.lastError))")
            #expect(done.format == "none")
            let (_, json) = try await Self.api(server, "GET", "/api/workouts/\(try #require(done.remoteID))")
            let theirs = try #require(((json["data"] as? [String: Any])?["workouts"] as? [[String: Any]])?.first)
            #expect(theirs["distance"] as? Double == 30.5 && Self.seconds(theirs["duration"]) == 3_600)
            #expect((theirs["workout_date"] as? String).flatMap(FitTrackeeDestination.httpDate) == start)
            #expect(theirs["sport_id"] as? Int == server.sportID("Cycling (Virtual)"))
            #expect(try await destination.find(ride)?.id == done.remoteID, "found again by its start")
            try await Self.removeAtServer(ride, destination, server)

            var still = WorkoutRecord(activityType: .cycling, start: start.addingTimeInterval(86_400), end: start.addingTimeInterval(90_000))
            _ = try await store.saveWorkout(still, samples: [], route: [])
            still = try #require(try await store.workout(id: still.id))
            try await store.enqueueUpload(of: still.id, to: destination.name)
            let refused = try await WorkoutUploader(store: store, destination: destination).run()
            #expect(refused.refused.first?.lastError?.contains("only with a distance and a duration above zero; this one has no distance") == true)
        }

        /// `workout upload`, as its help promises: 0 and the workout's page; 0 again, "already at" it
        /// and nothing sent, the second time; 66 for no such workout; 65 for one refused as data,
        /// naming why; 77 for refused credentials and 75 for a server not there, the entry kept for the
        /// next run each time; and `workout uploads` listing the queue as it stands.
        @Test func theCommandExitsAsItsHelpSays() async throws {
            guard let server = Self.server() else { return }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fittrackee-command-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }  // a temporary folder: nothing to keep
            let storePath = folder.appendingPathComponent("workouts.sqlite").path
            let credentials = folder.appendingPathComponent("fittrackee.json").path
            try await server.writeCredentials(to: credentials, expiresAt: Date().addingTimeInterval(86_400))
            let workout = Repository.builtExecutable("workout").path
            let destination = "fittrackee+http://\(server.authority)"
            let upload = { (arguments: [String]) in
                try await Command.run(workout, ["upload", "--store", storePath, "--to", destination, "--credentials", credentials] + arguments)
            }

            let imported = try await Command.run(workout, ["import", "--store", storePath, "--json", Self.pausedFile])
            let object = try #require(try JSONSerialization.jsonObject(with: imported.output) as? [String: Any])
            let id = try #require(object["id"] as? String)
            let uuid = try #require(UUID(uuidString: id))
            let record = try #require(try await WorkoutStore(path: storePath).workout(id: uuid))
            try await Self.removeAtServer(record, try await Self.destination(server), server)

            let first = try await upload([String(id.prefix(8))])
            #expect(first.status == 0, "\(first.error)")
            let remote = try #require(try await Self.atServer(record, server).first)
            #expect(first.outputText == "Uploaded \(id): \(server.url)/workouts/\(remote)\n")
            let second = try await upload([id])
            #expect(second.status == 0 && second.outputText == "Already at fittrackee://\(server.authority) (not sent again) \(id): \(server.url)/workouts/\(remote)\n")
            #expect(try await Self.atServer(record, server) == [remote], "one workout at the server")

            let missing = try await upload(["ffffffff"])
            #expect(missing.status == 66, "\(missing.error)")

            // A workout with no positions and no distance: refused, named, kept as refused.
            let empty = WorkoutRecord(activityType: .cycling, start: Date(timeIntervalSince1970: 1_767_348_000), end: Date(timeIntervalSince1970: 1_767_351_600))
            _ = try await WorkoutStore(path: storePath).saveWorkout(empty, samples: [], route: [])
            let refused = try await upload([empty.id.uuidString])
            #expect(refused.status == 65 && refused.error.joined().contains("no distance"), "\(refused.error)")

            // Credentials refused: a token FitTrackee never gave and no refresh token.
            let other = try await WorkoutStore(path: storePath).saveWorkout(
                WorkoutRecord(activityType: .cycling, start: Date(timeIntervalSince1970: 1_767_434_400), end: Date(timeIntervalSince1970: 1_767_438_000),
                              totals: WorkoutTotals(distance: 20_000)), samples: [], route: []).workoutID
            var wrong = try OAuthCredentials.read(from: credentials)
            wrong.accessToken = "not-a-token-fittrackee-gave"
            wrong.refreshToken = nil
            let wrongPath = folder.appendingPathComponent("wrong.json").path
            try wrong.write(to: wrongPath)
            let denied = try await Command.run(workout, ["upload", "--store", storePath, "--to", destination, "--credentials", wrongPath, other.uuidString])
            #expect(denied.status == 77 && denied.error.joined().contains("refused the credentials"), "\(denied.error)")

            // A server not there: 75, the entry pending with the error, for the next run.
            let closed = try await Command.run(workout, ["upload", "--store", storePath, "--to", "fittrackee+http://127.0.0.1:9", "--credentials", credentials, other.uuidString])
            #expect(closed.status == 75 && closed.error.joined().contains("1 waiting for fittrackee://127.0.0.1:9"), "\(closed.error)")

            let queue = try await Command.run(workout, ["uploads", "--store", storePath, "--json"])
            let states = queue.outputText.split(separator: "\n").compactMap { line -> String? in
                let entry = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]  // a line that is not JSON fails below
                return (entry?["destination"] as? String).map { "\($0) \(entry?["state"] as? String ?? "?")" }
            }
            #expect(states.sorted() == [
                "fittrackee://127.0.0.1:9 pending", "fittrackee://\(server.authority) done", "fittrackee://\(server.authority) pending",
                "fittrackee://\(server.authority) refused",
            ].sorted(), "\(queue.outputText)")
            try await Self.removeAtServer(record, try await Self.destination(server), server)
        }
    }
}
