import Foundation
import Workout

/// Sends the workouts queued in a store for one destination, so that each arrives once: never
/// lost, never twice.
///
/// ```swift
/// try await store.enqueueUpload(of: workout.id, to: fittrackee.name)
/// let report = try await WorkoutUploader(store: store, destination: fittrackee).run()
/// print(report.done.count, report.waiting.count)
/// ```
///
/// ## The promise, and how it is kept
/// Each entry is marked `sending` (committed) before its file goes out, and `done` with the
/// server's id once the server says it has it. An entry found in `sending` is one whose outcome is
/// not known (the process died mid-upload, or the exchange broke after the file went out): the
/// uploader first asks the server whether it has the workout (``WorkoutUploadDestination/find(_:)``),
/// and sends only if it has not. A failure before the file went out leaves it `pending`. So a
/// crash or a power cut at any point neither loses a workout (its entry is in the store, in the
/// same file as the workout) nor sends it twice, as long as the server can be asked.
///
/// ## What each answer does
/// | answer | the entry | the run |
/// |---|---|---|
/// | the server has it | `done`, with its id and page | goes on |
/// | still processing | `processing`, asked again at most once a second | goes on |
/// | unreachable, a server error | `pending` (or `sending`, when the file had gone out), tried again after a back-off | goes on |
/// | refused as data | `refused`, with the server's reason | goes on |
/// | credentials refused | unchanged | stops: every other would be refused too |
/// | rate limited | `pending`, and every other entry of the destination too, next try when the window ends | stops |
public struct WorkoutUploader: Sendable {
    /// What one run did.
    public struct Report: Sendable, Hashable {
        /// Entries that reached the server in this run (or were found there).
        public var done: [WorkoutUpload] = []
        /// Entries left for a later run: unreachable, rate limited, still processing, or not tried
        /// because the run stopped.
        public var waiting: [WorkoutUpload] = []
        /// Entries the server refused as data, in this run.
        public var refused: [WorkoutUpload] = []
        /// Why the run stopped before the end of the queue: the credentials were refused.
        public var credentialsRefused: String?
        /// Entries found at the server after an unknown outcome (not sent again): a subset of `done`.
        public var foundAtServer: [WorkoutUpload] = []

        /// A report of nothing done.
        public init() {}
    }

    public let store: WorkoutStore
    public let destination: any WorkoutUploadDestination
    /// The wall clock, for the queue's times.
    let now: @Sendable () -> Date
    /// How the uploader waits between polls of an upload being processed.
    let pause: @Sendable (Duration) async throws -> Void
    /// How long a run waits for an upload the server is processing before leaving it for later.
    public var processingWait: Duration = .seconds(120)

    /// An uploader of `store`'s queue for `destination`; `now` and `pause` are the clock (a test
    /// gives its own).
    public init(
        store: WorkoutStore, destination: any WorkoutUploadDestination,
        now: @escaping @Sendable () -> Date = { Date() },
        pause: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.store = store
        self.destination = destination
        self.now = now
        self.pause = pause
    }

    /// Sends what is due in the queue for this destination (or only the workouts `only`), oldest
    /// queued first, and says what happened. Store errors are thrown; the destination's go into
    /// the entries and the report.
    public func run(only: Set<UUID>? = nil) async throws(WorkoutStoreError) -> Report {
        var report = Report()
        let entries = try await store.uploads(to: destination.name).filter { only?.contains($0.workoutID) ?? true }
        for (index, entry) in entries.enumerated() {
            // Cancelled (a command's Ctrl-C): what is left waits for the next run.
            guard !Task.isCancelled else {
                report.waiting += entries[index...].filter { [.pending, .sending, .processing].contains($0.state) }
                break
            }
            guard entry.isDue(at: now()) else {
                if [.pending, .sending, .processing].contains(entry.state) { report.waiting.append(entry) }
                continue
            }
            guard let workout = try await store.workout(id: entry.workoutID) else { continue }
            let (result, stop) = try await upload(entry, of: workout)
            switch result.state {
            case .done:
                report.done.append(result)
                if entry.state == .sending, result.attempts == entry.attempts { report.foundAtServer.append(result) }
            case .refused: report.refused.append(result)
            case .pending, .sending, .processing: report.waiting.append(result)
            }
            if let stop {
                report.credentialsRefused = stop.credentials
                for var rest in entries[(index + 1)...] where [.pending, .sending, .processing].contains(rest.state) {
                    // A rate limit is the destination's, not the entry's: every other entry waits
                    // for its window too, so that the next process does not spend a request on a 429.
                    if let until = stop.rateLimitedUntil, (rest.nextAttempt ?? .distantPast) < until {
                        rest.nextAttempt = until
                        rest = try await save(rest)
                    }
                    report.waiting.append(rest)
                }
                break
            }
        }
        return report
    }

