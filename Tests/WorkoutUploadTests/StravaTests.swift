import Foundation
import GPSCore
import HTTPClient
import Simulators
import Testing
import TestSupport
import Workout
import WorkoutSimulators
@testable import WorkoutUpload

/// Uploads held to a local stand-in of Strava's API v3 (`Tests/Tools/strava-standin.py`, each of
/// its fields and statuses traced to the page of developers.strava.com that documents it):
/// Strava itself cannot be reached from a test. Time is the test's: the uploader's clock is
/// fixed and its pauses between polls take none.
@Suite struct StravaTests {
    /// 2026-05-01 10:07:12 UTC: seven minutes into a 15-minute rate-limit window.
    static let now = Date(timeIntervalSince1970: 1_777_630_032)

    /// A store holding the project's own FIT run and GPX walk, and a synthetic run, imported.
    static func store() async throws -> (WorkoutStore, [WorkoutRecord]) {
        let store = try WorkoutStore.inMemory()
        let run = try await FITImporter(store: store).importFile(at: Repository.fixture("fit/garmin-sdk-run.fit").path).workouts.first?.workout
        let walk = try await GPXImporter(store: store).importFile(at: Repository.fixture("gpx/greenwich-walk.gpx").path).workouts.first?.workout
        let synthetic = SyntheticRun(index: 3, points: 60)
        _ = try await store.saveWorkout(synthetic.workout, samples: synthetic.samples, route: synthetic.route)
        return (store, [try #require(run), try #require(walk), try #require(try await store.workout(id: synthetic.workout.id))])
    }

    /// The project's FIT run and GPX walk imported into the store at `storePath` by `workout
    /// import`; their ids.
    static func importedByTheCommand(into storePath: String) async throws -> [String] {
        var ids: [String] = []
        for file in ["fit/garmin-sdk-run.fit", "gpx/greenwich-walk.gpx"] {
            let imported = try await Command.run(
                Repository.builtExecutable("workout").path, ["import", "--store", storePath, "--json", Repository.fixture(file).path])
            ids.append(try #require((try JSONSerialization.jsonObject(with: imported.output) as? [String: Any])?["id"] as? String))
        }
        return ids
    }

    /// A credentials file with the stand-in's first tokens, the access token good for an hour
    /// (by the uploader's clock) unless told otherwise.
    static func credentials(expiresAt: Date? = StravaTests.now.addingTimeInterval(3_600), refreshToken: String = "initial-refresh-token") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strava-tests-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("\(UUID()).json").path
        try OAuthCredentials(
            clientID: "12345", clientSecret: "stand-in-secret", accessToken: "initial-access-token", refreshToken: refreshToken, expiresAt: expiresAt
        ).write(to: path)
        return path
    }

    /// An uploader at `now` whose pauses take no time and are counted.
    static func uploader(_ store: WorkoutStore, _ strava: StravaDestination, at now: Date = StravaTests.now, pauses: Locked<Int> = Locked(0)) -> WorkoutUploader {
        WorkoutUploader(store: store, destination: strava, now: { now }, pause: { _ in pauses.withLock { $0 += 1 } })
    }

    /// Each workout sent once as FIT with its own id as `external_id`, processed after Strava's
    /// polls (one pause each, no time), done with the activity's id and page; run again, nothing
    /// is sent.
    @Test func eachWorkoutIsUploadedOnceAndDoneAfterPolling() async throws {
        let standIn = try await HTTPStandIn.strava(polls: 3)
        let (store, workouts) = try await Self.store()
        let strava = try StravaDestination(url: standIn.url, credentialsFile: try Self.credentials(), now: { Self.now })
        for workout in workouts { try await store.enqueueUpload(of: workout.id, to: strava.name) }
        let pauses = Locked(0)

        let report = try await Self.uploader(store, strava, pauses: pauses).run()
        #expect(report.done.count == 3, "\(report.waiting.map(\.lastError)) \(report.refused.map(\.lastError))")
        #expect(pauses.withLock { $0 } == 9, "three polls of each of three uploads, a pause before each")
        let activities = try await standIn.activities()
        #expect(activities.count == 3)
        for (workout, done) in zip(workouts, report.done) {
            let activity = try #require(activities.first { $0["external_id"] as? String == "workout-\(workout.id.uuidString.lowercased()).fit" })
            let id = try #require(activity["id"] as? Int)
            #expect(done.remoteID == String(id) && done.remoteURL == "https://www.strava.com/activities/\(id)" && done.format == "fit")
            #expect(activity["data_type"] as? String == "fit" && activity["name"] as? String == UploadNames.activityName(of: workout))
            #expect(activity["trainer"] as? String == "0", "each has a route")
        }

        let again = try await Self.uploader(store, strava, at: Self.now.addingTimeInterval(60)).run()
        #expect(again.done.isEmpty && again.waiting.isEmpty)
        #expect(try await standIn.state()["upload_requests"] as? Int == 3)
    }

    /// The answer to an upload lost (Strava kept the file, the connection closed before a byte
    /// came back): the entry stays `sending`, and the next run sends it again, which Strava
    /// answers with "duplicate of activity N": done with N, no second activity. We differ from
    /// FitTrackee here on purpose: `find` asks Strava nothing, as its duplicate answer says the
    /// same for no read request of the rate limit.
    @Test func aLostAnswerMakesNoSecondActivity() async throws {
        let standIn = try await HTTPStandIn.strava(polls: 1)
        let (store, workouts) = try await Self.store()
        let strava = try StravaDestination(url: standIn.url, credentialsFile: try Self.credentials(), now: { Self.now })
        try await store.enqueueUpload(of: workouts[0].id, to: strava.name)
        try await standIn.faults(["drop_after_keeping": 1])

        let lost = try await Self.uploader(store, strava).run()
        #expect(lost.done.isEmpty && lost.waiting.count == 1)
        #expect(try await store.uploads().map(\.state) == [.sending], "the file went out: its outcome is unknown")

        let next = try await Self.uploader(store, strava, at: Self.now.addingTimeInterval(3_600)).run()
        let activities = try await standIn.activities()
        #expect(activities.count == 1, "one activity, not two")
        let id = try #require(activities.first?["id"] as? Int)
        #expect(next.done.map(\.remoteID) == [String(id)])
        #expect(try await standIn.state()["upload_requests"] as? Int == 2)
    }

    /// An access token Strava no longer takes: refreshed before its expiry when the file says
    /// when that is, else after Strava's 401; the rotated refresh token kept in the file (0600)
    /// at once, and the one it replaced refused by Strava from then on.
    @Test(arguments: [true, false])
    func anExpiredTokenIsRefreshedAndTheRotatedOneKept(fileKnowsTheExpiry: Bool) async throws {
        let standIn = try await HTTPStandIn.strava(polls: 1)
        let (store, workouts) = try await Self.store()
        let path = try Self.credentials(expiresAt: fileKnowsTheExpiry ? Self.now.addingTimeInterval(-1) : nil)
        if !fileKnowsTheExpiry { try await standIn.faults(["expire_access_token": true]) }
        let strava = try StravaDestination(url: standIn.url, credentialsFile: path, now: { Self.now })
        try await store.enqueueUpload(of: workouts[0].id, to: strava.name)

        let report = try await Self.uploader(store, strava).run()
        #expect(report.done.count == 1, "\(report.waiting.map(\.lastError)) \(String(describing: report.credentialsRefused))")
        let state = try await standIn.state()
        let kept = try OAuthCredentials.read(from: path)
        #expect(state["refreshes"] as? Int == 1)
        #expect(kept.refreshToken == state["refresh_token"] as? String && kept.refreshToken != "initial-refresh-token")
        #expect(kept.accessToken == state["access_token"] as? String)
        #expect(try #require(kept.expiresAt) > Date(), "Strava's expires_at, six hours on")
        #expect(FileModes.of(path) == 0o600)

        let old = try await standIn.send(HTTPRequest(
            url: standIn.url + "/oauth/token", headers: ["Content-Type: application/x-www-form-urlencoded"],
            body: Array("client_id=12345&client_secret=stand-in-secret&grant_type=refresh_token&refresh_token=initial-refresh-token".utf8)))
        #expect(old.status == 400 && String(decoding: old.body, as: UTF8.self).contains(#""resource": "RefreshToken""#))
    }

    /// Strava's 429: the entry waits until the used-up window ends (the quarter hour for the
    /// 15-minute limit, midnight UTC for the daily one), and nothing more is sent in that run.
    @Test(arguments: [false, true])
    func aRateLimitWaitsForTheWindowsEnd(daily: Bool) async throws {
        let standIn = try await HTTPStandIn.strava(polls: 1, limit: daily ? "1000,2" : "2,1000")
        let (store, workouts) = try await Self.store()
        let strava = try StravaDestination(url: standIn.url, credentialsFile: try Self.credentials(), now: { Self.now })
        for workout in workouts { try await store.enqueueUpload(of: workout.id, to: strava.name) }

        let report = try await Self.uploader(store, strava).run()
        // The first: its upload and one poll, the limit's two requests; the second's upload over it.
        #expect(report.done.count == 1 && report.waiting.count == 2)
        let end = daily ? Date(timeIntervalSince1970: 1_777_680_000) : Date(timeIntervalSince1970: 1_777_630_500)  // 2026-05-02 00:00, 2026-05-01 10:15
        let limited = try #require(try await store.uploads().first { $0.workoutID == workouts[1].id })
        #expect(limited.state == .pending && limited.nextAttempt == end, "\(String(describing: limited.nextAttempt))")
        let state = try await standIn.state()
        #expect(state["api_requests"] as? Int == 3 && state["upload_requests"] as? Int == 2, "nothing after the 429")

        let early = try await Self.uploader(store, strava, at: end.addingTimeInterval(-1)).run()
        #expect(early.done.isEmpty && early.waiting.count == 2)
        #expect(try await standIn.state()["api_requests"] as? Int == 3, "not before the window's end")
    }

    /// A 503 after the file went out: waiting (asked about, that is sent again, after the
    /// back-off), then done on the next run, one activity.
    @Test func aServerErrorWaitsThenIsDoneOnTheNextRun() async throws {
        let standIn = try await HTTPStandIn.strava(polls: 1)
        let (store, workouts) = try await Self.store()
        let strava = try StravaDestination(url: standIn.url, credentialsFile: try Self.credentials(), now: { Self.now })
        try await store.enqueueUpload(of: workouts[1].id, to: strava.name)
        try await standIn.faults(["fail": [503]])

        let failed = try await Self.uploader(store, strava).run()
        #expect(failed.waiting.count == 1 && failed.waiting.first?.lastError?.contains("HTTP 503") == true)
        #expect(failed.waiting.first?.nextAttempt == Self.now.addingTimeInterval(30))
        let tooSoon = try await Self.uploader(store, strava, at: Self.now.addingTimeInterval(29)).run()
        let sentTooSoon = try await standIn.state()["upload_requests"] as? Int
        #expect(tooSoon.done.isEmpty && sentTooSoon == 1)

        let next = try await Self.uploader(store, strava, at: Self.now.addingTimeInterval(31)).run()
        #expect(next.done.count == 1)
        #expect(try await standIn.activities().count == 1)
    }

    /// A refresh token Strava never gave: its 401, the refresh refused (400), the run stops with
    /// refused credentials; every entry kept pending, nothing at Strava, the file untouched.
    @Test func refusedCredentialsStopTheRunWithTheQueueKept() async throws {
        let standIn = try await HTTPStandIn.strava()
        let (store, workouts) = try await Self.store()
        let path = try Self.credentials(refreshToken: "not-a-token-strava-gave")
        try await standIn.faults(["expire_access_token": true])
        let before = try OAuthCredentials.read(from: path)
        let strava = try StravaDestination(url: standIn.url, credentialsFile: path, now: { Self.now })
        for workout in workouts { try await store.enqueueUpload(of: workout.id, to: strava.name) }

        let report = try await Self.uploader(store, strava).run()
        let reason = try #require(report.credentialsRefused)
        #expect(reason.contains("strava refused the refresh token (HTTP 400") && reason.contains("RefreshToken"), "\(reason)")
        #expect(report.waiting.count == 3)
        #expect(try await store.uploads().allSatisfy { $0.state == .pending })
        let (activities, uploads) = (try await standIn.activities(), try await standIn.state()["upload_requests"] as? Int)
        #expect(activities.isEmpty && uploads == 1)
        #expect(try OAuthCredentials.read(from: path) == before)
    }

    /// Strava's processing error for a file it has, read for the activity it names; the window
    /// ends as the rate-limit page says.
    @Test func stravasAnswersAreReadAsDocumented() {
        #expect(StravaDestination.duplicatedActivity(in: "file.fit duplicate of activity 123456789") == 123_456_789)
        #expect(StravaDestination.duplicatedActivity(in: "Improperly formatted data.") == nil)
        let limited = HTTPResponse(status: 429, body: [], headers: [("x-ratelimit-limit", "200,2000"), ("x-ratelimit-usage", "201,350")])
        #expect(StravaDestination.rateLimitEnd(limited, now: Self.now) == Date(timeIntervalSince1970: 1_777_630_500))
        let reads = HTTPResponse(status: 429, body: [], headers: [
            ("x-ratelimit-limit", "200,2000"), ("x-ratelimit-usage", "20,350"), ("x-readratelimit-limit", "100,1000"), ("x-readratelimit-usage", "30,1000"),
        ])
        #expect(StravaDestination.rateLimitEnd(reads, now: Self.now) == Date(timeIntervalSince1970: 1_777_680_000), "the daily read limit used up")
    }
}

/// `workout upload --to strava+http://HOST:PORT` and `intervals+http://HOST:PORT`, as the help
/// says: 0 and the activity's page; 77, the entry kept, for credentials the service refuses.
@Suite struct UploadCommandStandInTests {
    @Test(arguments: ["strava", "intervals"])
    func theCommandUploadsToAStandIn(kind: String) async throws {
        let standIn = kind == "strava" ? try await HTTPStandIn.strava(polls: 1) : try await HTTPStandIn.intervals()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("upload-command-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // a temporary folder: nothing to keep
        let storePath = folder.appendingPathComponent("workouts.sqlite").path
        let credentials = kind == "strava"
            ? try StravaTests.credentials(expiresAt: Date().addingTimeInterval(3_600)) : try IntervalsTests.credentials()
        let workout = Repository.builtExecutable("workout").path
        let imported = try await Command.run(workout, ["import", "--store", storePath, "--json", Repository.fixture("fit/garmin-sdk-run.fit").path])
        let id = try #require((try JSONSerialization.jsonObject(with: imported.output) as? [String: Any])?["id"] as? String)

        let wrong = folder.appendingPathComponent("wrong").path
        try Data("not-the-key".utf8).write(to: URL(fileURLWithPath: wrong))
        if kind == "strava" {
            try OAuthCredentials(clientID: "12345", clientSecret: "stand-in-secret", accessToken: "not-a-token", refreshToken: nil, expiresAt: nil).write(to: wrong)
        }
        let target = "\(kind)+http://127.0.0.1:\(standIn.port)"
        let denied = try await Command.run(workout, ["upload", "--store", storePath, "--to", target, "--credentials", wrong, id])
        #expect(denied.status == 77 && denied.error.joined().contains("refused"), "\(denied.error)")

        let sent = try await Command.run(workout, ["upload", "--store", storePath, "--to", target, "--credentials", credentials, id])
        #expect(sent.status == 0, "\(sent.error)")
        let activity = try #require(try await standIn.activities().first?["id"])
        let page = kind == "strava" ? "https://www.strava.com/activities/\(activity)" : "\(standIn.url)/activities/\(activity)"
        #expect(sent.outputText == "Uploaded \(id): \(page)\n")
    }

    /// Under systemd the credential is a read-only copy: Strava's rotated tokens are kept beside
    /// the store (`strava-tokens.json`, 0600) and read in the credential's place by the next run,
    /// whose credential still holds the refresh token Strava has taken back.
    @Test func aSystemdCredentialsRotatedTokensAreKeptBesideTheStore() async throws {
        let standIn = try await HTTPStandIn.strava(polls: 1)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("upload-credential-\(UUID())")
        let credentials = folder.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // a temporary folder: nothing to keep
        let storePath = folder.appendingPathComponent("workouts.sqlite").path
        // Expired already: the first run refreshes.
        try OAuthCredentials(
            clientID: "12345", clientSecret: "stand-in-secret", accessToken: "initial-access-token", refreshToken: "initial-refresh-token",
            expiresAt: Date(timeIntervalSince1970: 1_000_000_000)
        ).write(to: credentials.appendingPathComponent("strava").path)
        let credential = try Data(contentsOf: credentials.appendingPathComponent("strava"))
        let workout = Repository.builtExecutable("workout").path
        let ids = try await StravaTests.importedByTheCommand(into: storePath)
        let target = "strava+http://127.0.0.1:\(standIn.port)"
        for id in ids {
            let upload = try ChildProcess(
                workout, ["upload", "--store", storePath, "--to", target, id], environment: ["CREDENTIALS_DIRECTORY": credentials.path])
            let status = await upload.waitUntilExit()
            #expect(status == 0, "\(upload.lines(.error))")
        }
        let state = try await standIn.state()
        let activities = try await standIn.activities()
        #expect(state["refreshes"] as? Int == 1 && activities.count == 2, "\(state)")
        let kept = try OAuthCredentials.read(from: folder.appendingPathComponent("strava-tokens.json").path)
        #expect(kept.refreshToken == state["refresh_token"] as? String && kept.accessToken == state["access_token"] as? String)
        #expect(FileModes.of(folder.appendingPathComponent("strava-tokens.json").path) == 0o600)
        #expect(try Data(contentsOf: credentials.appendingPathComponent("strava")) == credential, "the credential left as systemd gave it")
    }
}

/// `workout login --to strava+http://HOST:PORT` against the stand-in's authorization page and code
/// trade (Strava's "Requesting Access" and "Token Exchange"): the page it prints, visited as a
/// browser does (curl following the redirect), brings the code to the command's redirect URI, and
/// the tokens it writes upload a workout.
@Suite(.timeLimit(.minutes(1))) struct LoginStandInTests {
    @Test func aLoginAtTheStandInWritesTokensThatUpload() async throws {
        let standIn = try await HTTPStandIn.strava(polls: 1)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("login-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // a temporary folder: nothing to keep
        let secret = folder.appendingPathComponent("secret").path
        try "stand-in-secret\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let credentials = folder.appendingPathComponent("strava.json").path
        let target = "strava+http://127.0.0.1:\(standIn.port)"
        let workout = Repository.builtExecutable("workout").path
        let login = try ChildProcess(workout, [
            "login", "--to", target, "--client-id", "12345", "--client-secret-file", secret, "--credentials", credentials, "--port", "0",
        ], blockedSignals: [])
        let page = try #require(await login.waitForLine(unfinished: false) { $0.contains("/oauth/authorize?") })
        #expect(page.hasPrefix("\(standIn.url)/oauth/authorize?"))
        let browser = try await Command.run("/usr/bin/curl", ["-s", "-L", "-o", "/dev/null", "-w", "%{http_code}", page])
        #expect(browser.outputText == "200", "the command's redirect URI answered the browser")
        #expect(await login.waitUntilExit() == 0, "\(login.lines(.error))")
        let tokens = try OAuthCredentials.read(from: credentials)
        let state = try await standIn.state()
        #expect(tokens.accessToken == state["access_token"] as? String && tokens.refreshToken == state["refresh_token"] as? String)
        #expect(tokens.expiresAt.map { abs($0.timeIntervalSinceNow - 21_600) < 120 } == true, "Strava's expires_at: six hours")

        let storePath = folder.appendingPathComponent("workouts.sqlite").path
        let imported = try await Command.run(workout, ["import", "--store", storePath, "--json", Repository.fixture("fit/garmin-sdk-run.fit").path])
        let id = try #require((try JSONSerialization.jsonObject(with: imported.output) as? [String: Any])?["id"] as? String)
        let sent = try await Command.run(workout, ["upload", "--store", storePath, "--to", target, "--credentials", credentials, id])
        #expect(sent.status == 0, "\(sent.error)")
        #expect(try await standIn.activities().count == 1)
    }
}

/// The issue's promise that credentials never appear in `ps`, the logs or the queue, held where
/// each would show: `workout upload` runs with the secrets only in its credentials file (its
/// arguments hold a path), refreshes an access token Strava no longer takes (so new tokens exist)
/// and uploads, then fails with another workout (a 503, so the queue keeps an error). None of
/// the secrets, old or new, is in what either run printed or in the store's files, the queue's
/// rows included; the rotated pair is in the credentials file alone (0600).
@Suite(.timeLimit(.minutes(1))) struct SecretsTests {
    @Test func theSecretsAreInTheCredentialsFileAlone() async throws {
        let standIn = try await HTTPStandIn.strava(polls: 1)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("upload-secrets-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // a temporary folder: nothing to keep
        let storePath = folder.appendingPathComponent("workouts.sqlite").path
        let credentials = folder.appendingPathComponent("strava.json").path
        try OAuthCredentials(
            clientID: "12345", clientSecret: "stand-in-secret", accessToken: "initial-access-token", refreshToken: "initial-refresh-token",
            expiresAt: Date().addingTimeInterval(3_600)
        ).write(to: credentials)
        let workout = Repository.builtExecutable("workout").path
        let ids = try await StravaTests.importedByTheCommand(into: storePath)
        let arguments = ["upload", "--store", storePath, "--to", "strava+http://127.0.0.1:\(standIn.port)", "--credentials", credentials]

        var printed: [String] = []
        try await standIn.faults(["expire_access_token": true])
        let sent = try await Command.run(workout, arguments + [ids[0]])
        #expect(sent.status == 0, "\(sent.error)")
        printed += [sent.outputText] + sent.error
        try await standIn.faults(["fail": [503]])
        let failing = try await Command.run(workout, arguments + ["--json", ids[1]])
        #expect(failing.status == 75, "\(failing.error)")
        printed += [failing.outputText] + failing.error
        let waiting = try await WorkoutStore(path: storePath).uploads().filter { $0.state != .done }
        #expect(waiting.count == 1 && waiting.first?.lastError?.contains("503") == true, "the queue keeps the error: \(waiting)")

        let state = try await standIn.state()
        let rotated = try #require(state["refresh_token"] as? String)
        let access = try #require(state["access_token"] as? String)
        #expect(state["refreshes"] as? Int == 1 && rotated != "initial-refresh-token", "a refresh happened: \(state)")
        let secrets = ["stand-in-secret", "initial-access-token", "initial-refresh-token", rotated, access]
        for argument in arguments { #expect(!secrets.contains { argument.contains($0) }, "ps shows the arguments: \(argument)") }
        for text in printed {
            for secret in secrets { #expect(!text.contains(secret), "printed: \(text)") }
        }
        let storeFiles = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("workouts.sqlite") }
        #expect(storeFiles.contains("workouts.sqlite"))
        for file in storeFiles {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(file))
            for secret in secrets { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in \(file)") }
        }
        let kept = try OAuthCredentials.read(from: credentials)
        #expect(kept.refreshToken == rotated && kept.accessToken == access)
        let credentialBytes = try Data(contentsOf: URL(fileURLWithPath: credentials))
        #expect(credentialBytes.range(of: Data(rotated.utf8)) != nil, "the search finds a secret where it is")
        #expect(FileModes.of(credentials) == 0o600)
        await standIn.stop()
    }
}
