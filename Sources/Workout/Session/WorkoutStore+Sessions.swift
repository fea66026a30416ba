import Foundation
import GRDB
import LocationCore

/// A session recorded into the store as it goes: its workout row and route are staged (out of
/// sight of every query) under the owner `session:<session id>:<pid>:<process start>`, with its
/// configuration (the `workout_session` table), and its points, samples and events are written
/// as they come. ``WorkoutSession/end()`` publishes them in one transaction; after a crash they
/// stay, as an ``InterruptedSession``, until they are ended, resumed or discarded.
extension WorkoutStore {
    /// What is known of a staged session, to write to it.
    struct SessionStaging: Sendable, Hashable {
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

    /// Writes a batch of a session's rows in one transaction, staging the session first (its
    /// workout row, route and configuration) if it is not yet. Points already written (a retry
    /// after a failure that did commit) are left as they are; events are written by ordinal.
    func appendToSession(
        _ batch: WriteQueue.Batch, id: UUID, configuration: WorkoutSession.Configuration, inputIssues: [InputIssue: Int]
    ) async throws(WorkoutStoreError) -> SessionStaging {
        let owner = Self.sessionOwner(id)
        // Written once, with the session's first rows: encoding it for every write cost more
        // than the write (a strap sending 1,000 measurements a second).
        let configurationJSON = batch.staging == nil ? try Self.encode(configuration, of: id) : ""
        var metadata = configuration.metadata.values
        for (issue, count) in inputIssues where count > 0 { metadata[issue.metadataKey] = String(count) }
        let metadataJSON = WorkoutRows.encode(metadata)
        return try await write(.insertRouteData) { db in
            let staging: SessionStaging
            if let staged = batch.staging {
                staging = staged
                try db.execute(sql: "UPDATE workout SET metadata = ? WHERE id = ? AND metadata <> ?", arguments: [metadataJSON, staged.workoutKey, metadataJSON])
            } else {
                let now = Date().timeIntervalSince1970
                let indoor: Bool? = switch configuration.locationType {
                case .indoor: true
                case .outdoor: false
                case .unknown: nil
                }
                try db.execute(
                    sql: "INSERT INTO workout (uuid, activity_type, start_time, end_time, metadata, indoor, saved_at, builder_owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    arguments: [id, configuration.activityType.rawValue, batch.start.timeIntervalSince1970, batch.start.timeIntervalSince1970,
                                metadataJSON, indoor, now, owner])
                let workoutKey = db.lastInsertedRowID
                try db.execute(sql: "INSERT INTO workout_session (workout, configuration) VALUES (?, ?)", arguments: [workoutKey, configurationJSON])
                try db.execute(sql: "INSERT INTO route (builder_owner, created_at) VALUES (?, ?)", arguments: [owner, now])
                staging = SessionStaging(workoutKey: workoutKey, routeKey: db.lastInsertedRowID)
            }
            try self.reach(.begin(.insertRouteData))
            try self.insert(batch.samples, workoutKey: staging.workoutKey, workoutID: id, in: db)
            if !batch.points.isEmpty {
                var rows = RoutePointRows(route: staging.routeKey, count: batch.points.count, onConflict: "ON CONFLICT DO NOTHING", in: db)
                for (number, point) in batch.points.enumerated() {
                    try self.reach(.row(.insertRouteData, number: number + 1))
                    try rows.insert(ordinal: point.ordinal, segment: point.segment, point.location)
                }
            }
            for (ordinal, event) in batch.events {
                try Self.insert(event, ordinal: ordinal, workoutKey: staging.workoutKey, in: db)
            }
            return staging
        }
    }

    /// Publishes a staged session as its workout, in one transaction: its totals and metadata
    /// (worked out from what it wrote: ``SessionSettlement``), all its events (replacing those
    /// written as it went), its route's segments as the time line decided them, and its route's figures.
    func publishSession(_ staging: SessionStaging, _ settlement: SessionSettlement) async throws(WorkoutStoreError) -> WorkoutRecord {
        let path = path
        return try await write(.finishRoute) { db in
            try Self.publish(staging, settlement, path: path, in: db)
        }
    }