    /// Why a run stops.
    private struct Stop {
        /// The credentials were refused, saying this.
        var credentials: String?
        /// The destination asks to wait until then.
        var rateLimitedUntil: Date?
    }

    /// One entry through its states; returns it as stored, and whether the run stops here.
    private func upload(_ start: WorkoutUpload, of workout: WorkoutRecord) async throws(WorkoutStoreError) -> (WorkoutUpload, Stop?) {
        // The entry as it stood before this attempt marked it sent: what a failure before the
        // file went out puts back.
        var before = start
        var entry = start
        do {
            if entry.state == .sending, let found = try await destination.find(workout) {
                return (try await finish(entry, .done(found)), nil)
            }
            if entry.state == .processing, let id = entry.processingID {
                return (try await wait(entry, processing: id, of: workout), nil)
            }
            let file: UploadFile
            do {
                file = try await destination.file(for: workout, in: store)
            } catch let error as UploadError {
                throw error
            } catch {
                // The store could not export it: what the server would get is not there to send.
                entry.state = .refused
                entry.lastError = "\(error)"
                return (try await save(entry), nil)
            }
            before = entry
            if before.state == .sending { before.state = .pending }  // asked, and the server has none
            entry.state = .sending
            entry.attempts += 1
            entry.format = file.format
            entry = try await save(entry)
            let outcome = try await destination.send(file, of: workout)
            entry = try await finish(entry, outcome)
            if case let .processing(id) = outcome { return (try await wait(entry, processing: id, of: workout), nil) }
            return (entry, nil)
        } catch let error as UploadError {
            return try await failed(entry, error, before: before)
        } catch let error as WorkoutStoreError {
            throw error
        } catch {
            // Cancelled, or the pause failed: the entry keeps what it says.
            let reason = error is CancellationError ? "interrupted" : "\(error)"
            return try await failed(entry, .unreachable(reason: reason, mayHaveArrived: entry.state == .sending), before: before)
        }
    }

    /// Polls an upload being processed, once a second at most, for up to ``processingWait``.
    private func wait(_ start: WorkoutUpload, processing id: String, of workout: WorkoutRecord) async throws -> WorkoutUpload {
        var entry = start
        var waited = Duration.zero
        while waited < processingWait {
            try await pause(.seconds(1))
            waited += .seconds(1)
            let outcome = try await destination.poll(id, of: workout)
            entry = try await finish(entry, outcome)
            if case .done = outcome { return entry }
        }
        return entry
    }

    private func finish(_ start: WorkoutUpload, _ outcome: UploadOutcome) async throws(WorkoutStoreError) -> WorkoutUpload {
        var entry = start
        switch outcome {
        case let .done(remote):
            entry.state = .done
            entry.remoteID = remote.id
            entry.remoteURL = remote.url
            entry.processingID = nil
            entry.lastError = nil
            entry.nextAttempt = nil
        case let .processing(id):
            entry.state = .processing
            entry.processingID = id
            entry.nextAttempt = nil
        }
        return try await save(entry)
    }

    /// Records `error` on `entry`; `before` is the entry as it stood before the file went out.
    private func failed(_ entry: WorkoutUpload, _ error: UploadError, before: WorkoutUpload) async throws(WorkoutStoreError) -> (WorkoutUpload, Stop?) {
        var next = entry
        next.lastError = error.description
        switch error {
        case let .unreachable(_, mayHaveArrived):
            // A file that went out may be at the server: it is asked about before it is sent again.
            if entry.state == .sending, !mayHaveArrived { next.state = before.state }
            next.nextAttempt = now().addingTimeInterval(Self.backOff(attempts: max(1, next.attempts)))
            return (try await save(next), nil)
        case let .refusedCredentials(reason):
            // Refused before the server took anything.
            if entry.state == .sending { next.state = before.state }
            return (try await save(next), Stop(credentials: reason))
        case .refused:
            next.state = .refused
            return (try await save(next), nil)
        case let .rateLimited(until, _):
            if entry.state == .sending { next.state = before.state }
            next.nextAttempt = until
            return (try await save(next), Stop(rateLimitedUntil: until))
        }
    }

    /// Writes the entry whether or not the run is cancelled: a cancelled upload must still say
    /// what became of its file (sent, or not), or the next run could send it twice or lose it.
    private func save(_ entry: WorkoutUpload) async throws(WorkoutStoreError) -> WorkoutUpload {
        let (store, time) = (store, now())
        let written = await Task { () async -> Result<WorkoutUpload?, WorkoutStoreError> in
            do throws(WorkoutStoreError) {
                return .success(try await store.updateUpload(entry, at: time))
            } catch {
                return .failure(error)
            }
        }.value
        return try written.get() ?? entry
    }

    /// Seconds to wait after the `attempts`-th failed attempt: 30 s doubling, at most an hour.
    static func backOff(attempts: Int) -> TimeInterval {
        min(3_600, 30 * pow(2, Double(max(0, attempts - 1))))
    }
}
