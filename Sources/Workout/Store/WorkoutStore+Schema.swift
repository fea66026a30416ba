import GRDB

extension WorkoutStore {
    /// The schema's migrations, in order. Each is registered once under its name and never edited
    /// after it ships: a change to the schema is a new migration ("v2", ...) appended here.
    ///
    /// ## v1
    /// - `workout`: one row per workout. `id` is an integer key the other tables point to (compact
    ///   in a million route rows); `uuid` is the workout's public id (16-byte blob).
    ///   `external_id` is unique, so an importer finds what it imported before. Times are REAL
    ///   seconds since 1970 (`datetime(start_time, 'unixepoch')` in the sqlite3 shell).
    /// - `quantity_sample`: keyed by (workout, type, start, end), clustered so a workout's samples
    ///   of one type are read in time order from one range of the table.
    /// - `route`: one row per route. While a ``RouteBuilder`` fills it, `workout` is NULL and
    ///   `builder_owner` names the building process ("staging": invisible to every query);
    ///   finishing the route sets `workout` and clears `builder_owner` in one statement.
    /// - `route_point`: one row per point, keyed by (route, ordinal) without a rowid, so a route
    ///   is one contiguous range read in order by keyset pagination on `ordinal`. `fix` packs the
    ///   fix mode (bits 0-1, gpsd's 1-3), the status (bits 2-5, gpsd's 1-9, 0 unknown) and
    ///   whether it was simulated (bit 6).
    ///
    /// ## v2
    /// - `workout.builder_owner`: set while a workout is staged, as a route is: the GPX importer
    ///   writes a long track's samples as it reads the track, under a workout row that no query
    ///   sees until the import of that track commits (one `UPDATE` fills in its fields and clears
    ///   `builder_owner`). Staged rows of ended processes are deleted when the store opens, with
    ///   their samples (by cascade).
    /// - `route_point_extension`: a point's GPX extensions that no known namespace claimed, as XML,
    ///   kept from an import so an export writes them back. Keyed like `route_point`; deleted
    ///   with the route.
    ///
    /// ## v3
    /// - `workout_event`: a recorded session's events (pause, resume, motion paused and resumed,
    ///   lap, marker) in order, with their times; a workout's laps are the spans between its lap
    ///   events. Deleted with the workout.
    ///
    /// ## v4
    /// - `workout_event.lap_trigger`: what ended a lap (`manual`, `distance`, `time`), as TCX's
    ///   `TriggerMethod`; a recovered session makes its auto-laps again and keeps the manual ones.
    /// - `workout_session`: the configuration a session was recorded with (JSON, its
    ///   `WorkoutSession.Configuration` whole: activity, auto-pause, auto-laps, fix rules, metadata,
    ///   end timeout, held bound), written when it is staged, so that a session resumed or
    ///   ended after a crash is worked out as it was recorded, and kept with the workout (its
    ///   laps, splits and GPX export apply the same accuracy limit). Deleted with the workout.
    ///
    /// ## v5
    /// - `workout.duration` is the time not paused by the user (HealthKit's and FIT's duration)
    ///   for every workout. Recorded sessions stored their elapsed time there, and FIT and TCX
    ///   imports left it NULL (read as the elapsed time): a workout with `pause` events whose
    ///   duration is NULL or its elapsed time gets its elapsed time less its pauses (each from a
    ///   `pause` to the next `resume`, or the end), and keeps what it had in its metadata under
    ///   `migrated.v5.duration_was_s` (`null` for NULL). The store logs how many it changed.
    ///
    /// ## v6
    /// - `workout_upload`: the upload queue, one row per workout and destination (its
    ///   ``WorkoutUpload/destination`` text, `fittrackee://host:port`, `strava`): the state
    ///   (`pending`, `sending`, `processing`, `done`, `refused`), the attempts, the last error, the
    ///   next try, the file format sent, what the server gave back (its id and URL, or the id of
    ///   an upload it is still processing) and when the row was queued and last changed. A row in
    ///   `sending` is an upload whose outcome is not known (the process died, or the exchange
    ///   broke after the file went out): the next attempt asks the server before it sends.
    ///   Deleted with the workout.
    package static let migrations: [(name: String, sql: String)] = [
        ("v1", """
            CREATE TABLE workout (
                id INTEGER PRIMARY KEY,
                uuid BLOB NOT NULL UNIQUE CHECK (length(uuid) = 16),
                activity_type TEXT NOT NULL,
                start_time REAL NOT NULL,
                end_time REAL NOT NULL CHECK (end_time >= start_time),
                duration REAL,
                moving_time REAL,
                distance REAL,
                elevation_gain REAL,
                elevation_loss REAL,
                energy REAL,
                indoor INTEGER,
                source_device TEXT,
                source_app TEXT,
                external_id TEXT UNIQUE,
                metadata TEXT NOT NULL DEFAULT '{}',
                saved_at REAL NOT NULL
            );
            CREATE INDEX workout_by_start ON workout (start_time);
            CREATE INDEX workout_by_activity ON workout (activity_type, start_time);
            CREATE TABLE quantity_sample (
                workout INTEGER NOT NULL REFERENCES workout (id) ON DELETE CASCADE,
                type TEXT NOT NULL,
                start_time REAL NOT NULL,
                end_time REAL NOT NULL,
                value REAL NOT NULL,
                PRIMARY KEY (workout, type, start_time, end_time)
            ) WITHOUT ROWID;
            CREATE TABLE route (
                id INTEGER PRIMARY KEY,
                workout INTEGER UNIQUE REFERENCES workout (id) ON DELETE CASCADE,
                builder_owner TEXT,
                point_count INTEGER NOT NULL DEFAULT 0,
                segment_count INTEGER NOT NULL DEFAULT 0,
                start_time REAL,
                end_time REAL,
                dropped_duplicates INTEGER NOT NULL DEFAULT 0,
                metadata TEXT NOT NULL DEFAULT '{}',
                created_at REAL NOT NULL,
                CHECK ((workout IS NULL) <> (builder_owner IS NULL))
            );
            CREATE INDEX route_by_builder_owner ON route (builder_owner) WHERE builder_owner IS NOT NULL;
            CREATE TABLE route_point (
                route INTEGER NOT NULL REFERENCES route (id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL,
                segment INTEGER NOT NULL,
                time REAL NOT NULL,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                altitude REAL,
                altitude_hae REAL,
                h_accuracy REAL,
                v_accuracy REAL,
                speed REAL,
                speed_accuracy REAL,
                course REAL,
                course_accuracy REAL,
                fix INTEGER NOT NULL,
                PRIMARY KEY (route, ordinal)
            ) WITHOUT ROWID;
            """),
        ("v2", """
            ALTER TABLE workout ADD COLUMN builder_owner TEXT;
            CREATE INDEX workout_by_builder_owner ON workout (builder_owner) WHERE builder_owner IS NOT NULL;
            CREATE TABLE route_point_extension (
                route INTEGER NOT NULL REFERENCES route (id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL,
                xml TEXT NOT NULL,
                PRIMARY KEY (route, ordinal)
            ) WITHOUT ROWID;
            """),
        ("v3", """
            CREATE TABLE workout_event (
                workout INTEGER NOT NULL REFERENCES workout (id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL,
                type TEXT NOT NULL,
                time REAL NOT NULL,
                name TEXT,
                PRIMARY KEY (workout, ordinal)
            ) WITHOUT ROWID;
            """),
        ("v4", """
            ALTER TABLE workout_event ADD COLUMN lap_trigger TEXT;
            CREATE TABLE workout_session (
                workout INTEGER PRIMARY KEY REFERENCES workout (id) ON DELETE CASCADE,
                configuration TEXT NOT NULL
            );
            """),
        ("v5", """
            CREATE TEMP TABLE v5_duration AS
                SELECT w.id AS workout, w.duration AS old, max(0, (w.end_time - w.start_time) - coalesce((
                    SELECT sum(coalesce((
                        SELECT min(r.time) FROM workout_event r WHERE r.workout = p.workout AND r.ordinal > p.ordinal AND r.type = 'resume'
                    ), w.end_time) - p.time)
                    FROM workout_event p WHERE p.workout = w.id AND p.type = 'pause'), 0)) AS new
                FROM workout w
                WHERE EXISTS (SELECT 1 FROM workout_event e WHERE e.workout = w.id AND e.type = 'pause')
                    AND (w.duration IS NULL OR abs(w.duration - (w.end_time - w.start_time)) < 1e-6);
            UPDATE workout SET
                duration = (SELECT new FROM v5_duration WHERE v5_duration.workout = workout.id),
                metadata = json_set(metadata, '$."migrated.v5.duration_was_s"',
                    (SELECT CASE WHEN old IS NULL THEN 'null' ELSE printf('%.3f', old) END FROM v5_duration WHERE v5_duration.workout = workout.id))
                WHERE id IN (SELECT workout FROM v5_duration);
            """),
        ("v6", """
            CREATE TABLE workout_upload (
                workout INTEGER NOT NULL REFERENCES workout (id) ON DELETE CASCADE,
                destination TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'processing', 'done', 'refused')),
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                next_attempt REAL,
                format TEXT,
                remote_id TEXT,
                remote_url TEXT,
                processing_id TEXT,
                enqueued_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                PRIMARY KEY (workout, destination)
            ) WITHOUT ROWID;
            CREATE INDEX workout_upload_by_state ON workout_upload (destination, state);
            """),
    ]

