import ArgumentParser
import CommandSupport
import Foundation
import Workout
import WorkoutUpload

/// Where a workout goes: `fittrackee://HOST[:PORT]` (HTTPS) or `fittrackee+http://HOST[:PORT]`;
/// `strava` or `intervals` (their own hosts, HTTPS), or `strava+http://HOST:PORT` and
/// `intervals+http://HOST:PORT` for a stand-in of theirs.
struct UploadTarget: ExpressibleByArgument, Sendable {
    /// Which service it is: also the name of its systemd credential.
    enum Kind: String, Sendable {
        case fittrackee, strava, intervals
    }

    var kind: Kind
    /// The server's base URL.
    var url: String
    /// The queue's name for it.
    var name: String

    init?(argument: String) {
        switch argument {
        case "strava": (kind, url, name) = (.strava, "https://www.strava.com", "strava"); return
        case "intervals": (kind, url, name) = (.intervals, "https://intervals.icu", "intervals"); return
        default: break
        }
        let parts = argument.split(separator: "://", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty, !parts[1].contains("/") || parts[1].hasSuffix("/") else { return nil }
        let authority = parts[1].hasSuffix("/") ? String(parts[1].dropLast()) : parts[1]
        switch parts[0] {
        case "fittrackee": (kind, url) = (.fittrackee, "https://\(authority)")
        case "fittrackee+http": (kind, url) = (.fittrackee, "http://\(authority)")
        case "strava+http": (kind, url) = (.strava, "http://\(authority)")
        case "intervals+http": (kind, url) = (.intervals, "http://\(authority)")
        default: return nil
        }
        // A stand-in is the service itself to the queue: what it has there is the service's.
        name = kind == .fittrackee ? "fittrackee://\(authority)" : kind.rawValue
    }

    static var defaultValueDescription: String { "fittrackee://HOST[:PORT], strava, intervals" }

    /// The credentials file: `given` (--credentials), else the systemd credential named for the
    /// service ($CREDENTIALS_DIRECTORY/fittrackee, /strava, /intervals); nil when there is neither.
    func credentialsFile(_ given: String?) -> String? {
        given ?? ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"].map { $0 + "/" + kind.rawValue }
    }

    /// The destination, its credentials read from `credentialsFile`: OAuth credentials (JSON)
    /// for FitTrackee and Strava; for intervals.icu the API key alone, or OAuth credentials with
    /// an access token. Exit 77 naming the file when they cannot be read, the line starting
    /// with `command`.
    ///
    /// `given` is --credentials; without it the systemd credential is read, a read-only copy, so
    /// the tokens a refresh gives back are kept beside `store` (`<kind>-tokens.json`, 0600) and
    /// read in its place from then on.
    func destination(given: String?, store: WorkoutStore, format: WorkoutExportFormat?, command: String) throws -> any WorkoutUploadDestination {
        let credentialsFile = credentialsFile(given) ?? ""
        let kept = given == nil ? store.path.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("\(kind.rawValue)-tokens.json").path } : nil
        do throws(UploadError) {
            switch kind {
            case .fittrackee: return try FitTrackeeDestination(url: url, credentialsFile: credentialsFile, keptTokensFile: kept, format: format)
            case .strava: return try StravaDestination(url: url, credentialsFile: credentialsFile, keptTokensFile: kept)
            case .intervals: return try IntervalsDestination(url: url, credentialsFile: credentialsFile)
            }
        } catch {
            Output.error("\(command): \(error)")
            throw ExitCode(.noPermission)
        }
    }
}

