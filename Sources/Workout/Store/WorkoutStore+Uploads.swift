import Foundation
import GRDB

/// A workout's upload to one destination, as the store's queue keeps it: queued with the workout,
/// in the same file, so it is as durable as the workout is.
public struct WorkoutUpload: Sendable, Hashable {
    /// Where an upload stands.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Queued, not sent yet (or sent and failed before the file went out): send it.
        case pending
        /// Being sent, or sent without an answer (the process died, the connection broke after
        /// the file went out): the server may have it. The next attempt asks it first.
        case sending
        /// The server took the file and is still working it out (Strava's upload status).
        case processing
        /// The server has it: ``WorkoutUpload/remoteID`` names it there.
        case done
        /// The server refused it as data (``WorkoutUpload/lastError`` says why): sending it again
        /// would be refused again. ``WorkoutStore/enqueueUpload(of:to:at:)`` queues it again.
        case refused
    }

    /// The workout.
    public var workoutID: UUID
    /// Where it goes: `fittrackee://host:port`, `strava`, `intervals`.
    public var destination: String
    public var state: State
    /// How many times it was sent.
    public var attempts: Int
    /// Why the last attempt failed, or why the server refused it.
    public var lastError: String?
    /// When to try again after a failure (`nil`: at once).
    public var nextAttempt: Date?
    /// The file format sent (`gpx`, `fit`, `tcx`, or `none` for a workout without a file).
    public var format: String?
    /// The workout's id at the destination, once done.
    public var remoteID: String?
    /// The workout's page at the destination, once done.
    public var remoteURL: String?
    /// The id of an upload the server is still processing.
    public var processingID: String?
    public var enqueuedAt: Date
    public var updatedAt: Date

    /// Whether a sender has something to do with it now: pending, sending (to be asked about) or
    /// processing, and its next attempt due.
    public func isDue(at now: Date) -> Bool {
        guard [.pending, .sending, .processing].contains(state) else { return false }
        return nextAttempt.map { $0 <= now } ?? true
    }
}

extension WorkoutStore {
    /// Queues the workout `workoutID` for `destination`, and returns its entry. A workout already
    /// queued there keeps its entry as it is (an upload done stays done, one being sent keeps its
    /// state), except one the server refused, which is queued again from the start.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store has no such workout.
    @discardableResult
    public func enqueueUpload(of workoutID: UUID, to destination: String, at now: Date = Date()) async throws(WorkoutStoreError) -> WorkoutUpload {
        let found = try await write(.upload) { db -> WorkoutUpload? in
            guard let workout = try Int64.fetchOne(db, sql: "SELECT id FROM workout WHERE uuid = ? AND \(WorkoutRows.visible)", arguments: [workoutID]) else {
                return nil
            }
            let time = now.timeIntervalSince1970
            try db.execute(sql: """
                INSERT INTO workout_upload (workout, destination, state, enqueued_at, updated_at) VALUES (?, ?, 'pending', ?, ?)
                ON CONFLICT (workout, destination) DO UPDATE SET
                    state = 'pending', attempts = 0, last_error = NULL, next_attempt = NULL, updated_at = excluded.updated_at
                    WHERE state = 'refused'
                """, arguments: [workout, destination, time, time])
            return try Self.upload(workout: workout, destination: destination, in: db)
        }
        guard let found else { throw .workoutNotSaved(workoutID: workoutID, step: .upload) }
        return found
    }

    /// The upload queue: every entry, or those of `destination`, oldest queued first.
    public func uploads(to destination: String? = nil) async throws(WorkoutStoreError) -> [WorkoutUpload] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT u.*, w.uuid FROM workout_upload u JOIN workout w ON w.id = u.workout
                WHERE ?1 IS NULL OR u.destination = ?1 ORDER BY u.enqueued_at, w.start_time
                """, arguments: [destination]).compactMap(Self.upload(from:))
        }
    }

    /// Writes `upload`'s state, attempts, error, next try, format and what the server gave back
    /// (its `updatedAt` is set to `now`) in one transaction, and returns it as stored. Returns
    /// `nil` when its entry is gone (the workout was deleted meanwhile).
    @discardableResult
    package func updateUpload(_ upload: WorkoutUpload, at now: Date = Date()) async throws(WorkoutStoreError) -> WorkoutUpload? {
        try await write(.upload) { db -> WorkoutUpload? in
            guard let workout = try Int64.fetchOne(db, sql: "SELECT id FROM workout WHERE uuid = ?", arguments: [upload.workoutID]) else { return nil }
            try db.execute(sql: """
                UPDATE workout_upload SET state = ?, attempts = ?, last_error = ?, next_attempt = ?, format = ?, remote_id = ?,
                    remote_url = ?, processing_id = ?, updated_at = ?
                WHERE workout = ? AND destination = ?
                """, arguments: [
                    upload.state.rawValue, upload.attempts, upload.lastError, upload.nextAttempt?.timeIntervalSince1970, upload.format,
                    upload.remoteID, upload.remoteURL, upload.processingID, now.timeIntervalSince1970, workout, upload.destination,
                ])
            guard db.changesCount > 0 else { return nil }
            return try Self.upload(workout: workout, destination: upload.destination, in: db)
        }
    }

    private static func upload(workout: Int64, destination: String, in db: Database) throws -> WorkoutUpload? {
        try Row.fetchOne(db, sql: """
            SELECT u.*, w.uuid FROM workout_upload u JOIN workout w ON w.id = u.workout WHERE u.workout = ? AND u.destination = ?
            """, arguments: [workout, destination]).flatMap(upload(from:))
    }

    /// An entry from its row; `nil` for a state this version does not know (a newer store's).
    private static func upload(from row: Row) -> WorkoutUpload? {
        guard let state = WorkoutUpload.State(rawValue: row["state"]), let uuid = row["uuid"] as UUID? else { return nil }
        return WorkoutUpload(
            workoutID: uuid, destination: row["destination"], state: state, attempts: row["attempts"], lastError: row["last_error"],
            nextAttempt: (row["next_attempt"] as Double?).map(Date.init(timeIntervalSince1970:)), format: row["format"],
            remoteID: row["remote_id"], remoteURL: row["remote_url"], processingID: row["processing_id"],
            enqueuedAt: Date(timeIntervalSince1970: row["enqueued_at"]), updatedAt: Date(timeIntervalSince1970: row["updated_at"]))
    }
}
