import Foundation
import GRDB

/// Reading workouts, samples and routes back, and deleting a workout with everything attached.
/// Queries see only complete things: saved workouts, committed samples, finished routes.
extension WorkoutStore {
    /// The workouts that overlap `from..<to` (either end may be open), of `activityType` when
    /// given, oldest first. A workout overlaps when it starts before `to` and ends at or after
    /// `from`: a run across midnight belongs to both days.
    ///
    /// Throws ``WorkoutStoreError/unreadableRecord(path:reason:)`` naming the workout whose
    /// metadata column does not read (a damaged store), rather than showing it without.
    ///
    /// ```swift
    /// let today = try await store.workouts(from: midnight, to: midnight + 86_400, activityType: .running)
    /// ```
    public func workouts(
        from: Date? = nil, to: Date? = nil, activityType: WorkoutActivityType? = nil, limit: Int? = nil
    ) async throws(WorkoutStoreError) -> [WorkoutRecord] {
        var conditions = [WorkoutRows.visible]
        var arguments: StatementArguments = []
        if let to {
            conditions.append("start_time < ?")
            _ = arguments.append(contentsOf: [to.timeIntervalSince1970])
        }
        if let from {
            conditions.append("end_time >= ?")
            _ = arguments.append(contentsOf: [from.timeIntervalSince1970])
        }
        if let activityType {
            conditions.append("activity_type = ?")
            _ = arguments.append(contentsOf: [activityType.rawValue])
        }
        var sql = "SELECT \(WorkoutRows.columns) FROM workout"
        sql += " WHERE " + conditions.joined(separator: " AND ")
        sql += " ORDER BY start_time, id"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        let query = sql
        let queryArguments = arguments
        return try await read { db in try self.decodeWorkouts(Row.fetchAll(db, sql: query, arguments: queryArguments)) }
    }

    /// The workout with `id`, or `nil` when the store does not hold it.
    public func workout(id: UUID) async throws(WorkoutStoreError) -> WorkoutRecord? {
        try await read { db in
            try self.decodeWorkouts(Row.fetchAll(db, sql: "SELECT \(WorkoutRows.columns) FROM workout WHERE uuid = ? AND \(WorkoutRows.visible)", arguments: [id])).first
        }
    }

    /// The workout whose ``WorkoutMetadata/externalID`` is `externalID`, or `nil`: how an importer
    /// tells whether it imported something before.
    public func workout(externalID: String) async throws(WorkoutStoreError) -> WorkoutRecord? {
        try await read { db in
            try self.decodeWorkouts(Row.fetchAll(
                db, sql: "SELECT \(WorkoutRows.columns) FROM workout WHERE external_id = ? AND \(WorkoutRows.visible)", arguments: [externalID])).first
        }
    }

    /// The samples of a workout, of `type` when given, ordered by type, then start, then end.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold the workout.
    public func samples(of workoutID: UUID, type: QuantityType? = nil) async throws(WorkoutStoreError) -> [QuantitySample] {
        let path = path
        let samples = try await read { db -> [QuantitySample]? in
            guard let stored = try WorkoutRows.find(workoutID, in: db) else { return nil }
            var sql = "SELECT type, start_time, end_time, value FROM quantity_sample WHERE workout = ?"
            var arguments: StatementArguments = [stored.key]
            if let type {
                sql += " AND type = ?"
                _ = arguments.append(contentsOf: [type.rawValue])
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY type, start_time, end_time", arguments: arguments).map { row in
                try SampleRows.decode(row, of: workoutID, path: path)
            }
        }
        guard let samples else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        return samples
    }

    /// The finished route of a workout, or `nil` when it has none. Read its points with
    /// ``routePoints(of:batchSize:)``.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold the workout.
    public func route(of workoutID: UUID) async throws(WorkoutStoreError) -> WorkoutRoute? {
        let found = try await read { db -> WorkoutRoute?? in
            guard let stored = try WorkoutRows.find(workoutID, in: db) else { return nil }
            let row = try Row.fetchOne(db, sql: """
                SELECT point_count, segment_count, start_time, end_time, dropped_duplicates, metadata
                FROM route WHERE workout = ?
                """, arguments: [stored.key])
            return .some(try row.map { row in
                WorkoutRoute(
                    workoutID: workoutID, pointCount: row["point_count"], segmentCount: row["segment_count"],
                    start: Date(timeIntervalSince1970: row["start_time"]), end: Date(timeIntervalSince1970: row["end_time"]),
                    droppedDuplicates: row["dropped_duplicates"],
                    metadata: try WorkoutRows.decode(row["metadata"] as String, column: "route.metadata", of: "the route of workout \(workoutID)"))
            })
        }
        guard let found else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        return found
    }

    /// The points of a workout's route, `batchSize` at a time, as HealthKit's
    /// `HKWorkoutRouteQuery` delivers them; empty when the workout has no route. See ``RouteBatches``.
    public func routePoints(of workoutID: UUID, batchSize: Int = 1_000) -> RouteBatches {
        RouteBatches(store: self, workoutID: workoutID, batchSize: batchSize)
    }

    /// Deletes a workout with everything attached (samples, route, points), in one transaction.
    /// Returns `false` when the store did not hold it.
    @discardableResult
    public func deleteWorkout(id: UUID) async throws(WorkoutStoreError) -> Bool {
        try await write(.delete) { db in
            try db.execute(sql: "DELETE FROM workout WHERE uuid = ? AND \(WorkoutRows.visible)", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// How many workouts the store holds.
    public func workoutCount() async throws(WorkoutStoreError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM workout WHERE \(WorkoutRows.visible)") ?? 0 }
    }

    private func decodeWorkouts(_ rows: [Row]) throws(WorkoutStoreError) -> [WorkoutRecord] {
        var workouts: [WorkoutRecord] = []
        workouts.reserveCapacity(rows.count)
        for row in rows {
            workouts.append(try WorkoutRows.decode(row, path: path))
        }
        return workouts
    }
}