struct Upload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload workouts to FitTrackee, Strava or intervals.icu, each once, through the store's upload queue.",
        discussion: """
            The workouts named are queued for the destination and sent with what is already queued \
            for it; with no id (or --pending), what is queued is sent. Each workout is marked in the \
            store before its file goes out, so a crash or a lost connection never loses it, and one \
            whose upload may have arrived is looked for at the server before it is sent again: it \
            arrives once.

            A workout named that the destination has already is said to be there, with its page, \
            and not sent again.

            --to fittrackee://HOST[:PORT] is HTTPS; fittrackee+http://HOST[:PORT] plain HTTP, for a \
            server on a trusted network. --to strava and --to intervals are Strava and intervals.icu \
            (sent FIT); strava+http://HOST:PORT and intervals+http://HOST:PORT a stand-in of theirs. \
            The credentials are read from --credentials FILE, else $CREDENTIALS_DIRECTORY/fittrackee, \
            /strava or /intervals (a systemd credential), never from the command line: for FitTrackee \
            and Strava the OAuth 2.0 client's credentials and tokens (JSON: client_id, client_secret, \
            access_token, refresh_token, expires_at), refreshed tokens written back to it (0600), or, \
            for a systemd credential (read-only), kept beside the store in KIND-tokens.json; for \
            intervals.icu the API key alone, or such JSON with an access token.

            Exit status: 0 when every workout went, 75 when some wait (the server unreachable, \
            retried later; and after Ctrl-C or SIGTERM, the exchange at work cancelled), 77 when \
            the server refused the credentials, 65 when it refused a workout as data (the line \
            names its message), 66 for no such workout. With --watch: 0 after SIGINT or SIGTERM.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "Workout ids (or starts of them) to queue and send.")
    var ids: [String] = []

    @Option(help: "The destination: fittrackee://HOST[:PORT], fittrackee+http://HOST[:PORT], strava, or intervals.")
    var to: UploadTarget

    @Flag(help: "Send what is queued for the destination (the default with no id).")
    var pending = false

    @Option(help: "The file of the credentials: the OAuth client's credentials and tokens, or intervals.icu's API key.", completion: .file())
    var credentials: String?

    @Option(help: "FitTrackee's format of a workout with a route: gpx, fit or tcx (by default GPX, or FIT when the GPX is over the server's largest file).")
    var format: String?

    @Flag(help: ArgumentHelp("Keep running, sending what is queued whenever it is due, until SIGINT or SIGTERM (exit 0).", discussion: """
        For a device that comes home to its network: every --interval seconds, and when a back-off \
        or a rate limit ends, what is due is sent; each workout done, refused or waiting is said \
        once. Refused credentials end it (77).
        """))
    var watch = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --watch, how often to look at the queue.", valueName: "seconds"))
    var interval: Double = 60

    @Flag(help: "One JSON object: the entries done, waiting, refused and already done (already_done).")
    var json = false

    func validate() throws {
        if let format, !["gpx", "fit", "tcx"].contains(format) { throw ValidationError("--format is gpx, fit or tcx, not '\(format)'.") }
        guard interval >= 1, interval.isFinite else { throw ValidationError("--interval is at least 1 second, not \(interval).") }
        if interval != 60, !watch { throw ValidationError("--interval is for --watch: give --watch too.") }
        if format != nil, to.kind != .fittrackee { throw ValidationError("--format is FitTrackee's: Strava and intervals.icu are sent FIT.") }
        if to.credentialsFile(credentials) == nil {
            throw ValidationError("give --credentials FILE (or run under systemd with a credential named \(to.kind.rawValue)).")
        }
    }

    func run() async throws {
        let store = try storeOptions.open()
        let destination = try to.destination(
            given: credentials, store: store, format: format.flatMap(WorkoutExportFormat.init(rawValue:)), command: "workout upload")
        var only: Set<UUID>?
        // Named workouts the destination has already: said, not sent again.
        var already: [WorkoutUpload] = []
        if !ids.isEmpty {
            var named = Set<UUID>()
            for reference in ids {
                let workout = try await storeOptions.resolve(reference, in: store)
                let entry = try await storeCall { try await store.enqueueUpload(of: workout.id, to: destination.name) }
                if entry.state == .done { already.append(entry) } else { named.insert(workout.id) }
            }
            only = pending ? nil : named
        }
        let uploader = WorkoutUploader(store: store, destination: destination)
        if watch {
            try await keepSending(uploader, only: only, already: already)
            return
        }
        // Ctrl-C or SIGTERM cancels the exchange at work: its entry keeps what it says (sent or
        // not), and the run ends as one that left something waiting.
        let interrupts = Interrupts()
        let work = Task { only?.isEmpty == true ? WorkoutUploader.Report() : try await uploader.run(only: only) }
        // Whether a signal came: the watcher's own cancellation (the work done) ends its wait too.
        let watcher = Task { () async -> Bool in
            await interrupts.wait()
            guard !Task.isCancelled else { return false }
            work.cancel()
            return true
        }
        let report = try await storeCall { () async throws(WorkoutStoreError) -> WorkoutUploader.Report in
            do { return try await work.value } catch let error as WorkoutStoreError { throw error } catch { return WorkoutUploader.Report() }
        }
        watcher.cancel()
        let interrupted = await watcher.value
        say(report, already: already)
        if report.credentialsRefused != nil { throw ExitCode(.noPermission) }
        if !report.refused.isEmpty { throw ExitCode(.dataError) }
        if !report.waiting.isEmpty || interrupted { throw ExitCode(.temporaryFailure) }
    }

    /// Sends what is due, again and again, until SIGINT or SIGTERM (exit 0): at most every
    /// --interval seconds, sooner when an entry's back-off or a rate limit ends. Refused
    /// credentials end it (77): nothing would go until they are mended.
    private func keepSending(_ uploader: WorkoutUploader, only: Set<UUID>?, already: [WorkoutUpload]) async throws {
        let interrupts = Interrupts()
        let interval = self.interval
        let work = Task { () async throws -> String? in
            var said = already
            var lastWaiting: Set<String> = []
            while !Task.isCancelled {
                let report = try await uploader.run(only: only)
                // Each wait said once, not at every pass.
                let waiting = Set(report.waiting.compactMap(\.lastError))
                var shown = report
                if waiting == lastWaiting { shown.waiting = [] }
                lastWaiting = waiting
                if !(shown.done.isEmpty && shown.refused.isEmpty && shown.waiting.isEmpty && said.isEmpty) || report.credentialsRefused != nil {
                    say(shown, already: said, quietWhenNothing: true)
                }
                said = []
                if let refused = report.credentialsRefused { return refused }
                let now = Date()
                let due = try await uploader.store.uploads(to: uploader.destination.name).compactMap(\.nextAttempt).filter { $0 > now }.min()
                let wait = min(interval, max(1, due.map { $0.timeIntervalSince(now) } ?? interval))
                try await Task.sleep(for: .seconds(wait))
            }
            return nil
        }
        let watcher = Task { () async -> Bool in
            await interrupts.wait()
            guard !Task.isCancelled else { return false }
            work.cancel()
            return true
        }
        let result = await work.result
        watcher.cancel()
        let interrupted = await watcher.value
        switch result {
        case let .success(refused):
            if refused != nil { throw ExitCode(.noPermission) }
        case .failure where interrupted:
            break  // SIGINT or SIGTERM: what was at work keeps what it says, and the watch ends as asked
        case let .failure(error):
            Output.error("workout upload: \(error)")
            throw ExitCode(.ioError)
        }
    }

    private func say(_ report: WorkoutUploader.Report, already: [WorkoutUpload], quietWhenNothing: Bool = false) {
        if json {
            let entry = { (upload: WorkoutUpload) -> [String: Any] in
                var object: [String: Any] = ["id": upload.workoutID.uuidString, "state": upload.state.rawValue, "attempts": upload.attempts]
                if let remote = upload.remoteID { object["remote_id"] = remote }
                if let url = upload.remoteURL { object["remote_url"] = url }
                if let error = upload.lastError { object["error"] = error }
                if let format = upload.format { object["format"] = format }
                return object
            }
            var object: [String: Any] = [
                "destination": to.name, "done": report.done.map(entry), "waiting": report.waiting.map(entry), "refused": report.refused.map(entry),
                "already_done": already.map(entry),
            ]
            if let reason = report.credentialsRefused { object["credentials_refused"] = reason }
            Output.line(Format.jsonLine(object))
            return
        }
        for upload in already {
            Output.line("Already at \(to.name) (not sent again) \(upload.workoutID.uuidString): \(upload.remoteURL ?? upload.remoteID ?? "")")
        }
        for upload in report.done {
            let found = report.foundAtServer.contains { $0.workoutID == upload.workoutID }
            Output.line("\(found ? "Found at the server (not sent again)" : "Uploaded") \(upload.workoutID.uuidString): \(upload.remoteURL ?? upload.remoteID ?? "")")
        }
        for upload in report.refused {
            Output.error("workout upload: \(to.name) refused \(upload.workoutID.uuidString): \(upload.lastError ?? "no reason given")")
        }
        if let reason = report.credentialsRefused {
            Output.error("workout upload: \(reason); \(report.waiting.count) queued, kept for the next run.")
        } else if !report.waiting.isEmpty {
            let reasons = Set(report.waiting.compactMap(\.lastError))
            Output.error("workout upload: \(report.waiting.count) waiting for \(to.name), kept in the queue\(reasons.isEmpty ? "" : ": " + reasons.sorted().joined(separator: "; "))")
        }
        if !quietWhenNothing, already.isEmpty, report.done.isEmpty, report.waiting.isEmpty, report.refused.isEmpty, report.credentialsRefused == nil {
            Output.line("Nothing queued for \(to.name).")
        }
    }
}

struct Uploads: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uploads",
        abstract: "List the upload queue: each workout's state at each destination.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only this destination's entries (fittrackee://HOST[:PORT], strava, intervals).")
    var to: UploadTarget?

    @Flag(help: "One JSON object a line.")
    var json = false

    func run() async throws {
        let store = try storeOptions.open()
        let uploads = try await storeCall { try await store.uploads(to: to?.name) }
        for upload in uploads {
            if json {
                var object: [String: Any] = [
                    "id": upload.workoutID.uuidString, "destination": upload.destination, "state": upload.state.rawValue, "attempts": upload.attempts,
                    "enqueued_at": Format.dateTime(upload.enqueuedAt), "updated_at": Format.dateTime(upload.updatedAt),
                ]
                if let remote = upload.remoteID { object["remote_id"] = remote }
                if let url = upload.remoteURL { object["remote_url"] = url }
                if let error = upload.lastError { object["error"] = error }
                if let next = upload.nextAttempt { object["next_attempt"] = Format.dateTime(next) }
                if let format = upload.format { object["format"] = format }
                Output.line(Format.jsonLine(object))
            } else {
                let detail = upload.state == .done ? (upload.remoteURL ?? upload.remoteID ?? "") : (upload.lastError ?? "")
                Output.line("\(upload.workoutID.uuidString.prefix(8))  \(upload.destination)  \(upload.state.rawValue)  \(upload.attempts) attempt\(upload.attempts == 1 ? "" : "s")\(detail.isEmpty ? "" : "  " + detail)")
            }
        }
        if uploads.isEmpty, !json { Output.line("The upload queue is empty.") }
    }
}
