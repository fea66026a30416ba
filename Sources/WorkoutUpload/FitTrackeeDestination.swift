import Foundation
import GPSCore
import HTTPClient
import Workout
#if canImport(Glibc)
import Glibc
#endif

/// A FitTrackee server (1.x, self-hosted: a club's, a family's), reached with an OAuth 2.0 app's
/// tokens (FitTrackee's own login gives cookies, not a token: third-party clients use OAuth 2.0).
///
/// ```swift
/// let fittrackee = try FitTrackeeDestination(url: "https://fittrackee.example", credentialsFile: path)
/// ```
///
/// What it sends, and why (FitTrackee 1.3.6's `fittrackee/workouts/workouts.py`):
/// - a workout with a route: its GPX export, multipart `file` and `data` (`{"sport_id": N}`)
///   to `POST /api/workouts`. GPX, because FitTrackee has read it longest and works out its
///   distance and moving time from the points it holds; FIT when the GPX is over the server's
///   largest file (`max_single_file_size` of `GET /api/config`, 1 MiB by default, compared
///   with the whole request: a 3-hour ride at one point a second with heart rate is 3.1 MB of
///   GPX, and a fifth of that or less as FIT). TCX when asked (`format`): FitTrackee reads an activity's tracks as
///   one segment, so a pause between them counts as moving there.
/// - a workout without positions (a trainer ride, a treadmill run): its figures as JSON to
///   `POST /api/workouts/no_gpx` (`sport_id`, `duration` in seconds, `distance` in km,
///   `workout_date` as `%Y-%m-%d %H:%M` in the user's time zone, from their profile; FitTrackee
///   refuses a file without positions: "no valid segments with GPS found"). Both figures must be
///   above zero: a workout with no distance is refused here, saying so.
/// - the sport from `GET /api/sports`, by label: cycling → "Cycling (Sport)" (or "Cycling
///   (Virtual)" for a virtual ride), running → "Running", and so on.
///
/// FitTrackee does not find duplicates (the same file twice is two workouts), so a workout whose
/// earlier upload may have arrived is looked for first: `GET /api/workouts` from the day before
/// its start to the day after, matched by its start time (the route's first point's, to the
/// second; a workout without a file to the minute) and its sport.
///
/// Answers: 201 done; 400 refused as data (FitTrackee's message); 401 a refresh of the access
/// token (`POST /api/oauth/token`, `grant_type=refresh_token`), then one try more, then refused
/// credentials; 413 refused, the file over the server's `max_single_file_size`; 500 and no answer
/// unreachable, asked about next time when the file had gone out.
public final class FitTrackeeDestination: WorkoutUploadDestination {
    public let name: String
    /// The server's base URL, `https://host[:port]`.
    public let url: String
    /// The file holding the OAuth client's credentials and tokens, rewritten after a refresh.
    public let credentialsFile: String
    /// The format of a workout with a route, when one is asked for; nil: GPX, or FIT when the
    /// GPX is over the server's largest file.
    public let format: WorkoutExportFormat?
    let timeout: Duration
    private let session: OAuthSession
    private let state = Locked(State())
    private let now: @Sendable () -> Date

    private struct State: Sendable {
        var sports: [String: Int]?
        var timeZone: TimeZone?
        var largestFile: Int?
    }