    private static func publish(
        _ staging: SessionStaging, _ settlement: SessionSettlement, path: String?, in db: Database
    ) throws -> WorkoutRecord {
        let publication = try publication(of: settlement, staging: staging, in: db)
        var workout = publication.workout
        if let external = publication.externalID,
           try Bool.fetchOne(db, sql: "SELECT 1 FROM workout WHERE external_id = ?", arguments: [external]) == nil {
            workout.metadata.externalID = external
        }
        try WorkoutRows.publish(workout, stagedAs: staging.workoutKey, path: path, in: db)
        try db.execute(sql: "DELETE FROM workout_event WHERE workout = ?", arguments: [staging.workoutKey])
        for (ordinal, event) in publication.events.enumerated() {
            try insert(event, ordinal: ordinal, workoutKey: staging.workoutKey, in: db)
        }
        for (index, start) in publication.segmentStarts.enumerated() {
            let next = index + 1 < publication.segmentStarts.count ? publication.segmentStarts[index + 1] : Int.max
            try db.execute(
                sql: "UPDATE route_point SET segment = ? WHERE route = ? AND ordinal >= ? AND ordinal < ? AND segment <> ?",
                arguments: [index, staging.routeKey, start, next, index])
        }
        try publishRoute(staging, of: workout, in: db)
        try queueUploads(of: workout, key: staging.workoutKey, in: db)
        return workout
    }

    /// Queues the uploads a session asked for (``WorkoutMetadata/uploadDestinationsKey``) in the
    /// transaction that saves it, so that no crash falls between the workout saved and its upload
    /// queued: `workout record --upload-to` asks at the start, and `workout recover --end` saves an
    /// interrupted session with the same queue.
    private static func queueUploads(of workout: WorkoutRecord, key: Int64, in db: Database) throws {
        let time = workout.end.timeIntervalSince1970
        for destination in workout.metadata.uploadDestinations {
            try db.execute(sql: """
                INSERT INTO workout_upload (workout, destination, state, enqueued_at, updated_at) VALUES (?, ?, 'pending', ?, ?)
                ON CONFLICT (workout, destination) DO NOTHING
                """, arguments: [key, destination, time, time])
        }
    }

    private static func publishRoute(_ staging: SessionStaging, of workout: WorkoutRecord, in db: Database) throws {
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

    /// Rewrites a staged session's events as `events`, in order: a resumed session's engine,
    /// rebuilt from what was written (with its configuration, or a new one), decides them again,
    /// and numbers the events it adds after these.
    func replaceSessionEvents(_ staging: SessionStaging, with events: [WorkoutEvent]) async throws(WorkoutStoreError) {
        try await write(.save) { db in
            try db.execute(sql: "DELETE FROM workout_event WHERE workout = ?", arguments: [staging.workoutKey])
            for (ordinal, event) in events.enumerated() {
                try Self.insert(event, ordinal: ordinal, workoutKey: staging.workoutKey, in: db)
            }
        }
    }

    static func insert(_ event: WorkoutEvent, ordinal: Int, workoutKey: Int64, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO workout_event (workout, ordinal, type, time, name, lap_trigger) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [workoutKey, ordinal, event.kind.rawValue, event.time.timeIntervalSince1970, event.name, event.trigger?.rawValue])
    }

    /// Deletes a staged session: its workout row (with its events, samples and configuration) and
    /// its route (with its points).
    func discardSession(owner: String) async throws(WorkoutStoreError) {
        try await write(.delete) { db in
            try db.execute(sql: "DELETE FROM route WHERE builder_owner = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM workout WHERE builder_owner = ?", arguments: [owner])
        }
    }

    // MARK: - Configuration

    /// Infinite limits (no limit) are written as the strings JSON lacks numbers for.
    private static let nonFinite = (positive: "Infinity", negative: "-Infinity", nan: "NaN")