    /// What a migration changed, in words, for the log (`nil`: nothing worth saying), read in
    /// its transaction right after it ran.
    static func migrationNote(_ name: String, in db: Database) throws -> String? {
        guard name == "v5" else { return nil }
        let changed = try Int.fetchOne(db, sql: "SELECT count(*) FROM temp.v5_duration") ?? 0
        try db.execute(sql: "DROP TABLE temp.v5_duration")
        guard changed > 0 else { return nil }
        return "the duration of \(changed) workout\(changed == 1 ? "" : "s") with pauses was the elapsed time (or unset) "
            + "and is now the time not paused; the old value is in each one's metadata, migrated.v5.duration_was_s"
    }

    /// The migrator for ``migrations``; `upTo` stops after the named one (for schema tests).
    package static func migrator(upTo last: String? = nil) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (name, sql) in migrations {
            migrator.registerMigration(name) { db in
                try db.execute(sql: sql)
                _ = try migrationNote(name, in: db)
            }
            if name == last { break }
        }
        return migrator
    }

    /// The table that records the migrations applied: GRDB's `DatabaseMigrator` table, so every
    /// store written so far reads the same.
    static let migrationsTable = "grdb_migrations"

    /// Applies the migrations a store lacks, all in one `BEGIN IMMEDIATE` transaction that first
    /// reads which are applied: a process that opens a new store at the same moment as another
    /// waits for the other's transaction, then finds the migrations applied and applies nothing.
    ///
    /// (GRDB's `DatabaseMigrator` reads what is applied before its transactions, one per
    /// migration, so two processes opening a new store together both ran v1, and one failed with
    /// "table workout already exists". The migrations, their names and their table are the same.)
    ///
    /// - Throws: ``WorkoutStoreError/migrationFailed(path:migration:reason:)`` naming the
    ///   migration that failed; nothing of the transaction is kept.
    func applyMigrations() throws(WorkoutStoreError) {
        var current = "(reading the applied migrations)"
        var notes: [(String, String)] = []
        do {
            try writer.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(Self.migrationsTable) (identifier TEXT NOT NULL PRIMARY KEY)")
                    let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM \(Self.migrationsTable)"))
                    for (name, sql) in Self.migrations where !applied.contains(name) {
                        current = name
                        try db.execute(sql: sql)
                        if let note = try Self.migrationNote(name, in: db) { notes.append((name, note)) }
                        try db.execute(sql: "INSERT INTO \(Self.migrationsTable) (identifier) VALUES (?)", arguments: [name])
                    }
                    return .commit
                }
            }
        } catch {
            throw .migrationFailed(path: path, migration: current, reason: Self.reason(error))
        }
        for (name, note) in notes {
            logger.notice("store migrated", metadata: ["store.path": "\(path ?? ":memory:")", "store.migration": "\(name)", "store.change": "\(note)"])
        }
    }
}
