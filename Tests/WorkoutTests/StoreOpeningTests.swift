import Foundation
import GRDB
import GRDBSQLite
import LocationFacade
import Testing
import TestSupport
@testable import Workout
import WorkoutSimulators

/// Opening a store file: concurrent first opens, another program's database, a newer version's
/// store, a full disk.
@Suite("Opening a store file", .timeLimit(.minutes(1)))
struct StoreOpeningTests {
    func contents(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Several opens of a new file at once used to run the first migration twice ("table workout
    /// already exists", "duplicate column name: builder_owner"): one waits for the other's.
    @Test func openingANewStoreFromManyConnectionsAtOnceAlwaysWorks() async throws {
        for round in 0..<20 {
            let folder = try TemporaryFolder()
            let path = folder.file("store-\(round).sqlite")
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await WorkoutStore(path: path).workoutCount() }
                }
                for try await count in group { #expect(count == 0) }
            }
            let applied = try await DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
            #expect(applied.sorted() == WorkoutStore.migrations.map(\.name).sorted(), "each migration once")
        }
    }

    /// A migration that fails is named (it was "?").
    @Test func aFailingMigrationIsNamed() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("half.sqlite")
        // A store at v1 whose v2 cannot apply: its column is already there.
        try WorkoutStore.migrator(upTo: "v1").migrate(DatabaseQueue(path: path))
        try DatabaseQueue(path: path).write { try $0.execute(sql: "ALTER TABLE workout ADD COLUMN builder_owner TEXT") }
        #expect {
            try WorkoutStore(path: path)
        } throws: { error in
            guard case let .migrationFailed(_, migration, reason)? = error as? WorkoutStoreError else { return false }
            return migration == "v2" && reason.contains("duplicate column name: builder_owner")
        }
    }

    /// Another program's database was given our tables and switched to WAL: it is refused, and
    /// not one byte of it changes.
    @Test func anotherProgramsDatabaseIsRefusedAndLeftUnchanged() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("other.sqlite")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('keep me')")
        }
        let before = try contents(path)
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: path) }
        #expect(error?.description.contains("not a workout store but another program's database (tables: notes)") == true, "\(String(describing: error))")
        #expect(try contents(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "not switched to WAL")
        #expect(try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "delete")
    }

    /// A store written by a newer version (a migration this one does not know, or a user_version)
    /// is refused without a write, rather than opened and written by code that does not know it.
    @Test(arguments: ["INSERT INTO grdb_migrations (identifier) VALUES ('v9')", "PRAGMA user_version = 9"])
    func aNewerVersionsStoreIsRefusedAndLeftUnchanged(change: String) async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("newer.sqlite")
        let run = SyntheticRun(index: 3, points: 50)
        do {
            let store = try WorkoutStore(path: path)
            try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
        }
        try await DatabaseQueue(path: path).write { try $0.execute(sql: change) }
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let before = try contents(path)
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: path) }
        #expect(error?.description.contains("written by a newer version of swift-gps-facade") == true, "\(String(describing: error))")
        #expect(try contents(path) == before)
    }

    /// An empty file (as `touch` makes) is a new store.
    @Test func anEmptyFileBecomesAStore() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(try await WorkoutStore(path: path).workoutCount() == 0)
    }

    /// On a full disk the store used to fail to open at all (deleting the staged rows of a dead
    /// import failed): now it opens and reads, and the staged rows go at the next open that can
    /// write. The disk is a 2 MB tmpfs, so this runs where mounting one is allowed (as root).
    @Test(.enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root"))
    func aFullDiskStillReadsAndStagingGoesWhenThereIsRoom() async throws {
        let disk = try TinyDisk(megabytes: 2)
        defer { disk.unmount() }
        let path = disk.path + "/workouts.sqlite"
        let run = SyntheticRun(index: 5, points: 200)
        do {
            let store = try WorkoutStore(path: path)
            try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
        }
        // Staged rows of an import that died: an owner that is no process. (Written by a
        // connection that, as the store's do, leaves the write-ahead log's files in place.)
        var keepingWAL = Configuration()
        keepingWAL.prepareDatabase { db in
            var persist: Int32 = 1
            _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        }
        try await DatabasePool(path: path, configuration: keepingWAL).write { db in
            try db.execute(sql: "INSERT INTO route (workout, builder_owner, created_at) VALUES (NULL, '999999:1', 1700000000)")
            let route = db.lastInsertedRowID
            for ordinal in 0..<300 {
                try db.execute(
                    sql: "INSERT INTO route_point (route, ordinal, segment, time, latitude, longitude, fix) VALUES (?, ?, 0, ?, 51.5, 0, 3)",
                    arguments: [route, ordinal, 1_700_000_000.0 + Double(ordinal)])
            }
        }
        let filler = disk.path + "/filler"
        disk.fill(filler)

        let full = try WorkoutStore(path: path)
        #expect(try await full.workoutCount() == 1, "reads work on a full disk")
        #expect(try await full.storageCounts().stagedPoints == 300, "the staged rows stay, hidden")

        try FileManager.default.removeItem(atPath: filler)
        let roomy = try WorkoutStore(path: path)
        #expect(try await roomy.storageCounts().stagedPoints == 0, "gone at the next open that can write")
        #expect(try await roomy.workoutCount() == 1)
    }
}

extension StoreOpeningTests {
    /// A read-only folder gave "unable to open database file (SQLite code 14)" without the
    /// reason; a read-only store file blocked even listing. (Root ignores file permissions, so the
    /// file system itself is made read-only.)
    @Test(.enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root"))
    func aReadOnlyFileSystemReadsItsStoreAndSaysWhyANewOneCannotBeMade() async throws {
        let disk = try TinyDisk(megabytes: 4)
        defer { disk.unmount() }
        let path = disk.path + "/workouts.sqlite"
        let run = SyntheticRun(index: 7, points: 100)
        do {
            let store = try WorkoutStore(path: path)
            try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
        }
        try disk.remount(readOnly: true)
        let store = try WorkoutStore(path: path)
        #expect(try await store.workoutCount() == 1, "a read-only store is read")
        #expect(try await store.route(of: run.workout.id)?.pointCount == 100)
        let error = #expect(throws: WorkoutStoreError.self) { try WorkoutStore(path: disk.path + "/new.sqlite") }
        #expect(error?.description.contains("cannot create the store: the folder \(disk.path) is not writable (Read-only file system)") == true,
                "\(String(describing: error))")
    }
}
