import Foundation
import Workout

/// A server that takes workouts: FitTrackee, Strava, intervals.icu, or a test's stand-in.
///
/// A ``WorkoutUploader`` asks it, for each workout queued for it, what to send
/// (``file(for:in:)``), sends it (``send(_:of:)``), asks after an upload the server is still
/// processing (``poll(_:of:)``), and, where an earlier attempt's outcome is unknown, whether the
/// server has the workout already (``find(_:)``): that question is what keeps a workout from
/// arriving twice.
public protocol WorkoutUploadDestination: Sendable {
    /// The queue's name for it: `fittrackee://host:port`, `strava`, `intervals`.
    var name: String { get }

    /// The file (or none) to send for `workout`, exported from `store`.
    func file(for workout: WorkoutRecord, in store: WorkoutStore) async throws -> UploadFile

    /// Sends `file`, the export of `workout`.
    func send(_ file: UploadFile, of workout: WorkoutRecord) async throws(UploadError) -> UploadOutcome

    /// Asks after the upload `processingID`, which the server was still processing.
    func poll(_ processingID: String, of workout: WorkoutRecord) async throws(UploadError) -> UploadOutcome

    /// The workout at the server that is `workout`, if it has one: asked before sending again
    /// what may have arrived.
    func find(_ workout: WorkoutRecord) async throws(UploadError) -> RemoteWorkout?
}

extension WorkoutUploadDestination {
    public func poll(_ processingID: String, of workout: WorkoutRecord) async throws(UploadError) -> UploadOutcome {
        throw .refused(reason: "\(name) does not process uploads after taking them; upload \(processingID) cannot be asked after")
    }
}

/// What is sent for a workout: a file in one of the export formats, or none (a workout without
/// positions, to a server that takes its figures alone).
public struct UploadFile: Sendable {
    /// `gpx`, `fit`, `tcx`, or `none`.
    public var format: String
    /// The file's bytes (empty for `none`).
    public var data: Data

    public init(format: String, data: Data) {
        self.format = format
        self.data = data
    }
}

/// A workout at a destination.
public struct RemoteWorkout: Sendable, Hashable {
    /// Its id there.
    public var id: String
    /// Its page there, when the server says or it can be made from the id.
    public var url: String?

    public init(id: String, url: String? = nil) {
        self.id = id
        self.url = url
    }
}

/// What a destination did with a file.
public enum UploadOutcome: Sendable, Hashable {
    /// It has the workout.
    case done(RemoteWorkout)
    /// It took the file and is still working on it: ask again later with the id.
    case processing(id: String)
}

/// Why an upload did not go, and so what the uploader does next.
public enum UploadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No answer, or a broken exchange: tried again later. `mayHaveArrived` when the file had gone
    /// out (a timeout, a reset, a server error after the upload): the next attempt asks first.
    case unreachable(reason: String, mayHaveArrived: Bool)
    /// The server refused the credentials (after a refresh, where there is one): nothing more is
    /// sent to it until they are mended.
    case refusedCredentials(reason: String)
    /// The server refused the workout as data: sending it again would be refused again.
    case refused(reason: String)
    /// The server asks to wait (a rate limit) until `until`.
    case rateLimited(until: Date, reason: String)

    public var description: String {
        switch self {
        case let .unreachable(reason, _): reason
        case let .refusedCredentials(reason): reason
        case let .refused(reason): reason
        case let .rateLimited(until, reason): "\(reason); waiting until \(until.formatted(.iso8601))"
        }
    }
}

/// What the destinations that take a name and an id of ours (Strava, intervals.icu) are given.
enum UploadNames {
    /// `workout-<uuid>.fit`: the workout's own id, so every attempt carries the same.
    static func externalID(of workout: WorkoutRecord) -> String {
        "workout-\(workout.id.uuidString.lowercased()).fit"
    }

    /// "Running", "Cycling": the activity's name until its owner gives it one there.
    static func activityName(of workout: WorkoutRecord) -> String {
        let type = workout.activityType.rawValue
        return type.prefix(1).uppercased() + type.dropFirst()
    }
}
