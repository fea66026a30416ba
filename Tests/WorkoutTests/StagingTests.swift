import Foundation
import GRDB
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
import TestSupport
@testable import Workout

@Suite("An unfinished route builder leaves nothing visible and nothing behind")
struct StagingTests {
    @Test func stagedPointsAreInvisible() async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 20, points: 1_000)
        try await store.save(run.workout)
        let builder = RouteBuilder(store: store)
        try await builder.insertRouteData(run.route)
        #expect(try await store.route(of: run.workout.id) == nil)
        #expect(try await readRoute(store, run.workout.id).isEmpty)
        #expect(try await store.storageCounts() == .init(workouts: 1, stagedRoutes: 1, stagedPoints: 1_000))
        await builder.discard()
        #expect(try await store.storageCounts() == .init(workouts: 1))
    }

    @Test func aReleasedBuilderDeletesItsStaging() async throws {
        let store = try WorkoutStore.inMemory()
        let run = SyntheticRun(index: 21, points: 500)
        do {
            let builder = RouteBuilder(store: store)
            try await builder.insertRouteData(run.route)
            #expect(try await store.storageCounts().stagedPoints == 500)
        }
        // The builder is gone; its cleanup was queued before this write access, so it has run.
        #expect(try await store.storageCounts() == .init())
    }

    @Test func stagingOfAnEndedProcessIsDeletedWhenTheStoreOpens() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let ended = try ChildProcess("true", [])
        #expect(await ended.waitUntilExit() == 0)
        let deadOwner = StagingOwner(pid: ended.processIdentifier, start: StagingOwner.current.start)
        do {
            let store = try WorkoutStore(path: path)
            // One builder of this (live) process, and staging as a killed process leaves it.
            let live = RouteBuilder(store: store)
            try await live.insertRouteData(fixes(30, from: SyntheticTrack.defaultStartTime))
            try await store.withDatabase { db in
                try db.execute(sql: "INSERT INTO route (id, builder_owner, created_at) VALUES (99, ?, 0)", arguments: [deadOwner.description])
                for ordinal in 0..<40 {
                    try db.execute(
                        sql: "INSERT INTO route_point (route, ordinal, segment, time, latitude, longitude, fix) VALUES (99, ?, 0, ?, 51, 0, 3)",
                        arguments: [ordinal, Double(ordinal)])
                }
            }
            #expect(try await store.storageCounts() == .init(stagedRoutes: 2, stagedPoints: 70))
            let reopened = try WorkoutStore(path: path)
            #expect(try await reopened.storageCounts() == .init(stagedRoutes: 1, stagedPoints: 30))
            await live.discard()
        }
        #expect(try await WorkoutStore(path: path).storageCounts() == .init())
    }

    @Test func aProcessIsNamedByPidAndStartTime() async throws {
        let current = StagingOwner.current
        #expect(current.pid == getpid() && current.start > 0)
        #expect(current.isAlive)
        #expect(StagingOwner(current.description) == current)
        #expect(StagingOwner("12:x") == nil)
        // The same pid with another start time is another process: a pid reused after a crash.
        #expect(!StagingOwner(pid: getpid(), start: current.start + 1).isAlive)
        let child = try ChildProcess("cat", [])
        let running = StagingOwner(pid: child.processIdentifier, start: StagingOwner.startTime(of: child.processIdentifier) ?? 0)
        #expect(running.isAlive)
        child.closeInput()
        _ = await child.waitUntilExit()
        #expect(!running.isAlive)
    }
}

