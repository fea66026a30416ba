import Foundation
import GRDB
import InMemoryLogging
import Logging
import Testing
import TestSupport
@testable import Workout

/// A store written before `duration` had one meaning (v4) opens and is migrated: a recorded
/// session had its elapsed time there and a FIT import nothing; both become the time not paused
/// by the user, the old value is kept in the workout's metadata, and the store says what it did.
@Suite struct DurationMigrationTests {
    /// A v4 store holding: a session with two pauses (duration = elapsed, as sessions saved it),
    /// a FIT import paused once until its end (duration NULL), a session never paused, and a
    /// workout an app saved with a duration of its own.
    func oldStore(at path: String) throws {
        try WorkoutStore.migrator(upTo: "v4").migrate(DatabaseQueue(path: path))
        try DatabaseQueue(path: path).write { db in
            func workout(_ key: Int, start: Double, end: Double, duration: Double?) throws {
                try db.execute(sql: """
                    INSERT INTO workout (id, uuid, activity_type, start_time, end_time, duration, moving_time, metadata, saved_at)
                    VALUES (?, ?, 'running', ?, ?, ?, NULL, '{"name":"w\(key)"}', 0)
                    """, arguments: [key, withUnsafeBytes(of: UUID().uuid) { Data($0) }, start, end, duration])
            }
            func event(_ key: Int, _ ordinal: Int, _ type: String, _ time: Double) throws {
                try db.execute(
                    sql: "INSERT INTO workout_event (workout, ordinal, type, time) VALUES (?, ?, ?, ?)", arguments: [key, ordinal, type, time])
            }
            try workout(1, start: 1_000, end: 4_600, duration: 3_600)
            try event(1, 0, "pause", 1_600)
            try event(1, 1, "motion_paused", 1_700)  // a stop inside the pause: its time is not counted twice
            try event(1, 2, "resume", 1_900)
            try event(1, 3, "motion_resumed", 2_000)
            try event(1, 4, "lap", 2_500)
            try event(1, 5, "pause", 4_000)
            try event(1, 6, "resume", 4_100)
            try workout(2, start: 10_000, end: 11_000, duration: nil)
            try event(2, 0, "pause", 10_900)
            try workout(3, start: 20_000, end: 21_000, duration: 1_000)
            try event(3, 0, "motion_paused", 20_100)
            try event(3, 1, "motion_resumed", 20_200)
            try workout(4, start: 30_000, end: 31_000, duration: 700)
            try event(4, 0, "pause", 30_100)
            try event(4, 1, "resume", 30_200)
        }
    }

    @Test func aStoreWhoseDurationWasTheElapsedTimeIsMigrated() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("old.sqlite")
        try oldStore(at: path)
        let log = InMemoryLogHandler()
        let store = try WorkoutStore(path: path, logger: Logger(label: "test") { _ in log })
        let byName = Dictionary(uniqueKeysWithValues: try await store.workouts().map { ($0.metadata.values["name"] ?? "", $0) })

        let session = try #require(byName["w1"])
        #expect(session.duration == 3_600 - 300 - 100, "the two pauses left out, the stop within one not twice")
        #expect(session.metadata.values["migrated.v5.duration_was_s"] == "3600.000")
        let imported = try #require(byName["w2"])
        #expect(imported.duration == 900, "paused until its end")
        #expect(imported.metadata.values["migrated.v5.duration_was_s"] == "null")
        let unpaused = try #require(byName["w3"])
        #expect(unpaused.duration == 1_000 && unpaused.metadata.values["migrated.v5.duration_was_s"] == nil, "no pause: nothing to change")
        let own = try #require(byName["w4"])
        #expect(own.duration == 700 && own.metadata.values["migrated.v5.duration_was_s"] == nil, "an app's own duration is kept")

        let notes = log.entries.filter { $0.metadata["store.migration"] == "v5" }
        #expect(notes.count == 1, "\(log.entries)")
        #expect(notes.first?.metadata["store.change"]?.description.hasPrefix("the duration of 2 workouts with pauses") == true)

        // Opened again, nothing more is migrated or said.
        let again = InMemoryLogHandler()
        _ = try WorkoutStore(path: path, logger: Logger(label: "test") { _ in again })
        #expect(again.entries.allSatisfy { $0.metadata["store.migration"] == nil })
    }
}
