import GPSCore
import GRDB

extension Outbox {
    /// The outbox's mark, SQLite's `application_id` ('GPSO'): a file without it is another
    /// program's, and is refused untouched.
    static let applicationID: Int32 = 0x4750_534F
    /// The schema version this code writes (SQLite's `user_version`): a version-1 file is brought
    /// up to it when opened, and a later version's file (3) is refused untouched.
    static let schemaVersion = 2

    /// Version 1:
    /// - `message`: one row per position; `time` and `created_at` are REAL seconds since 1970.
    /// - `pending`: one row per position and destination still waiting for it, keyed by
    ///   (destination, time, message) so the newest and oldest for a destination are one index probe.
    /// - `delivered`: per destination, the time of the newest position it acknowledged (for
    ///   ``DeliveryOrder/newestFirstThenBacklog``).
    /// - `counter`: `dropped`, positions dropped because the outbox was full.
    ///
    /// Version 2 adds to `message` a region transition's `event` (`enter`, `leave`), `region`
    /// and `region_time` (``RegionTransition``), `NULL` for a position.
    static func createSchema(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if version == 1 {
            try db.execute(sql: """
                ALTER TABLE message ADD COLUMN event TEXT;
                ALTER TABLE message ADD COLUMN region TEXT;
                ALTER TABLE message ADD COLUMN region_time REAL;
                PRAGMA user_version = \(schemaVersion);
                """)
            return
        }
        guard version == 0 else { return }
        try db.execute(sql: """
            CREATE TABLE message (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                time REAL NOT NULL,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                altitude REAL,
                h_accuracy REAL,
                v_accuracy REAL,
                speed REAL,
                course REAL,
                trigger TEXT NOT NULL,
                battery INTEGER,
                created_at REAL NOT NULL,
                event TEXT,
                region TEXT,
                region_time REAL
            );
            CREATE INDEX message_by_time ON message (time, id);
            CREATE TABLE pending (
                destination TEXT NOT NULL,
                time REAL NOT NULL,
                message INTEGER NOT NULL,
                PRIMARY KEY (destination, time, message)
            ) WITHOUT ROWID;
            CREATE INDEX pending_by_message ON pending (message);
            CREATE TABLE delivered (
                destination TEXT PRIMARY KEY,
                time REAL NOT NULL
            );
            CREATE TABLE counter (
                name TEXT PRIMARY KEY,
                value INTEGER NOT NULL
            );
            INSERT INTO counter (name, value) VALUES ('dropped', 0);
            PRAGMA application_id = \(applicationID);
            PRAGMA user_version = \(schemaVersion);
            """)
    }

    /// Looks at the file at `path` before anything is written to it: creates it 0600 when it is
    /// missing; refuses (untouched) a database that is not an outbox, or is a newer version's.
    static func checkFile(_ path: String, configuration: Configuration) throws {
        let folder = PrivateFiles.parent(of: path)
        var status = stat()
        if !folder.isEmpty, stat(folder, &status) != 0 || (status.st_mode & S_IFMT) != S_IFDIR {
            throw OutboxError.cannotOpen(path: path, reason: "the folder \(folder) does not exist")
        }
        guard stat(path, &status) == 0 else {
            do {
                try PrivateFiles.createFile(path)
            } catch {
                throw OutboxError.cannotOpen(path: path, reason: error.reason)
            }
            return
        }
        guard status.st_size > 0 else { return }
        var readOnly = configuration
        readOnly.readonly = true
        let (application, version, tables): (Int32, Int, [String])
        do {
            (application, version, tables) = try DatabaseQueue(path: path, configuration: readOnly).read { db in
                (
                    try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
                    try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                )
            }
        } catch {
            throw OutboxError.cannotOpen(path: path, reason: "it is not a SQLite database (\(reason(error))); it was left unchanged")
        }
        if application == 0 && version == 0 && tables.isEmpty { return }
        guard application == applicationID else {
            let names = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", ..." : "")
            throw OutboxError.cannotOpen(
                path: path, reason: "it is not an outbox but another program's database (tables: \(names)); it was left unchanged")
        }
        if version > schemaVersion {
            throw OutboxError.cannotOpen(
                path: path,
                reason: "it was written by a newer version of swift-gps-facade (outbox version \(version)); this version knows "
                    + "version \(schemaVersion) and leaves the file unchanged: update swift-gps-facade to open it")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
