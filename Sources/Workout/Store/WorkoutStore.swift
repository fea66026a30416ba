import Foundation
import GRDB
import GRDBSQLite
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
    /// Where reads go: the writer, or in a snapshot (``snapshot()``) a connection that sees the
    /// store as it was when the snapshot was taken.
    let reader: any DatabaseReader
    let faultHook: (any StoreFaultHook)?
    let logger: Logger

    /// Opens (creating if needed) the store at `path`, and brings its schema up to date.
    ///
    /// The store holds where and when a person ran, and their heart rate, so it is kept private:
    /// - A new store file is created 0600 whatever the umask, and so are its `-wal` and `-shm`
    ///   files (SQLite gives them the database file's mode). Its folder must exist.
    /// - An existing store keeps its permissions: its owner may have chosen them. When other users
    ///   can read or change it (a file readable or writable by group or others; its folder
    ///   writable by them, and not sticky as `/tmp` is), `logger` gets one warning, once per
    ///   process and store, with the path in `store.path` and the command that makes it private
    ///   in `store.fix` (`chmod 600 PATH PATH-wal PATH-shm`, `chmod go-w FOLDER`). A folder
    ///   others can only read (0755) is not warned about: it shows them file names, not workouts.
    ///
    /// Throws ``WorkoutStoreError/cannotOpen(path:reason:)`` when the file cannot be opened (its
    /// folder is missing, it is not a SQLite database, permissions), and
    /// ``WorkoutStoreError/migrationFailed(path:migration:reason:)`` when the schema cannot be updated.
    public convenience init(path: String, logger: Logger = WorkoutStore.defaultLogger) throws(WorkoutStoreError) {
        try self.init(path: path, faultHook: nil, logger: logger)
    }

    /// Opens (creating if needed) the store at ``defaultPath(environment:)``, creating its folder.
    ///
    /// The folders it creates, `swift-gps-facade` and any missing one above it (such as
    /// `~/.local/share`), are 0700 whatever the umask, as the XDG base directory spec asks of the
    /// folders a program creates there; folders that exist keep their permissions. The store file
    /// is private as ``init(path:logger:)`` says.
    public convenience init(logger: Logger = WorkoutStore.defaultLogger) throws(WorkoutStoreError) {
        let path = Self.defaultPath()
        try Self.createPrivateFolder((path as NSString).deletingLastPathComponent, forStoreAt: path)
        try self.init(path: path, faultHook: nil, logger: logger)
    }

    /// A new, empty store in memory, for tests and scratch work. It disappears with the value.
    public static func inMemory(logger: Logger = WorkoutStore.defaultLogger) throws(WorkoutStoreError) -> WorkoutStore {
        try WorkoutStore(path: nil, faultHook: nil, logger: logger)
    }

    /// Opens a store at `path` (`nil`: in memory) with `faultHook` asked at every fault point.
    ///
    /// A file is looked at before anything is written to it: a database of another program, or a
    /// store of a newer version, is refused and left exactly as it was. A store on a read-only
    /// file (or file system) is opened for reading. Staged rows of ended processes are deleted
    /// when the store can be written to; on a full disk they stay (invisible) for the next open.
    package init(path: String?, faultHook: (any StoreFaultHook)?, logger: Logger) throws(WorkoutStoreError) {
        self.path = path
        self.faultHook = faultHook
        self.logger = logger
        var configuration = Configuration()
        configuration.label = "WorkoutStore"
        configuration.busyMode = .timeout(10)
        // The write-ahead log's files stay when the last connection closes (SQLite deletes them
        // by default): opening a WAL database, even to read it, needs its shared-memory file,
        // and on a full disk a new one cannot be made. Kept, it is there to read with.
        configuration.prepareDatabase { db in
            var persist: Int32 = 1
            _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        }
        // Another process creating or migrating the same file can hold it for a moment in ways
        // SQLite's busy timeout does not cover (switching a new file to WAL, recovering its WAL
        // index): the opening is tried again for as long as that timeout.
        var attempt = 0
        var opened: (writer: any DatabaseWriter, pending: [String], writable: Bool)
        while true {
            do {
                opened = try Self.connect(path: path, configuration: configuration, logger: logger)
                break
            } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) && attempt < 500 {
                attempt += 1
                usleep(20_000)
            } catch let error as WorkoutStoreError {
                throw error
            } catch {
                throw .cannotOpen(path: path ?? ":memory:", reason: Self.reason(error))
            }
        }
        writer = opened.writer
        reader = opened.writer
        if let path { warnIfNotPrivate(path) }
        let (pending, writable) = (opened.pending, opened.writable)
        guard writable else { return }
        if !pending.isEmpty { try applyMigrations() }
        try removeStagingOfEndedProcesses()
    }

    /// `store`, read through `reader` (a snapshot of it): see ``snapshot()``.
    init(viewing store: WorkoutStore, through reader: any DatabaseReader) {
        path = store.path
        faultHook = store.faultHook
        logger = store.logger
        writer = store.writer
        self.reader = reader
    }

    /// Opens the file at `path` (or memory): the writer, the migrations the file lacks, and
    /// whether it can be written.
    private static func connect(
        path: String?, configuration: Configuration, logger: Logger
    ) throws -> (writer: any DatabaseWriter, pending: [String], writable: Bool) {
        var configuration = configuration
        guard let path else { return (try DatabaseQueue(configuration: configuration), migrations.map(\.name), true) }
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
            throw WorkoutStoreError.cannotOpen(path: path, reason: "the folder \(folder) does not exist")
        }
        let exists = FileManager.default.fileExists(atPath: path)
        let folderWritable = access(folder.isEmpty ? "." : folder, W_OK) == 0
        if !exists && !folderWritable {
            throw WorkoutStoreError.cannotOpen(
                path: path, reason: "cannot create the store: the folder \(folder) is not writable (\(String(cString: strerror(errno))))")
        }
        let pending = exists ? try migrationsPending(inStoreAt: path, configuration: configuration) : migrations.map(\.name)
        if !exists || (access(path, W_OK) == 0 && folderWritable) {
            if !exists { try createPrivateFile(path) }
            do {
                return (try DatabasePool(path: path, configuration: configuration), pending, true)
            } catch let error as DatabaseError where exists && [.SQLITE_FULL, .SQLITE_IOERR].contains(error.resultCode) {
                // A full disk: no room for the write-ahead log's files. Read what is there.
                logger.warning("The workout store cannot be written (is the disk full?); opening it read-only", metadata: [
                    "store.path": "\(path)", "reason": "\(reason(error))",
                ])
            }
        }
        if let needed = pending.last {
            throw WorkoutStoreError.cannotOpen(path: path, reason: "the store needs schema \(needed) of this version, and it is read-only")
        }
        configuration.readonly = true
        logger.notice("Opening the workout store read-only", metadata: ["store.path": "\(path)"])
        return (try DatabaseQueue(path: path, configuration: configuration), pending, false)
    }

    /// The migrations a store file lacks, read without writing to it; throws when the file is
    /// another program's database, or a store written by a newer version (which this version must
    /// not write to). An empty database lacks them all.
    private static func migrationsPending(inStoreAt path: String, configuration: Configuration) throws -> [String] {
        var readOnly = configuration
        readOnly.readonly = true
        let known = migrations.map(\.name)
        let (tables, applied, userVersion) = try DatabaseQueue(path: path, configuration: readOnly).read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            let applied = tables.contains(migrationsTable)
                ? try String.fetchAll(db, sql: "SELECT identifier FROM \(migrationsTable)") : []
            let userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            return (tables, applied, userVersion)
        }
        if tables.isEmpty && userVersion == 0 { return known }
        let ours = applied.filter(known.contains)
        guard !ours.isEmpty else {
            let names = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", ..." : "")
            throw WorkoutStoreError.cannotOpen(
                path: path, reason: "it is not a workout store but another program's database (tables: \(names)); it was left unchanged")
        }
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty || userVersion != 0 {
            let newer = unknown.isEmpty ? "user_version \(userVersion)" : "schema \(unknown.sorted().joined(separator: ", "))"
            throw WorkoutStoreError.cannotOpen(
                path: path,
                reason: "it was written by a newer version of swift-gps-facade (\(newer)); this version knows schema "
                    + "\(known.joined(separator: ", ")) and leaves the store unchanged: update swift-gps-facade to open it")
        }
        return known.filter { !ours.contains($0) }
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
                // A session's staging stays for recovery (interruptedSessions()).
                for owner in owners where !owner.hasPrefix("session:") && !(StagingOwner(owner)?.isAlive ?? false) {
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
        } catch let error as DatabaseError
            where [.SQLITE_FULL, .SQLITE_READONLY, .SQLITE_IOERR].contains(error.resultCode) {
            // A full disk (or a file system gone read-only) must not stop the store being read:
            // the staged rows are invisible, and go at the next open that can write.
            logger.warning("Could not remove the unfinished routes and workouts of ended processes; they stay hidden until the next open", metadata: [
                "store.path": "\(path ?? ":memory:")", "reason": "\(Self.reason(error))",
            ])
        } catch {
            throw .databaseFailed(operation: .open, path: path, reason: Self.reason(error))
        }
    }
}
