import Foundation
import HTTPClient
import Testing
import TestSupport
import Workout
@testable import WorkoutUpload

/// Uploads held to a local stand-in of intervals.icu's API (`Tests/Tools/intervals-standin.py`,
/// each of its fields and statuses traced to intervals.icu's API reference or its forum's API
/// thread): intervals.icu itself cannot be reached from a test. The uploader's clock is fixed.
@Suite struct IntervalsTests {
    static let now = Date(timeIntervalSince1970: 1_777_630_032)

    /// A store holding the project's own FIT run and GPX walk, imported.
    static func store() async throws -> (WorkoutStore, [WorkoutRecord]) {
        let store = try WorkoutStore.inMemory()
        let run = try await FITImporter(store: store).importFile(at: Repository.fixture("fit/garmin-sdk-run.fit").path).workouts.first?.workout
        let walk = try await GPXImporter(store: store).importFile(at: Repository.fixture("gpx/greenwich-walk.gpx").path).workouts.first?.workout
        return (store, [try #require(run), try #require(walk)])
    }

    /// A credentials file: the API key alone, or OAuth credentials as JSON with an access token.
    static func credentials(key: String = "stand-in-api-key", oauth: Bool = false) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intervals-tests-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(UUID().uuidString).path
        if oauth {
            try OAuthCredentials(clientID: "app", clientSecret: "secret", accessToken: "stand-in-oauth-token", refreshToken: nil, expiresAt: nil).write(to: path)
        } else {
            try Data((key + "\n").utf8).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    static func uploader(_ store: WorkoutStore, _ intervals: IntervalsDestination, at now: Date = IntervalsTests.now) -> WorkoutUploader {
        WorkoutUploader(store: store, destination: intervals, now: { now }, pause: { _ in })
    }

    /// Each workout sent once as FIT with its name and our `external_id`, with the API key or
    /// an OAuth token: done with the activity's id and page.
    @Test(arguments: [false, true])
    func eachWorkoutIsUploadedOnce(oauth: Bool) async throws {
        let standIn = try await HTTPStandIn.intervals()
        let (store, workouts) = try await Self.store()
        let intervals = try IntervalsDestination(url: standIn.url, credentialsFile: try Self.credentials(oauth: oauth))
        for workout in workouts { try await store.enqueueUpload(of: workout.id, to: intervals.name) }

        let report = try await Self.uploader(store, intervals).run()
        #expect(report.done.count == 2, "\(report.waiting.map(\.lastError)) \(report.refused.map(\.lastError))")
        let activities = try await standIn.activities()
        #expect(activities.count == 2)
        for (workout, done) in zip(workouts, report.done) {
            let activity = try #require(activities.first { $0["external_id"] as? String == UploadNames.externalID(of: workout) })
            let id = try #require(activity["id"] as? String)
            #expect(done.remoteID == id && done.remoteURL == standIn.url + "/activities/" + id && done.format == "fit")
            #expect(activity["name"] as? String == UploadNames.activityName(of: workout))
        }
    }

    /// The answer to an upload lost (intervals.icu kept the file): the next run finds the
    /// activity by our `external_id` in the list of the days around the start, and sends nothing.
    @Test func aLostAnswerIsFoundNotSentAgain() async throws {
        let standIn = try await HTTPStandIn.intervals()
        let (store, workouts) = try await Self.store()
        let intervals = try IntervalsDestination(url: standIn.url, credentialsFile: try Self.credentials())
        try await store.enqueueUpload(of: workouts[0].id, to: intervals.name)
        try await standIn.faults(["drop_after_keeping": 1])

        let lost = try await Self.uploader(store, intervals).run()
        let states = try await store.uploads().map(\.state)
        #expect(lost.waiting.count == 1 && states == [.sending])

        let next = try await Self.uploader(store, intervals, at: Self.now.addingTimeInterval(3_600)).run()
        let activities = try await standIn.activities()
        #expect(activities.count == 1)
        #expect(next.foundAtServer.map(\.remoteID) == [activities.first?["id"] as? String])
        #expect(try await standIn.state()["upload_requests"] as? Int == 1, "not sent again")
    }

    /// The workout at intervals.icu already, from another path (a watch's sync: none of our
    /// `external_id`): found by its start time, to the second, not sent again.
    @Test func anActivityFromElsewhereIsFoundByItsStart() async throws {
        let standIn = try await HTTPStandIn.intervals()
        let (store, workouts) = try await Self.store()
        let intervals = try IntervalsDestination(url: standIn.url, credentialsFile: try Self.credentials())
        var form = MultipartForm()
        form.add("file", filename: "watch.fit", type: "application/octet-stream", data: try Data(contentsOf: Repository.fixture("fit/garmin-sdk-run.fit")))
        let elsewhere = try await standIn.send(HTTPRequest(
            url: standIn.url + "/api/v1/athlete/0/activities", headers: ["Content-Type: \(form.contentType)"], body: form.body(),
            login: HTTPLogin(user: "API_KEY", password: "stand-in-api-key")))
        #expect(elsewhere.status == 201)

        var entry = try await store.enqueueUpload(of: workouts[0].id, to: intervals.name)
        entry.state = .sending
        entry.attempts = 1
        try await store.updateUpload(entry)
        let report = try await Self.uploader(store, intervals).run()
        #expect(report.foundAtServer.count == 1)
        #expect(try await standIn.activities().count == 1)
    }

    /// The same file twice: intervals.icu answers the second with the activity it made of the
    /// first (it checks a hash of the file's data), so our export, the same bytes each time,
    /// makes no second activity even sent again.
    @Test func theSameFileTwiceIsOneActivity() async throws {
        let standIn = try await HTTPStandIn.intervals()
        let (store, workouts) = try await Self.store()
        let intervals = try IntervalsDestination(url: standIn.url, credentialsFile: try Self.credentials())
        let first = try await intervals.send(try await intervals.file(for: workouts[1], in: store), of: workouts[1])
        let second = try await intervals.send(try await intervals.file(for: workouts[1], in: store), of: workouts[1])
        #expect(first == second)
        #expect(try await standIn.activities().count == 1)
    }

    /// A 503: waiting, then (asked about: none there) done on the next run, one activity.
    @Test func aServerErrorWaitsThenIsDoneOnTheNextRun() async throws {
        let standIn = try await HTTPStandIn.intervals()
        let (store, workouts) = try await Self.store()
        let intervals = try IntervalsDestination(url: standIn.url, credentialsFile: try Self.credentials())
        try await store.enqueueUpload(of: workouts[1].id, to: intervals.name)
        try await standIn.faults(["fail": [503]])

        let failed = try await Self.uploader(store, intervals).run()
        #expect(failed.waiting.count == 1 && failed.waiting.first?.lastError?.contains("HTTP 503") == true)
        let next = try await Self.uploader(store, intervals, at: Self.now.addingTimeInterval(31)).run()
        #expect(next.done.count == 1 && next.foundAtServer.isEmpty)
        #expect(try await standIn.activities().count == 1)
    }

    /// A key intervals.icu does not take: 401, the run stops with refused credentials, every
    /// entry kept pending, nothing there.
    @Test func aWrongKeyStopsTheRunWithTheQueueKept() async throws {
        let standIn = try await HTTPStandIn.intervals()
        let (store, workouts) = try await Self.store()
        let intervals = try IntervalsDestination(url: standIn.url, credentialsFile: try Self.credentials(key: "not-the-key"))
        for workout in workouts { try await store.enqueueUpload(of: workout.id, to: intervals.name) }

        let report = try await Self.uploader(store, intervals).run()
        #expect(report.credentialsRefused?.contains("intervals refused the credentials (HTTP 401") == true, "\(String(describing: report.credentialsRefused))")
        let kept = try await store.uploads().allSatisfy { $0.state == .pending }
        #expect(report.waiting.count == 2 && kept)
        let (activities, uploads) = (try await standIn.activities(), try await standIn.state()["upload_requests"] as? Int)
        #expect(activities.isEmpty && uploads == 1)
    }
}
