import Foundation
import HTTPClient
import Workout

/// intervals.icu, reached with the athlete's API key (HTTP Basic, user `API_KEY`, the key as
/// the password) or an OAuth access token (Bearer), as its API documents (intervals.icu/api-docs.html,
/// and its forum's "API access to Intervals.icu" thread).
///
/// ```swift
/// let intervals = try IntervalsDestination(credentialsFile: path)
/// ```
///
/// The credentials file holds the API key alone (a line), or OAuth credentials as JSON
/// (``OAuthCredentials``: its `access_token` is used; intervals.icu documents no refresh).
///
/// Every workout goes as FIT (intervals.icu takes .fit, .gpx, their .gz and zip, not TCX; FIT
/// carries the sport, the laps, the pauses and a workout without positions), multipart `file`
/// to `POST /api/v1/athlete/0/activities` (0: the athlete the credentials are for), with `name`
/// and `external_id` (`workout-<uuid>.fit`, the workout's own id) as query parameters, where the
/// API's reference puts them. The answer names the activity (`id`); intervals.icu makes no
/// second activity of a file it has (it compares a hash of the file's data) and answers with
/// the one it has.
///
/// ``find(_:)`` lists the athlete's activities from the day before the workout's start to the
/// day after (`GET /api/v1/athlete/0/activities?oldest=&newest=`, dates in the athlete's zone,
/// hence the margin), and takes the one with our `external_id`, else the one that starts when the
/// workout does (to two seconds): the API has no lookup by `external_id`, and an activity made
/// from the same workout through another path (a watch's sync) carries none of ours.
///
/// Answers: 401 and 403 refused credentials; 429 rate limited (its `Retry-After`, else a
/// minute); another 4xx refused as data; 5xx and no answer unreachable, asked about next time
/// when the file had gone out.
public final class IntervalsDestination: WorkoutUploadDestination {
    public let name = "intervals"
    /// The server's base URL: `https://intervals.icu`, or a test's stand-in.
    public let url: String
    let timeout: Duration
    private let credential: Credential
    private let client = CurlClient()
    private let now: @Sendable () -> Date

    /// How a request says who it is for.
    enum Credential: Sendable {
        case apiKey(String)
        case accessToken(String)
    }

    /// intervals.icu at `url`, with the API key (or OAuth credentials) in `credentialsFile`.
    /// Throws ``UploadError/refusedCredentials(reason:)`` when the file cannot be read or holds
    /// neither.
    public init(
        url: String = "https://intervals.icu", credentialsFile: String, timeout: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(UploadError) {
        self.now = now
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        self.url = base
        self.timeout = timeout
        credential = try Self.read(credentialsFile)
    }

    /// The key or the token in `path`.
    static func read(_ path: String) throws(UploadError) -> Credential {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .refusedCredentials(reason: "cannot read the credentials file \(path): \((error as NSError).localizedDescription)")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{") {
            return .accessToken(try OAuthCredentials.read(from: path).accessToken)
        }
        guard !text.isEmpty, !text.contains(where: \.isWhitespace) else {
            throw .refusedCredentials(reason: "the credentials file \(path) is not one: it holds the intervals.icu API key alone, or OAuth credentials as JSON")
        }
        return .apiKey(text)
    }

    public func file(for workout: WorkoutRecord, in store: WorkoutStore) async throws -> UploadFile {
        UploadFile(format: "fit", data: try await store.exportData(workout.id, format: .fit))
    }

    public func send(_ file: UploadFile, of workout: WorkoutRecord) async throws(UploadError) -> UploadOutcome {
        var form = MultipartForm()
        let externalID = UploadNames.externalID(of: workout)
        form.add("file", filename: externalID, type: "application/octet-stream", data: file.data)
        let query = Self.query([("name", UploadNames.activityName(of: workout)), ("external_id", externalID)])
        let request = HTTPRequest(
            url: url + "/api/v1/athlete/0/activities?" + query, headers: ["Content-Type: \(form.contentType)"], body: form.body(), timeout: timeout)
        let response = try await exchange(request, sending: true)
        guard (200..<300).contains(response.status) else { throw error(for: response, sending: true) }
        let body = ServerAnswer.json(response)
        guard let id = body?["id"] as? String ?? ((body?["activities"] as? [[String: Any]])?.first?["id"] as? String) else {
            throw .unreachable(reason: "\(name) answered \(response.status) without the activity it made: \(ServerAnswer.text(response))", mayHaveArrived: true)
        }
        return .done(remote(id))
    }

    public func find(_ workout: WorkoutRecord) async throws(UploadError) -> RemoteWorkout? {
        let day = 86_400.0
        let query = Self.query([("oldest", Self.day(workout.start.addingTimeInterval(-day))), ("newest", Self.day(workout.start.addingTimeInterval(day)))])
        let request = HTTPRequest(method: "GET", url: url + "/api/v1/athlete/0/activities?" + query, timeout: timeout, responseLimit: 8 * 1024 * 1024)
        let response = try await exchange(request, sending: false)
        guard (200..<300).contains(response.status) else { throw error(for: response, sending: false) }
        // A list that is not JSON is no list: said as the server's failure.
        guard let list = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]] else {
            throw .unreachable(reason: "\(name) answered the list of activities with no list: \(ServerAnswer.text(response))", mayHaveArrived: false)
        }
        let externalID = UploadNames.externalID(of: workout)
        if let ours = list.first(where: { $0["external_id"] as? String == externalID }), let id = ours["id"] as? String {
            return remote(id)
        }
        for candidate in list {
            guard let id = candidate["id"] as? String, let text = candidate["start_date"] as? String,
                  let start = try? Date(text, strategy: .iso8601)  // a start that is not a date matches nothing
            else { continue }
            if abs(start.timeIntervalSince(workout.start)) < 2 { return remote(id) }
        }
        return nil
    }

    private func remote(_ id: String) -> RemoteWorkout {
        RemoteWorkout(id: id, url: url + "/activities/" + id)
    }

    private func exchange(_ start: HTTPRequest, sending: Bool) async throws(UploadError) -> HTTPResponse {
        var request = start
        switch credential {
        case let .apiKey(key): request.login = HTTPLogin(user: "API_KEY", password: key)
        case let .accessToken(token): request.headers.append("Authorization: Bearer \(token)")
        }
        return try await OAuthSession.send(request, with: client, name: name, sending: sending)
    }

    private func error(for response: HTTPResponse, sending: Bool) -> UploadError {
        ServerAnswer.error(response, from: name, sending: sending, now: now())
    }

    /// `2024-05-01`, UTC.
    static func day(_ date: Date) -> String {
        FitTrackeeDestination.dateText(date, in: .gmt, withTime: false)
    }

    private static func query(_ items: [(String, String)]) -> String {
        String(decoding: formEncoded(items), as: UTF8.self)
    }
}