@Suite("The store file: WAL, named migrations never edited, where it lives")
struct StoreFileTests {
    /// The schema after each shipped migration, as `fixtures/workout-store/schema-NAME.sql` recorded
    /// it when the migration shipped (`UPDATE_FIXTURES=1` writes a missing one, never an existing one).
    @Test(arguments: ["v1", "v2", "v3", "v4", "v5", "v6"])
    func shippedSchemasAreFrozen(migration: String) throws {
        let queue = try DatabaseQueue()
        try WorkoutStore.migrator(upTo: migration).migrate(queue)
        let schema = try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT sql FROM sqlite_master
                WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations' ORDER BY name
                """).map { ($0[0] as String) + ";\n" }.joined()
        }
        let fixture = Repository.fixture("workout-store/schema-\(migration).sql")
        if ProcessInfo.processInfo.environment["UPDATE_FIXTURES"] == "1",
           !FileManager.default.fileExists(atPath: fixture.path) {
            try FileManager.default.createDirectory(at: fixture.deletingLastPathComponent(), withIntermediateDirectories: true)
            try schema.write(to: fixture, atomically: true, encoding: .utf8)
        }
        // A shipped migration is never edited: a schema change is a new migration.
        #expect(schema == (try String(contentsOf: fixture, encoding: .utf8)))
    }

    @Test func migrationsAreAppendedNeverReordered() {
        #expect(WorkoutStore.migrations.map(\.name) == ["v1", "v2", "v3", "v4", "v5", "v6"])
    }

    @Test func aV1StoreFileIsMigratedToTheLatestAndSavesAsBefore() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("old.sqlite")
        let run = SyntheticRun(index: 23, points: 50)
        do {
            let old = try DatabaseQueue(path: path)
            try WorkoutStore.migrator(upTo: "v1").migrate(old)
        }
        let v1 = try WorkoutStore(path: path)
        try await v1.saveWorkout(run.workout, samples: run.samples, route: run.route)
        let reopened = try WorkoutStore(path: path)
        try await expectComplete(run, in: reopened)
        let applied = try await reopened.withDatabase { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(applied == ["v1", "v2", "v3", "v4", "v5", "v6"])
    }

    @Test func aFileStoreUsesTheWriteAheadLogAndForeignKeys() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore(path: folder.file("w.sqlite"))
        let (journal, foreignKeys) = try await store.withDatabase { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"))
        }
        #expect(journal == "wal" && foreignKeys == true)
        #expect(try await store.checkIntegrity() == [])
    }

    @Test func aStoreKeepsItsWorkoutsAcrossOpens() async throws {
        let folder = try TemporaryFolder()
        let run = SyntheticRun(index: 22, points: 300)
        try await WorkoutStore(path: folder.file("w.sqlite")).saveWorkout(run.workout, samples: run.samples, route: run.route)
        try await expectComplete(run, in: try WorkoutStore(path: folder.file("w.sqlite")))
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(WorkoutStore.defaultPath(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/ann"])
            == "/data/swift-gps-facade/workouts.sqlite")
        #expect(WorkoutStore.defaultPath(environment: ["HOME": "/home/ann"])
            == "/home/ann/.local/share/swift-gps-facade/workouts.sqlite")
        // Empty or relative: ignored, as the XDG base directory specification says.
        #expect(WorkoutStore.defaultPath(environment: ["XDG_DATA_HOME": "", "HOME": "/home/ann"])
            == "/home/ann/.local/share/swift-gps-facade/workouts.sqlite")
        #expect(WorkoutStore.defaultPath(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/ann"])
            == "/home/ann/.local/share/swift-gps-facade/workouts.sqlite")
    }

    @Test func aStoreThatCannotOpenSaysWhereAndWhy() throws {
        let folder = try TemporaryFolder()
        let missing = folder.file("no/such/folder/w.sqlite")
        #expect(throws: WorkoutStoreError.cannotOpen(path: missing, reason: "the folder \(folder.path)/no/such/folder does not exist")) {
            try WorkoutStore(path: missing)
        }
        let garbage = folder.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 8_192).write(to: URL(fileURLWithPath: garbage))
        do {
            _ = try WorkoutStore(path: garbage)
            Issue.record("a file of garbage opened as a store")
        } catch {
            guard case let .cannotOpen(path, reason) = error else { throw Unexpected(error) }
            #expect(path == garbage && reason.contains("not a database"), "\(reason)")
        }
    }
}
