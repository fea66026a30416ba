import Foundation
import GRDB

/// Checking a store's file, and counting what it holds (for tests of the store's guarantees).
extension WorkoutStore {
    /// Runs SQLite's `PRAGMA integrity_check` and the store's own foreign-key check; returns the
    /// problems found, or an empty array for a sound store.
    public func checkIntegrity() async throws(WorkoutStoreError) -> [String] {
        try await read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { row in
                "a row of \(row["table"] as String) points to a missing \(row["parent"] as String)"
            }
            return integrity + foreignKeys
        }
    }

    /// Row counts of every table, and of staged (unfinished) routes and their points.
    package struct StorageCounts: Sendable, Hashable {
        package var workouts = 0
        package var samples = 0
        package var routes = 0
        package var points = 0
        package var stagedRoutes = 0
        package var stagedPoints = 0
        package var stagedWorkouts = 0
        package var stagedSamples = 0
    }

    /// What the store holds, counted in a write access so that every write queued before (such
    /// as a released builder's cleanup) has run.
    package func storageCounts() async throws(WorkoutStoreError) -> StorageCounts {
        try await write(.read) { db in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
            return StorageCounts(
                workouts: try count("SELECT count(*) FROM workout WHERE builder_owner IS NULL"),
                samples: try count("SELECT count(*) FROM quantity_sample JOIN workout ON workout.id = quantity_sample.workout WHERE workout.builder_owner IS NULL"),
                routes: try count("SELECT count(*) FROM route WHERE workout IS NOT NULL"),
                points: try count("SELECT count(*) FROM route_point JOIN route ON route.id = route_point.route WHERE route.workout IS NOT NULL"),
                stagedRoutes: try count("SELECT count(*) FROM route WHERE workout IS NULL"),
                stagedPoints: try count("SELECT count(*) FROM route_point JOIN route ON route.id = route_point.route WHERE route.workout IS NULL"),
                stagedWorkouts: try count("SELECT count(*) FROM workout WHERE builder_owner IS NOT NULL"),
                stagedSamples: try count("SELECT count(*) FROM quantity_sample JOIN workout ON workout.id = quantity_sample.workout WHERE workout.builder_owner IS NOT NULL"))
        }
    }

    /// Runs `body` on the store's database in a write access, for tests that need to set up
    /// what the API cannot (staging left by a dead process, a record from a newer version).
    package func withDatabase<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await writer.write(body)
    }
}