    /// A destination at `url` (`https://host[:port]`, or `http://` for a server on a trusted
    /// network), its OAuth 2.0 tokens in `credentialsFile`; refreshed ones are written back there,
    /// or to `keptTokensFile` when it is given (read in place of the credentials once it exists:
    /// for a credentials file that cannot be written, such as a systemd credential). Throws
    /// ``UploadError/refusedCredentials(reason:)`` when the file cannot be read.
    public init(
        url: String, credentialsFile: String, keptTokensFile: String? = nil, format: WorkoutExportFormat? = nil, timeout: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(UploadError) {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        self.url = base
        self.credentialsFile = credentialsFile
        self.format = format
        self.timeout = timeout
        self.now = now
        let authority = base.split(separator: "://", maxSplits: 1).last.map(String.init) ?? base
        name = "fittrackee://\(authority)"
        session = try OAuthSession(
            name: name, tokenURL: base + "/api/oauth/token", credentialsFile: credentialsFile, keptFile: keptTokensFile, client: CurlClient(),
            timeout: timeout, now: now)
    }

    public func file(for workout: WorkoutRecord, in store: WorkoutStore) async throws -> UploadFile {
        guard try await store.route(of: workout.id) != nil else {
            // No positions: its figures alone (FitTrackee reads no file without them).
            return UploadFile(format: "none", data: Data())
        }
        let largest = try await largestFile()
        // What the form around the file adds to the request, whose whole length FitTrackee
        // holds to the limit: the boundaries, the headers of the two parts, the data JSON.
        let room = largest - 1_024
        let megabytes = { (bytes: Int) in String(format: "%.2f MB", Double(bytes) / 1_000_000) }
        if let format {
            let data = try await store.exportData(workout.id, format: format)
            guard data.count <= room else {
                let smaller = format == .fit ? "" : ": send it as FIT, a fifth of the size or less,"
                throw UploadError.refused(reason: "the \(format.rawValue.uppercased()) export is \(megabytes(data.count)), over \(name)'s largest file, \(megabytes(largest))\(smaller) or ask its administrator to raise max_single_file_size")
            }
            return UploadFile(format: format.rawValue, data: data)
        }
        let gpx = try await store.exportData(workout.id, format: .gpx)
        if gpx.count <= room {
            return UploadFile(format: "gpx", data: gpx)
        }
        let fit = try await store.exportData(workout.id, format: .fit)
        guard fit.count <= room else {
            throw UploadError.refused(reason: "even the FIT export is \(megabytes(fit.count)), over \(name)'s largest file, \(megabytes(largest)): ask its administrator to raise max_single_file_size")
        }
        return UploadFile(format: "fit", data: fit)
    }

    /// The largest request the server takes with a file (`GET /api/config`, public:
    /// `max_single_file_size`, 1 MiB unless its administrator changed it).
    func largestFile() async throws(UploadError) -> Int {
        if let largest = state.withLock({ $0.largestFile }) { return largest }
        let response = try await session.exchange(HTTPRequest(method: "GET", url: url + "/api/config", timeout: timeout), sending: false)
        guard (200..<300).contains(response.status) else { throw error(for: response, sending: false) }
        guard let largest = (Self.json(response)?["data"] as? [String: Any])?["max_single_file_size"] as? Int else {
            throw .unreachable(reason: "\(name): GET /api/config answered without max_single_file_size: \(Self.text(response))", mayHaveArrived: false)
        }
        state.withLock { $0.largestFile = largest }
        return largest
    }

    public func send(_ file: UploadFile, of workout: WorkoutRecord) async throws(UploadError) -> UploadOutcome {
        let sport = try await sportID(for: workout)
        var request: HTTPRequest
        if file.format == "none" {
            let duration = Int(workout.duration.rounded())
            let distance = workout.totals.distance ?? 0
            // no_gpx refuses a workout without both (workouts.py: "invalid payload"): said here
            // with what is missing, rather than FitTrackee's two words.
            guard duration > 0, distance > 0 else {
                throw .refused(reason: "\(name) takes a workout without positions only with a distance and a duration above zero; this one has \(distance > 0 ? "no duration" : "no distance")")
            }
            let zone = try await userTimeZone()
            let body: [String: Any] = [
                "sport_id": sport,
                "duration": duration,
                "distance": distance / 1_000,
                "workout_date": Self.dateText(workout.start, in: zone, withTime: true),
            ]
            request = HTTPRequest(url: url + "/api/workouts/no_gpx", headers: ["Content-Type: application/json"], timeout: timeout)
            // A dictionary of numbers and strings always serializes.
            request.body = Array((try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8))
        } else {
            var form = MultipartForm()
            form.add("file", filename: "workout-\(workout.id.uuidString.lowercased()).\(file.format)", type: "application/octet-stream", data: file.data)
            form.add("data", #"{"sport_id": \#(sport)}"#)
            request = HTTPRequest(url: url + "/api/workouts", headers: ["Content-Type: \(form.contentType)"], body: form.body(), timeout: timeout)
        }
        let response = try await session.authorized(request, sending: true)
        switch response.status {
        case 200..<300:
            guard let workouts = Self.workouts(in: response), let first = workouts.first, let id = first["id"] as? String else {
                if response.status == 200, let task = (Self.json(response)?["data"] as? [String: Any])?["task_id"] as? String {
                    return .processing(id: task)
                }
                throw .unreachable(reason: "\(name) answered \(response.status) without the workout it made: \(Self.text(response))", mayHaveArrived: true)
            }
            return .done(remote(id))
        default:
            throw error(for: response, sending: true)
        }
    }

    public func find(_ workout: WorkoutRecord) async throws(UploadError) -> RemoteWorkout? {
        let day = 86_400.0
        let from = Self.dateText(workout.start.addingTimeInterval(-day), in: .gmt, withTime: false)
        let to = Self.dateText(workout.start.addingTimeInterval(day), in: .gmt, withTime: false)
        let request = HTTPRequest(
            method: "GET", url: url + "/api/workouts?from=\(from)&to=\(to)&per_page=100&order=asc", timeout: timeout,
            responseLimit: 8 * 1024 * 1024)
        let response = try await session.authorized(request, sending: false)
        guard (200..<300).contains(response.status) else { throw error(for: response, sending: false) }
        let sport = try await sportID(for: workout)
        for candidate in Self.workouts(in: response) ?? [] {
            guard let id = candidate["id"] as? String, let text = candidate["workout_date"] as? String,
                  let date = Self.httpDate(text) else { continue }
            let sameSport = (candidate["sport_id"] as? Int).map { $0 == sport } ?? true
            // A file's workout starts at its first point; one without a file at its minute.
            if sameSport, abs(date.timeIntervalSince(workout.start)) < ((candidate["with_file"] as? Bool) == false ? 60 : 2) {
                return remote(id)
            }
        }
        return nil
    }

    private func remote(_ id: String) -> RemoteWorkout {
        RemoteWorkout(id: id, url: url + "/workouts/" + id)
    }

    // MARK: - Sports

    /// The sport's id at this server, by its label (`GET /api/sports`, read once).
    func sportID(for workout: WorkoutRecord) async throws(UploadError) -> Int {
        let label = Self.sportLabel(for: workout)
        if let sports = state.withLock({ $0.sports }) {
            guard let id = sports[label] else { throw .refused(reason: "\(name) has no sport \"\(label)\" (it has \(sports.keys.sorted().joined(separator: ", ")))") }
            return id
        }
        let response = try await session.authorized(HTTPRequest(method: "GET", url: url + "/api/sports", timeout: timeout, responseLimit: 1024 * 1024), sending: false)
        guard (200..<300).contains(response.status) else { throw error(for: response, sending: false) }
        let list = ((Self.json(response)?["data"] as? [String: Any])?["sports"] as? [[String: Any]]) ?? []
        var sports: [String: Int] = [:]
        for sport in list {
            if let label = sport["label"] as? String, let id = sport["id"] as? Int { sports[label] = id }
        }
        state.withLock { $0.sports = sports }
        guard let id = sports[label] else { throw .refused(reason: "\(name) has no sport \"\(label)\" (it has \(sports.keys.sorted().joined(separator: ", ")))") }
        return id
    }

    /// FitTrackee's label for the workout's activity (its `sports` table's).
    static func sportLabel(for workout: WorkoutRecord) -> String {
        switch workout.activityType {
        case .cycling: workout.metadata.values["virtual"] == "true" ? "Cycling (Virtual)" : "Cycling (Sport)"
        case .running: "Running"
        case .walking: "Walking"
        case .hiking: "Hiking"
        case .swimming: "Open Water Swimming"
        case .rowing: "Rowing"
        case .paddling: "Kayaking"
        case .crossCountrySkiing: "Skiing (Cross Country)"
        case .downhillSkiing: "Skiing (Alpine)"
        case .skating, .other: "Walking"
        }
    }

    /// The user's time zone, in which FitTrackee reads a `workout_date` sent without a file
    /// (`GET /api/auth/profile`, its `timezone`; UTC when the profile sets none or the token may
    /// not read it, scope `profile:read`).
    func userTimeZone() async throws(UploadError) -> TimeZone {
        if let zone = state.withLock({ $0.timeZone }) { return zone }
        let response = try await session.authorized(HTTPRequest(method: "GET", url: url + "/api/auth/profile", timeout: timeout, responseLimit: 1024 * 1024), sending: false)
        var zone = TimeZone.gmt
        switch response.status {
        case 200..<300:
            if let identifier = (Self.json(response)?["data"] as? [String: Any])?["timezone"] as? String {
                guard let named = TimeZone(identifier: identifier) else {
                    throw .refused(reason: "\(name): the user's time zone \"\(identifier)\" is not one this machine knows (tzdata), so a workout's start cannot be given in it")
                }
                zone = named
            }
        case 403: break  // insufficient_scope: the token may not read the profile; UTC, FitTrackee's own default
        default: throw error(for: response, sending: false)
        }
        state.withLock { $0.timeZone = zone }
        return zone
    }

    // MARK: - Answers

    private func error(for response: HTTPResponse, sending: Bool) -> UploadError {
        guard response.status == 413 else { return ServerAnswer.error(response, from: name, sending: sending, now: now()) }
        return .refused(reason: "\(name) refused the file as too large (HTTP 413: \(Self.text(response))); its administrator sets the largest (max_single_file_size), or export a smaller format")
    }

    private static func json(_ response: HTTPResponse) -> [String: Any]? {
        ServerAnswer.json(response)
    }

    private static func workouts(in response: HTTPResponse) -> [[String: Any]]? {
        (json(response)?["data"] as? [String: Any])?["workouts"] as? [[String: Any]]
    }

    /// FitTrackee's message, else the start of the body.
    private static func text(_ response: HTTPResponse) -> String {
        ServerAnswer.text(response)
    }

    /// `2024-05-01 10:00` (`withTime`) or `2024-05-01`, in `zone`.
    static func dateText(_ date: Date, in zone: TimeZone, withTime: Bool) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let day = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        return withTime ? day + String(format: " %02d:%02d", parts.hour ?? 0, parts.minute ?? 0) : day
    }

    /// `Mon, 01 Jan 2018 00:00:00 GMT`, as FitTrackee writes `workout_date` (RFC 1123).
    static func httpDate(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard fields.count == 6, fields[5] == "GMT", let day = Int(fields[1]), let month = months.firstIndex(of: String(fields[2])),
              let year = Int(fields[3]) else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(clock[0])
        parts.tm_min = Int32(clock[1])
        parts.tm_sec = Int32(clock[2])
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