    static func encode(_ configuration: WorkoutSession.Configuration, of id: UUID) throws(WorkoutStoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: nonFinite.positive, negativeInfinity: nonFinite.negative, nan: nonFinite.nan)
        // Every value of a configuration encodes (non-finite numbers as the strings above): a
        // failure here is a new field that does not, said as such rather than saved without it.
        do {
            return String(decoding: try encoder.encode(configuration), as: UTF8.self)
        } catch {
            throw .invalidWorkout(workoutID: id, reason: "its session's configuration could not be written as JSON: \(error)")
        }
    }

    /// The configuration a session was recorded with, or `nil` (imported, saved through the chain,
    /// or recorded by a version that did not keep it, or by a newer one this version cannot read).
    static func sessionConfiguration(ofWorkoutKey key: Int64, in db: Database) throws -> WorkoutSession.Configuration? {
        guard let json = try String.fetchOne(db, sql: "SELECT configuration FROM workout_session WHERE workout = ?", arguments: [key])
        else { return nil }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: nonFinite.positive, negativeInfinity: nonFinite.negative, nan: nonFinite.nan)
        return try? decoder.decode(WorkoutSession.Configuration.self, from: Data(json.utf8))  // a newer version's: none, as said above
    }

    // MARK: - Interrupted sessions

    /// The sessions whose process ended before they did (a crash, a kill, a power cut), oldest first.
    public func interruptedSessions() async throws(WorkoutStoreError) -> [InterruptedSession] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT workout.uuid, workout.activity_type, workout.start_time, workout.builder_owner, workout.indoor,
                    (SELECT count(*) FROM quantity_sample WHERE quantity_sample.workout = workout.id) AS samples,
                    (SELECT count(*) FROM route_point JOIN route ON route.id = route_point.route WHERE route.builder_owner = workout.builder_owner) AS points,
                    (SELECT max(time) FROM route_point JOIN route ON route.id = route_point.route WHERE route.builder_owner = workout.builder_owner) AS last
                FROM workout WHERE builder_owner LIKE 'session:%' ORDER BY start_time
                """).compactMap { row -> InterruptedSession? in
                let owner: String = row["builder_owner"]
                guard let parsed = Self.sessionOwner(parsing: owner), !(parsed.process?.isAlive ?? false) else { return nil }
                let start = Date(timeIntervalSince1970: row["start_time"])
                return InterruptedSession(
                    id: parsed.id, activityType: WorkoutActivityType(rawValue: row["activity_type"]) ?? .other, start: start,
                    lastFix: (row["last"] as Double?).map { Date(timeIntervalSince1970: $0) }, points: row["points"],
                    samples: row["samples"], isIndoor: row["indoor"], owner: owner)
            }
        }
    }

    /// Ends an interrupted session: saves it as a workout with everything it had written, in one
    /// transaction. Its figures are worked out as the live session worked them out: its points,
    /// its user's actions and its samples fed to the same engine, with the configuration it was
    /// recorded with (kept in the store), so the totals, auto-pauses and auto-laps are those it
    /// would have saved itself. Returns `nil` when it recorded nothing (no fix; indoors, no
    /// sample nor event): it is discarded then.
    public func end(_ session: InterruptedSession) async throws(WorkoutStoreError) -> WorkoutRecord? {
        let owner = session.owner
        let path = path
        // One transaction, from the owner read: a process that resumed it meanwhile keeps it.
        return try await write(.finishRoute) { db -> WorkoutRecord? in
            guard let parsed = Self.sessionOwner(parsing: owner), !(parsed.process?.isAlive ?? false),
                  let contents = try Self.sessionContents(owner: owner, path: path, in: db)
            else { return nil }
            guard contents.hasRecorded else {
                try db.execute(sql: "DELETE FROM route WHERE builder_owner = ?", arguments: [owner])
                try db.execute(sql: "DELETE FROM workout WHERE builder_owner = ?", arguments: [owner])
                return nil
            }
            var engine = contents.rebuiltEngine()
            _ = engine.finish()
            let configuration = contents.effectiveConfiguration
            let settlement = SessionSettlement(
                id: contents.record.id, configuration: configuration, events: engine.events, inputIssues: engine.admission.counts,
                start: engine.timeline.start ?? contents.record.start.timeIntervalSince1970,
                end: configuration.locationType == .indoor ? contents.lastRecorded : nil)
            return try Self.publish(contents.staging, settlement, path: path, in: db)
        }
    }

    /// Everything a staged session had written, read in one transaction.
    struct SessionContents: Sendable {
        var staging: SessionStaging
        var record: WorkoutRecord
        /// `nil` for a session recorded before configurations were kept.
        var configuration: WorkoutSession.Configuration?
        var points: [RoutePoint]
        var events: [WorkoutEvent]
        var samples: [QuantitySample]
        var inputIssues: [InputIssue: Int]

        /// The configuration to record on with: the stored one, or for a session stored without
        /// one, its activity and metadata with nothing automatic (its events are taken as written).
        var effectiveConfiguration: WorkoutSession.Configuration {
            var configuration = configuration ?? WorkoutSession.Configuration(activityType: record.activityType)
            configuration.activityType = record.activityType
            configuration.metadata.values = record.metadata.values.filter { !$0.key.hasPrefix("input.") }
            return configuration
        }

        /// Whether it recorded anything to save: a fix, or indoors a sample or an event.
        var hasRecorded: Bool {
            !points.isEmpty || (effectiveConfiguration.locationType == .indoor && (!samples.isEmpty || !events.isEmpty))
        }

        /// The time of the last thing it wrote (a point, the end of a sample, an event).
        var lastRecorded: Double? {
            let times = [points.last?.location.time?.timeIntervalSince1970, samples.map(\.end).max()?.timeIntervalSince1970,
                         events.last?.time.timeIntervalSince1970].compactMap { $0 }
            return times.max()
        }

        /// The engine as the live session had it: fed every point written, the user's actions at
        /// their times (each after the point at its time) and the samples, in time order (a
        /// sample after the points up to its end, before the events at its time). A session stored
        /// without a configuration is fed every event as written instead, with nothing made again.
        func rebuiltEngine() -> SessionEngine {
            var configuration = effectiveConfiguration
            let derives = self.configuration != nil
            if !derives {
                configuration.autoPause = nil
                configuration.autoLapDistance = nil
                configuration.autoLapTime = nil
                configuration.fixRules.maximumHorizontalAccuracy = .infinity
            }
            var engine = SessionEngine(configuration: configuration)
            if engine.isIndoor { _ = engine.begin(at: record.start.timeIntervalSince1970) }
            // Admission goes on after the points written (they are replayed past it); the samples go through it again.
            engine.continueAdmission(after: points.map(TimelinePoint.init), counts: inputIssues)
            let given = derives ? events.filter(\.isUserAction) : events
            let byEnd = samples.sorted {
                (SensorReading.placement(of: $0), $0.start, $0.type.rawValue) < (SensorReading.placement(of: $1), $1.start, $1.type.rawValue)
            }
            var nextEvent = given.startIndex
            var nextSample = byEnd.startIndex
            func replay(until time: Double) {
                while true {
                    let sampleTime = nextSample < byEnd.endIndex ? SensorReading.placement(of: byEnd[nextSample]) : .infinity
                    let eventTime = nextEvent < given.endIndex ? given[nextEvent].time.timeIntervalSince1970 : .infinity
                    if sampleTime < time, sampleTime <= eventTime {
                        _ = engine.take(byEnd[nextSample])
                        nextSample += 1
                    } else if eventTime < time {
                        engine.replay(given[nextEvent])
                        nextEvent += 1
                    } else {
                        return
                    }
                }
            }
            for point in points {
                replay(until: point.location.time?.timeIntervalSince1970 ?? 0)
                engine.replay(TimelinePoint(point))
            }
            replay(until: .infinity)
            engine.markEventsWritten()
            return engine
        }
    }

    /// What the session owned by `owner` had written; `nil` when no such session is staged.
    func sessionContents(owner: String, path: String?) async throws(WorkoutStoreError) -> SessionContents? {
        try await read { db in try Self.sessionContents(owner: owner, path: path, in: db) }
    }

    static func sessionContents(owner: String, path: String?, in db: Database) throws -> SessionContents? {
        guard let workoutKey = try Int64.fetchOne(db, sql: "SELECT id FROM workout WHERE builder_owner = ?", arguments: [owner]),
              let routeKey = try Int64.fetchOne(db, sql: "SELECT id FROM route WHERE builder_owner = ?", arguments: [owner]),
              let row = try Row.fetchOne(db, sql: "SELECT \(WorkoutRows.columns) FROM workout WHERE id = ?", arguments: [workoutKey])
        else { return nil }
        let record = try WorkoutRows.decode(row, path: path)
        let points = try Row.fetchAll(
            db, sql: "SELECT \(RoutePointRows.columns) FROM route_point WHERE route = ? ORDER BY ordinal", arguments: [routeKey]
        ).map(RoutePointRows.decode)
        let samples = try Row.fetchAll(
            db, sql: "SELECT type, start_time, end_time, value FROM quantity_sample WHERE workout = ? ORDER BY start_time, type",
            arguments: [workoutKey]
        ).map { row in try SampleRows.decode(row, of: record.id, path: path) }
        var issues: [InputIssue: Int] = [:]
        for issue in InputIssue.allCases {
            if let count = record.metadata.values[issue.metadataKey].flatMap(Int.init) { issues[issue] = count }
        }
        return SessionContents(
            staging: SessionStaging(workoutKey: workoutKey, routeKey: routeKey), record: record,
            configuration: try sessionConfiguration(ofWorkoutKey: workoutKey, in: db), points: points,
            events: try events(ofWorkoutKey: workoutKey, in: db), samples: samples, inputIssues: issues)
    }

    /// Makes an interrupted session this process's own again, in one transaction, and returns
    /// what it had written; `nil` when it is no longer interrupted (ended, discarded, resumed by
    /// another process, or its process is alive after all).
    func takeOver(
        _ session: InterruptedSession, configuration: WorkoutSession.Configuration? = nil
    ) async throws(WorkoutStoreError) -> SessionContents? {
        let (old, new) = (session.owner, Self.sessionOwner(session.id))
        let path = path
        let replacement: String?
        if let configuration { replacement = try Self.encode(configuration, of: session.id) } else { replacement = nil }
        return try await write(.save) { db -> SessionContents? in
            guard let parsed = Self.sessionOwner(parsing: old), !(parsed.process?.isAlive ?? false),
                  let workoutKey = try Int64.fetchOne(db, sql: "SELECT id FROM workout WHERE builder_owner = ?", arguments: [old])
            else { return nil }
            // Taken only from the owner read above: another process that took it first changed it.
            try db.execute(sql: "UPDATE workout SET builder_owner = ? WHERE id = ? AND builder_owner = ?", arguments: [new, workoutKey, old])
            guard db.changesCount == 1 else { return nil }
            try db.execute(sql: "UPDATE route SET builder_owner = ? WHERE builder_owner = ?", arguments: [new, old])
            if let replacement {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO workout_session (workout, configuration) VALUES (?, ?)", arguments: [workoutKey, replacement])
            }
            return try Self.sessionContents(owner: new, path: path, in: db)
        }
    }

    /// Discards an interrupted session and everything it had written.
    public func discard(_ session: InterruptedSession) async throws(WorkoutStoreError) {
        try await discardSession(owner: session.owner)
    }
}

/// A session whose process ended before it did: what it had written is in the store, out of
/// sight, until ``WorkoutStore/end(_:)`` saves it as a workout, ``WorkoutSession/resume(_:store:source:samples:configuration:clock:now:)``
/// records on in it, or ``WorkoutStore/discard(_:)`` deletes it.
public struct InterruptedSession: Sendable, Hashable {
    /// The session's id, which its workout keeps.
    public var id: UUID
    /// What was being done.
    public var activityType: WorkoutActivityType
    /// When it began (its first fix).
    public var start: Date
    /// The time of the last fix written, if any.
    public var lastFix: Date?
    /// How many route points were written.
    public var points: Int
    /// How many samples were written.
    public var samples: Int
    /// Whether it was recorded indoors (no fixes: its samples make it); `nil` when not said.
    public var isIndoor: Bool?
    let owner: String
}
