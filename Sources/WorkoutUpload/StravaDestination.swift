import Foundation
import GPSCore
import HTTPClient
import Workout

/// Strava, reached with an OAuth 2.0 app's tokens (scope `activity:write`), as its API v3
/// documents (developers.strava.com/docs/reference, /docs/uploads, /docs/authentication,
/// /docs/rate-limits).
///
/// ```swift
/// let strava = try StravaDestination(credentialsFile: path)
/// ```
///
/// What it sends, and why:
/// - every workout as FIT, multipart to `POST /api/v3/uploads` (`file`, `data_type=fit`,
///   `external_id`, `name`, `trainer`). FIT, because it is the one format Strava reads whole:
///   the session's `sport` and `sub_sport` (from which Strava takes the activity's type, so no
///   `sport_type` is sent: `createUpload` documents none), the timer time apart from the elapsed
///   (pauses), laps, and a workout without positions (a trainer ride: each record has its time,
///   which is all Strava requires), at a fifth of the GPX's size or less.
/// - `external_id` `workout-<uuid>.fit`, the workout's own id: the same on every attempt.
/// - `trainer` 1 for an indoor workout (`WorkoutMetadata.isIndoor`, or no route when it is not
///   known).
///
/// Strava processes an upload after taking it (201, an Upload with `id_str`):
/// ``UploadOutcome/processing(id:)``, then `GET /api/v3/uploads/{id}` until it names its
/// `activity_id`. A processing `error` saying "duplicate of activity N" is Strava finding the
/// workout it has already: done, with N. That is what makes sending again safe, so ``find(_:)``
/// asks nothing and says none: a workout whose earlier upload may have arrived is sent again,
/// and Strava answers with the activity it made of the first (listing the athlete's activities
/// by start time would cost a read request of the rate limit for the same answer).
///
/// Answers: 401 a refresh of the access token (`POST /oauth/token`; the refresh token rotates
/// and the new one is kept in the file, 0600, before it is used), then one try more, then
/// refused credentials; 429 rate limited until the end of the window that is used up (the
/// 15-minute one at :00, :15, :30, :45 UTC, the daily one at midnight UTC, from the
/// `X-RateLimit-*` and `X-ReadRateLimit-*` headers); another processing error refused, with
/// Strava's text; 5xx and no answer unreachable, the workout asked about (sent again) next time
/// when the file had gone out.
public final class StravaDestination: WorkoutUploadDestination {
    public let name = "strava"
    /// The API's base URL: `https://www.strava.com` (the API under `/api/v3`, the tokens at
    /// `/oauth/token`), or another when Strava moves its API host, or a test's stand-in.
    public let url: String
    /// Where an activity's page is: `https://www.strava.com/activities/ID`.
    public let pagesURL: String
    /// The file holding the OAuth client's credentials and tokens, rewritten after a refresh.
    public var credentialsFile: String { session.credentialsFile }
    let timeout: Duration
    private let session: OAuthSession
    /// Whether each workout whose file was made was indoors, for its `trainer` field.
    private let trainer = Locked<[UUID: Bool]>([:])
    /// The end of the rate-limit window Strava last said was used up: no request goes before it.
    private let limitedUntil = Locked<Date?>(nil)
    private let now: @Sendable () -> Date

    /// Strava at `url`, its OAuth 2.0 tokens in `credentialsFile`; the rotated ones written back
    /// there, or to `keptTokensFile` when it is given (read in place of the credentials once it
    /// exists: for a credentials file that cannot be written, such as a systemd credential).
    /// Throws ``UploadError/refusedCredentials(reason:)`` when the file cannot be read.
    public init(
        url: String = "https://www.strava.com", pagesURL: String = "https://www.strava.com", credentialsFile: String,
        keptTokensFile: String? = nil, timeout: Duration = .seconds(60), now: @escaping @Sendable () -> Date = { Date() }
    ) throws(UploadError) {
        self.url = Self.trimmed(url)
        self.pagesURL = Self.trimmed(pagesURL)
        self.timeout = timeout
        self.now = now
        session = try OAuthSession(
            name: "strava", tokenURL: Self.trimmed(url) + "/oauth/token", credentialsFile: credentialsFile, keptFile: keptTokensFile, client: CurlClient(),
            timeout: timeout, now: now)
    }

    public func file(for workout: WorkoutRecord, in store: WorkoutStore) async throws -> UploadFile {
        let data = try await store.exportData(workout.id, format: .fit)
        var indoor = workout.metadata.isIndoor
        if indoor == nil { indoor = try await store.route(of: workout.id) == nil }
        trainer.withLock { $0[workout.id] = indoor ?? false }
        return UploadFile(format: "fit", data: data)
    }

