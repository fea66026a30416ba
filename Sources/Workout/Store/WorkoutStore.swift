import Foundation
import GRDB
import Logging

/// Workouts, their samples and their routes in a SQLite file, saved with the same chain of awaits
/// as HealthKit, and never half saved.
///
/// ```swift
/// let store = try WorkoutStore()                     // $XDG_DATA_HOME/swift-gps-facade/workouts.sqlite
/// try await store.save(workout)
/// try await store.addSamples(heartRateSamples, to: workout)
/// let routeBuilder = RouteBuilder(store: store)
/// try await routeBuilder.insertRouteData(route)       // as many batches as needed
/// try await routeBuilder.finishRoute(with: workout, metadata: nil)
/// ```
///
/// ## What "never half saved" means
/// Every call is one SQLite transaction: it writes all it was asked to or nothing.
/// - ``save(_:)`` stores a complete workout row; ``addSamples(_:to:)`` adds all of its samples
///   or none. A chain interrupted between calls leaves the calls that returned, as HealthKit does.
/// - A ``RouteBuilder`` stages its points out of sight; ``RouteBuilder/finishRoute(with:metadata:)``
///   attaches them all at once. An unfinished builder's points are never visible, are deleted when
///   the builder is released, and are deleted when the store next opens if the process died.
/// - ``saveWorkout(_:samples:route:routeMetadata:)`` saves a whole run (workout, samples, route)
///   in one transaction, and finds it instead of saving it again when it is run twice.
/// - A process killed at any moment (kill -9) leaves a readable store: SQLite's write-ahead log
///   drops an uncommitted transaction, and stale staging is deleted at the next open.
///
/// ## Concurrency
/// The store is `Sendable`: call it from any number of tasks. A file store is a GRDB
/// `DatabasePool` in WAL mode: reads run in parallel with each other and with the one writer;
/// writes are serialized. Other processes may open the same file (they wait up to 10 s for a
/// write lock). An in-memory store (`inMemory()`) is a `DatabaseQueue`: private to the value,
/// every access serialized.
public final class WorkoutStore: Sendable {
    /// The store's file, or `nil` for an in-memory store.
    public let path: String?

    let writer: any DatabaseWriter
    let faultHook: (any StoreFaultHook)?
    let logger: Logger

    /// Opens (creating if needed) the store at `path`, and brings its schema up to date.
    ///
    /// Throws ``WorkoutStoreError/cannotOpen(path:reason:)`` when the file cannot be opened (its
    /// folder is missing, it is not a SQLite database, permissions), and
    /// ``WorkoutStoreError/migrationFailed(path:migration:reason:)`` when the schema cannot be updated.
    public convenience init(path: String, logger: Logger = WorkoutStore.defaultLogger) throws(WorkoutStoreError) {
        try self.init(path: path, faultHook: nil, logger: logger)
    }

    /// Opens (creating if needed) the store at ``defaultPath(environment:)``, creating its folder.
    public convenience init(logger: Logger = WorkoutStore.defaultLogger) throws(WorkoutStoreError) {
        let path = Self.defaultPath()
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path, reason: "cannot create the folder \(folder): \(error.localizedDescription)")
        }
        try self.init(path: path, faultHook: nil, logger: logger)
    }

    /// A new, empty store in memory, for tests and scratch work. It disappears with the value.
    public static func inMemory(logger: Logger = WorkoutStore.defaultLogger) throws(WorkoutStoreError) -> WorkoutStore {
        try WorkoutStore(path: nil, faultHook: nil, logger: logger)
    }

    /// Opens a store at `path` (`nil`: in memory) with `faultHook` asked at every fault point.
    package init(path: String?, faultHook: (any StoreFaultHook)?, logger: Logger) throws(WorkoutStoreError) {
        self.path = path
        self.faultHook = faultHook
        self.logger = logger
        var configuration = Configuration()
        configuration.label = "WorkoutStore"
        configuration.busyMode = .timeout(10)
        do {
            if let path {
                let folder = (path as NSString).deletingLastPathComponent
                var isFolder: ObjCBool = false
                if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
                    throw WorkoutStoreError.cannotOpen(path: path, reason: "the folder \(folder) does not exist")
                }
                writer = try DatabasePool(path: path, configuration: configuration)
            } else {
                writer = try DatabaseQueue(configuration: configuration)
            }
        } catch let error as WorkoutStoreError {
            throw error
        } catch {
            throw .cannotOpen(path: path ?? ":memory:", reason: Self.reason(error))
        }
        try migrate()
        try removeStagingOfEndedProcesses()
    }

    /// `$XDG_DATA_HOME/swift-gps-facade/workouts.sqlite`, or `~/.local/share/...` when
    /// `XDG_DATA_HOME` is unset, empty or not an absolute path (as the XDG base directory spec says).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var base = environment["XDG_DATA_HOME"] ?? ""
        if !base.hasPrefix("/") {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = (home as NSString).appendingPathComponent(".local/share")
        }
        return (base as NSString).appendingPathComponent("swift-gps-facade/workouts.sqlite")
    }

    /// The logger stores use unless given one: label `swift-gps-facade.workout-store`.
    public static var defaultLogger: Logger {
        Logger(label: "swift-gps-facade.workout-store")
    }

    private func migrate() throws(WorkoutStoreError) {
        let migrator = Self.migrator()
        do {
            try migrator.migrate(writer)
        } catch {
            let applied = (try? writer.read { try migrator.appliedMigrations($0) }) ?? []
            let failed = Self.migrations.map(\.name).first { !applied.contains($0) } ?? "?"
            throw .migrationFailed(path: path, migration: failed, reason: Self.reason(error))
        }
    }

    /// Deletes the staged points (and staged workouts with their samples) of route builders whose
    /// process has ended (killed, crashed):
    /// they can never be finished. Staging of live processes, this one included, is left alone.
    private func removeStagingOfEndedProcesses() throws(WorkoutStoreError) {
        do {
            let removed = try writer.write { db -> Int in
                let owners = try String.fetchAll(db, sql: """
                    SELECT builder_owner FROM route WHERE builder_owner IS NOT NULL
                    UNION SELECT builder_owner FROM workout WHERE builder_owner IS NOT NULL
                    """)
                var removed = 0
                for owner in owners where !(StagingOwner(owner)?.isAlive ?? false) {
                    try db.execute(sql: "DELETE FROM route WHERE builder_owner = ?", arguments: [owner])
                    removed += db.changesCount
                    try db.execute(sql: "DELETE FROM workout WHERE builder_owner = ?", arguments: [owner])
                    removed += db.changesCount
                }
                return removed
            }
            if removed > 0 {
                logger.notice("Removed unfinished routes and workouts left by ended processes", metadata: [
                    "store.path": "\(path ?? ":memory:")", "rows": "\(removed)",
                ])
            }
        } catch {
            throw .databaseFailed(operation: .open, path: path, reason: Self.reason(error))
        }
    }
}
