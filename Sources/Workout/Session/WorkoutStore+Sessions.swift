import Foundation
import GRDB
import LocationFacade

/// A session recorded into the store as it goes: its workout row and route are staged (out of
/// sight of every query) under the owner `session:<session id>:<pid>:<process start>`, its points
/// and events written as they arrive. ``WorkoutSession/end()`` publishes them in one transaction;
/// after a crash they stay, as an ``InterruptedSession``, until they are ended or discarded.
extension WorkoutStore {
    /// What is known of a staged session, to write to it.
    struct SessionStaging: Sendable {
        var workoutKey: Int64
        var routeKey: Int64
    }

    static func sessionOwner(_ id: UUID) -> String {
        "session:\(id.uuidString):\(StagingOwner.current)"
    }

    /// The session id and process of a session owner, or `nil` for another kind of owner.
    static func sessionOwner(parsing owner: String) -> (id: UUID, process: StagingOwner?)? {
        guard owner.hasPrefix("session:") else { return nil }
        let parts = owner.dropFirst("session:".count).split(separator: ":", maxSplits: 1)
        guard let first = parts.first, let id = UUID(uuidString: String(first)) else { return nil }
        return (id, parts.count > 1 ? StagingOwner(String(parts[1])) : nil)
    }

    /// Stages a session's workout row and route.
    func beginSession(_ id: UUID, activity: WorkoutActivityType, start: Date, configuration: [String: String]) async throws(WorkoutStoreError) -> SessionStaging {
        let owner = Self.sessionOwner(id)
        return try await write(.save) { db in
            try db.execute(
                sql: "INSERT INTO workout (uuid, activity_type, start_time, end_time, metadata, saved_at, builder_owner) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [id, activity.rawValue, start.timeIntervalSince1970, start.timeIntervalSince1970,
                            WorkoutRows.encode(configuration), Date().timeIntervalSince1970, owner])
            let workoutKey = db.lastInsertedRowID
            try db.execute(sql: "INSERT INTO route (builder_owner, created_at) VALUES (?, ?)", arguments: [owner, Date().timeIntervalSince1970])
            return SessionStaging(workoutKey: workoutKey, routeKey: db.lastInsertedRowID)
        }
    }

    /// Writes a batch of a session's points (checked and planned by its accumulator) and events.
    func appendToSession(
        _ staging: SessionStaging, id: UUID, points: [(batch: [Location], plan: RouteAccumulator.Plan)],
        events: [(ordinal: Int, event: WorkoutEvent)], samples: [QuantitySample]
    ) async throws(WorkoutStoreError) {
        try Validation.check(samples, for: id, within: nil)
        try await write(.insertRouteData) { db in
            try self.insert(samples, workoutKey: staging.workoutKey, workoutID: id, in: db)
            for (batch, plan) in points {
                try self.insertPoints(batch, plan: plan, route: staging.routeKey, in: db)
            }
            for (ordinal, event) in events {
                try db.execute(
                    sql: "INSERT INTO workout_event (workout, ordinal, type, time, name) VALUES (?, ?, ?, ?, ?)",
                    arguments: [staging.workoutKey, ordinal, event.kind.rawValue, event.time.timeIntervalSince1970, event.name])
            }
        }
    }

    /// Publishes a staged session as `workout`, with its route's figures: one transaction.
    func publishSession(_ staging: SessionStaging, as workout: WorkoutRecord) async throws(WorkoutStoreError) {
        let path = path
        try await write(.finishRoute) { db in
            try Self.publish(staging, as: workout, path: path, in: db)
        }
    }

    private static func publish(_ staging: SessionStaging, as workout: WorkoutRecord, path: String?, in db: Database) throws {
        try WorkoutRows.publish(workout, stagedAs: staging.workoutKey, path: path, in: db)
        // Samples measured before the first fix or after the last are not the workout's.
        try db.execute(
            sql: "DELETE FROM quantity_sample WHERE workout = ? AND (start_time < ? OR end_time > ?)",
            arguments: [staging.workoutKey, workout.start.timeIntervalSince1970, workout.end.timeIntervalSince1970])
        let figures = try Row.fetchOne(db, sql: """
            SELECT count(*) AS points, max(segment) AS lastSegment, min(time) AS first, max(time) AS last
            FROM route_point WHERE route = ?
            """, arguments: [staging.routeKey])
        let points: Int = figures?["points"] ?? 0
        if points == 0 {
            try db.execute(sql: "DELETE FROM route WHERE id = ?", arguments: [staging.routeKey])
            return
        }
        let segments = (figures?["lastSegment"] as Int? ?? 0) + 1
        try db.execute(sql: """
            UPDATE route SET workout = ?, builder_owner = NULL, point_count = ?, segment_count = ?, start_time = ?, end_time = ?
            WHERE id = ? AND workout IS NULL
            """, arguments: [staging.workoutKey, points, segments, figures?["first"] as Double?, figures?["last"] as Double?, staging.routeKey])
    }

    /// Deletes a staged session: its workout row (with its events) and its route (with its points).
    func discardSession(owner: String) async throws(WorkoutStoreError) {
        try await write(.delete) { db in
            try db.execute(sql: "DELETE FROM route WHERE builder_owner = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM workout WHERE builder_owner = ?", arguments: [owner])
        }
    }

    // MARK: - Interrupted sessions

    /// The sessions whose process ended before they did (a crash, a kill, a power cut), oldest first.
    public func interruptedSessions() async throws(WorkoutStoreError) -> [InterruptedSession] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT workout.uuid, workout.activity_type, workout.start_time, workout.builder_owner,
                    (SELECT count(*) FROM route_point JOIN route ON route.id = route_point.route WHERE route.builder_owner = workout.builder_owner) AS points,
                    (SELECT max(time) FROM route_point JOIN route ON route.id = route_point.route WHERE route.builder_owner = workout.builder_owner) AS last
                FROM workout WHERE builder_owner LIKE 'session:%' ORDER BY start_time
                """).compactMap { row -> InterruptedSession? in
                let owner: String = row["builder_owner"]
                guard let parsed = Self.sessionOwner(parsing: owner), !(parsed.process?.isAlive ?? false) else { return nil }
                let start = Date(timeIntervalSince1970: row["start_time"])
                return InterruptedSession(
                    id: parsed.id, activityType: WorkoutActivityType(rawValue: row["activity_type"]) ?? .other, start: start,
                    lastFix: (row["last"] as Double?).map { Date(timeIntervalSince1970: $0) }, points: row["points"], owner: owner)
            }
        }
    }

    /// Ends an interrupted session: saves it as a workout with everything it had written (its
    /// totals worked out from its points and events, as the session works them out), in one
    /// transaction. Returns `nil` when it had no fix (it is discarded then).
    public func end(_ session: InterruptedSession) async throws(WorkoutStoreError) -> WorkoutRecord? {
        let owner = session.owner
        let staged = try await read { db -> (SessionStaging, WorkoutRecord, [RoutePoint], [WorkoutEvent])? in
            guard let workoutKey = try Int64.fetchOne(db, sql: "SELECT id FROM workout WHERE builder_owner = ?", arguments: [owner]),
                  let routeKey = try Int64.fetchOne(db, sql: "SELECT id FROM route WHERE builder_owner = ?", arguments: [owner]),
                  let row = try Row.fetchOne(db, sql: "SELECT \(WorkoutRows.columns) FROM workout WHERE id = ?", arguments: [workoutKey])
            else { return nil }
            let record = try WorkoutRows.decode(row, path: nil)
            let points = try Self.points(ofRoute: routeKey, in: db)
            let events = try Self.events(ofWorkoutKey: workoutKey, in: db)
            return (SessionStaging(workoutKey: workoutKey, routeKey: routeKey), record, points, events)
        }
        guard let (staging, record, points, events) = staged else { return nil }
        guard let last = points.last?.location.time else {
            try await discardSession(owner: owner)
            return nil
        }
        let end = max(last, events.last?.time ?? last)
        var workout = WorkoutRecord(id: record.id, activityType: record.activityType, start: record.start, end: end)
        let laps = SessionFigures.laps(of: workout, events: events.filter { $0.kind != .lap }, points: points, heartRate: [])
        let spans = SessionFigures.activeSpans(start: record.start, end: end, events: events)
        let active = SessionFigures.seconds(of: spans, within: record.start...end)
        // Elevation as the session counts it: the active points, a segment per stretch.
        var elevation = TrackStatistics()
        var segment: Int?
        for point in points where spans.contains(where: { $0.contains(point.location.time ?? .distantPast) }) {
            if point.segment != segment {
                elevation.startSegment()
                segment = point.segment
            }
            elevation.add(point.location)
        }
        let climbed = elevation.totals()
        workout.totals = WorkoutTotals(
            distance: laps.first?.distance ?? 0, duration: end.timeIntervalSince(record.start), movingTime: active,
            elevationGain: climbed.elevationGain ?? 0, elevationLoss: climbed.elevationLoss ?? 0)
        workout.metadata = record.metadata
        try await publishSession(staging, as: workout)
        return workout
    }

    /// A staged route's points, in order.
    private static func points(ofRoute key: Int64, in db: Database) throws -> [RoutePoint] {
        try Row.fetchAll(db, sql: "SELECT \(RoutePointRows.columns) FROM route_point WHERE route = ? ORDER BY ordinal", arguments: [key])
            .map(RoutePointRows.decode)
    }

    /// What a resumed session takes over: its staged rows and what it had written.
    struct SessionContents: Sendable {
        var staging: SessionStaging
        var record: WorkoutRecord
        var points: [RoutePoint]
        var events: [WorkoutEvent]
        var heartRate: [QuantitySample]
    }

    /// Makes an interrupted session this process's own again, in one transaction, and returns
    /// what it had written; `nil` when it is no longer interrupted (ended, discarded, resumed by
    /// another process, or its process is alive after all).
    func takeOver(_ session: InterruptedSession) async throws(WorkoutStoreError) -> SessionContents? {
        let (old, new) = (session.owner, Self.sessionOwner(session.id))
        let path = path
        return try await write(.save) { db -> SessionContents? in
            guard let parsed = Self.sessionOwner(parsing: old), !(parsed.process?.isAlive ?? false),
                  let workoutKey = try Int64.fetchOne(db, sql: "SELECT id FROM workout WHERE builder_owner = ?", arguments: [old]),
                  let routeKey = try Int64.fetchOne(db, sql: "SELECT id FROM route WHERE builder_owner = ?", arguments: [old])
            else { return nil }
            // Taken only from the owner read above: another process that took it first changed it.
            try db.execute(sql: "UPDATE workout SET builder_owner = ? WHERE id = ? AND builder_owner = ?", arguments: [new, workoutKey, old])
            guard db.changesCount == 1 else { return nil }
            try db.execute(sql: "UPDATE route SET builder_owner = ? WHERE id = ?", arguments: [new, routeKey])
            guard let row = try Row.fetchOne(db, sql: "SELECT \(WorkoutRows.columns) FROM workout WHERE id = ?", arguments: [workoutKey])
            else { return nil }
            let record = try WorkoutRows.decode(row, path: path)
            let points = try Self.points(ofRoute: routeKey, in: db)
            let events = try Self.events(ofWorkoutKey: workoutKey, in: db)
            let heartRate = try Row.fetchAll(
                db, sql: "SELECT type, start_time, end_time, value FROM quantity_sample WHERE workout = ? AND type = ? ORDER BY start_time",
                arguments: [workoutKey, QuantityType.heartRate.rawValue]
            ).compactMap(SampleRows.decode)
            return SessionContents(
                staging: SessionStaging(workoutKey: workoutKey, routeKey: routeKey), record: record, points: points,
                events: events, heartRate: heartRate)
        }
    }

    /// Discards an interrupted session and everything it had written.
    public func discard(_ session: InterruptedSession) async throws(WorkoutStoreError) {
        try await discardSession(owner: session.owner)
    }
}

/// A session whose process ended before it did: what it had written is in the store, out of
/// sight, until ``WorkoutStore/end(_:)`` saves it as a workout or ``WorkoutStore/discard(_:)``
/// deletes it.
public struct InterruptedSession: Sendable, Hashable {
    /// The session's id, which its workout keeps.
    public var id: UUID
    public var activityType: WorkoutActivityType
    public var start: Date
    /// The time of the last fix written, if any.
    public var lastFix: Date?
    /// How many route points were written.
    public var points: Int
    let owner: String
}