    public func send(_ file: UploadFile, of workout: WorkoutRecord) async throws(UploadError) -> UploadOutcome {
        // As the store said when the file was made; a workout sent without that (not through
        // the uploader) goes as its metadata says, outdoors when it does not say.
        let indoor = trainer.withLock { $0[workout.id] } ?? workout.metadata.isIndoor ?? false
        var form = MultipartForm()
        form.add("file", filename: UploadNames.externalID(of: workout), type: "application/octet-stream", data: file.data)
        form.add("data_type", file.format)
        form.add("external_id", UploadNames.externalID(of: workout))
        form.add("name", UploadNames.activityName(of: workout))
        form.add("trainer", indoor ? "1" : "0")
        try waitForTheLimit()
        let request = HTTPRequest(url: url + "/api/v3/uploads", headers: ["Content-Type: \(form.contentType)"], body: form.body(), timeout: timeout)
        let response = try await session.authorized(request, sending: true)
        guard (200..<300).contains(response.status) else { throw error(for: response, sending: true) }
        return try outcome(of: response, sending: true)
    }

    public func poll(_ processingID: String, of workout: WorkoutRecord) async throws(UploadError) -> UploadOutcome {
        try waitForTheLimit()
        let request = HTTPRequest(method: "GET", url: url + "/api/v3/uploads/" + processingID, timeout: timeout)
        let response = try await session.authorized(request, sending: false)
        guard (200..<300).contains(response.status) else { throw error(for: response, sending: false) }
        return try outcome(of: response, sending: false)
    }

    /// Throws ``UploadError/rateLimited(until:reason:)`` until the window Strava said was used
    /// up has ended: a request before then would be refused, and would count.
    private func waitForTheLimit() throws(UploadError) {
        if let until = limitedUntil.withLock({ $0 }), now() < until {
            throw .rateLimited(until: until, reason: "\(name)'s rate limit was used up; nothing is sent before its window ends")
        }
    }

    /// None, always: Strava finds a second upload of a workout itself (see above).
    public func find(_ workout: WorkoutRecord) async throws(UploadError) -> RemoteWorkout? {
        nil
    }

    // MARK: - Answers

    /// What an Upload object says: done with its activity, done with the one it duplicates,
    /// refused with Strava's error, or still processing.
    private func outcome(of response: HTTPResponse, sending: Bool) throws(UploadError) -> UploadOutcome {
        guard let upload = ServerAnswer.json(response) else {
            throw .unreachable(reason: "\(name) answered \(response.status) without an upload: \(ServerAnswer.text(response))", mayHaveArrived: sending)
        }
        if let activity = Self.integer(upload["activity_id"]) { return .done(remote(activity)) }
        if let error = upload["error"] as? String, !error.isEmpty {
            if let duplicate = Self.duplicatedActivity(in: error) { return .done(remote(duplicate)) }
            throw .refused(reason: "\(name) could not make an activity of the file: \(error)")
        }
        guard let id = upload["id_str"] as? String ?? Self.integer(upload["id"]).map(String.init) else {
            throw .unreachable(reason: "\(name) answered \(response.status) without the upload's id: \(ServerAnswer.text(response))", mayHaveArrived: sending)
        }
        return .processing(id: id)
    }

    /// N of "… duplicate of activity N" (Strava's processing error for a file it has).
    static func duplicatedActivity(in error: String) -> Int64? {
        guard let range = error.range(of: "duplicate of activity ") else { return nil }
        let digits = error[range.upperBound...].prefix(while: \.isNumber)
        return Int64(digits)
    }

    private func remote(_ activity: Int64) -> RemoteWorkout {
        RemoteWorkout(id: String(activity), url: pagesURL + "/activities/\(activity)")
    }

    private func error(for response: HTTPResponse, sending: Bool) -> UploadError {
        let now = now()
        return ServerAnswer.error(response, from: name, sending: sending, now: now) { response in
            let until = Self.rateLimitEnd(response, now: now)
            self.limitedUntil.withLock { $0 = until }
            return until
        }
    }

    /// When the used-up window ends: the next quarter hour (UTC) for a 15-minute limit, the
    /// next midnight UTC for a daily one, the later of the two when both are; the next quarter
    /// hour when the headers name neither (the shorter wait, asked again then).
    static func rateLimitEnd(_ response: HTTPResponse, now: Date) -> Date {
        let dailyUsedUp = ["x-ratelimit", "x-readratelimit"].contains { prefix in
            guard let limit = pair(response.header(prefix + "-limit")), let usage = pair(response.header(prefix + "-usage")) else { return false }
            return usage.1 >= limit.1
        }
        let seconds = now.timeIntervalSince1970
        if dailyUsedUp { return Date(timeIntervalSince1970: (floor(seconds / 86_400) + 1) * 86_400) }
        return Date(timeIntervalSince1970: (floor(seconds / 900) + 1) * 900)
    }

    /// `200,2000` → (200, 2000).
    private static func pair(_ text: String?) -> (Int, Int)? {
        guard let parts = text?.split(separator: ",").map({ Int($0.trimmingCharacters(in: .whitespaces)) }), parts.count == 2,
              let first = parts[0], let second = parts[1] else { return nil }
        return (first, second)
    }

    private static func integer(_ value: Any?) -> Int64? {
        switch value {
        case let number as NSNumber: number.int64Value
        case let text as String: Int64(text)
        default: nil
        }
    }

    private static func trimmed(_ url: String) -> String {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }
}
