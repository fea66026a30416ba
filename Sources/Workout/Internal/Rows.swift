import Foundation
import GRDB
import LocationCore

/// Workouts to rows and back. Dates are REAL seconds since 1970.
enum WorkoutRows {
    static let columns = """
        uuid, activity_type, start_time, end_time, duration, moving_time, distance, elevation_gain, \
        elevation_loss, energy, indoor, source_device, source_app, external_id, metadata
        """

    /// The condition of a workout every query sees: not staged (see the v2 schema).
    static let visible = "builder_owner IS NULL"

    /// Inserts `workout`; returns its integer key.
    static func insert(_ workout: WorkoutRecord, in db: Database) throws -> Int64 {
        let totals = workout.totals
        let metadata = workout.metadata
        try db.execute(
            sql: "INSERT INTO workout (\(columns), saved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                workout.id, workout.activityType.rawValue,
                workout.start.timeIntervalSince1970, workout.end.timeIntervalSince1970,
                totals.duration, totals.movingTime, totals.distance, totals.elevationGain,
                totals.elevationLoss, totals.energy,
                metadata.isIndoor, metadata.sourceDevice, metadata.sourceApp, metadata.externalID,
                encode(metadata.values), Date().timeIntervalSince1970,
            ])
        return db.lastInsertedRowID
    }

    /// Inserts a placeholder for the workout `id` that no query sees, staged by this process, to
    /// hold samples written before the workout's fields are known; returns its integer key.
    static func insertStaged(_ id: UUID, in db: Database) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO workout (uuid, activity_type, start_time, end_time, saved_at, builder_owner) VALUES (?, 'other', 0, 0, ?, ?)",
            arguments: [id, Date().timeIntervalSince1970, StagingOwner.current.description])
        return db.lastInsertedRowID
    }

    /// Fills in the staged workout `key` with `workout` and makes it visible, under `workout`'s id
    /// (an import learns the id its file gives, ours, only at the end of the activity: the row
    /// was staged under another; the caller has made sure no stored workout has it).
    static func publish(_ workout: WorkoutRecord, stagedAs key: Int64, path: String?, in db: Database) throws {
        let totals = workout.totals
        let metadata = workout.metadata
        try db.execute(sql: """
            UPDATE workout SET uuid = ?, activity_type = ?, start_time = ?, end_time = ?, duration = ?, moving_time = ?,
                distance = ?, elevation_gain = ?, elevation_loss = ?, energy = ?, indoor = ?, source_device = ?,
                source_app = ?, external_id = ?, metadata = ?, saved_at = ?, builder_owner = NULL
            WHERE id = ? AND builder_owner IS NOT NULL
            """, arguments: [
                workout.id, workout.activityType.rawValue, workout.start.timeIntervalSince1970, workout.end.timeIntervalSince1970,
                totals.duration, totals.movingTime, totals.distance, totals.elevationGain, totals.elevationLoss,
                totals.energy, metadata.isIndoor, metadata.sourceDevice, metadata.sourceApp, metadata.externalID,
                encode(metadata.values), Date().timeIntervalSince1970, key,
            ])
        guard db.changesCount == 1 else {
            throw WorkoutStoreError.databaseFailed(
                operation: .saveWorkout, path: path, reason: "the workout's staged samples are no longer in the store")
        }
    }

    /// The workout in `row`, which has the ``columns``, read by name. Throws
    /// ``WorkoutStoreError/unreadableRecord(path:reason:)`` when its metadata is not a JSON object
    /// of strings (``decode(_:column:of:)``).
    static func decode(_ row: Row, path: String?) throws(WorkoutStoreError) -> WorkoutRecord {
        // An activity type of a newer version is read as `.other`, the stored name kept beside
        // it: one such row must not hide every other workout from a listing.
        let rawType: String = row["activity_type"]
        let activityType = WorkoutActivityType(rawValue: rawType)
        let id: UUID = row["uuid"]
        let values: [String: String]
        do throws(UnreadableMetadata) {
            values = try decode(row["metadata"] as String, column: "workout.metadata", of: "workout \(id)")
        } catch {
            throw error.storeError(path: path)
        }
        var record = WorkoutRecord(
            id: id,
            activityType: activityType ?? .other,
            start: Date(timeIntervalSince1970: row["start_time"]),
            end: Date(timeIntervalSince1970: row["end_time"]),
            totals: WorkoutTotals(
                distance: row["distance"], duration: row["duration"], movingTime: row["moving_time"],
                elevationGain: row["elevation_gain"], elevationLoss: row["elevation_loss"], energy: row["energy"]),
            metadata: WorkoutMetadata(
                isIndoor: row["indoor"], sourceDevice: row["source_device"], sourceApp: row["source_app"],
                externalID: row["external_id"], values: values))
        if activityType == nil { record.unknownActivityType = rawType }
        return record
    }

    /// A stored workout's key and bounds, or `nil` when it is not stored.
    static func find(_ id: UUID, in db: Database) throws -> StoredWorkout? {
        try Row.fetchOne(db, sql: "SELECT id, start_time, end_time FROM workout WHERE uuid = ? AND \(visible)", arguments: [id])
            .map { StoredWorkout(id: id, key: $0["id"], start: $0["start_time"], end: $0["end_time"]) }
    }

    /// The stored workout `workout` would duplicate, found by id or else by external id.
    static func existing(_ workout: WorkoutRecord, in db: Database) throws -> (id: UUID, key: DuplicateKey)? {
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM workout WHERE uuid = ? AND \(visible)", arguments: [workout.id]) != nil {
            return (workout.id, .id)
        }
        if let external = workout.metadata.externalID,
           let id = try UUID.fetchOne(db, sql: "SELECT uuid FROM workout WHERE external_id = ? AND \(visible)", arguments: [external]) {
            return (id, .externalID(external))
        }
        return nil
    }

    /// Key/values as a JSON object with sorted keys.
    static func encode(_ values: [String: String]) -> String {
        guard !values.isEmpty else { return "{}" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(values)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"  // strings always encode
    }

    /// A JSON object of strings (the metadata `column` of `owner`, "workout U") back to
    /// key/values. Throws ``UnreadableMetadata`` for anything else: no version writes anything
    /// else, and read as empty it would change without a word the figures read with it (the
    /// training profile, the averaging of samples, where distance came from).
    static func decode(_ json: String, column: String, of owner: @autoclosure () -> String) throws(UnreadableMetadata) -> [String: String] {
        guard json != "{}" else { return [:] }
        do {
            return try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        } catch {
            var detail = Self.detail(error)
            if detail.hasSuffix(".") { detail.removeLast() }
            throw UnreadableMetadata(reason: "the metadata of \(owner()) (column \(column)) is not a JSON object of strings (\(detail))")
        }
    }

    /// What JSONDecoder says went wrong, without its coding path's dump.
    private static func detail(_ error: any Error) -> String {
        switch error as? DecodingError {
        case let .typeMismatch(_, context)?, let .valueNotFound(_, context)?, let .keyNotFound(_, context)?, let .dataCorrupted(context)?:
            context.debugDescription
        default:
            "\(error)"
        }
    }

    /// A stored metadata column that does not read (``decode(_:column:of:)``). The store's
    /// `mapped(_:during:)` makes it ``WorkoutStoreError/unreadableRecord(path:reason:)``, with the
    /// store's path, for the static readers that do not know it.
    struct UnreadableMetadata: Error {
        /// What does not read, and where: "the metadata of workout U (column workout.metadata) is not...".
        var reason: String

        func storeError(path: String?) -> WorkoutStoreError {
            .unreadableRecord(path: path, reason: reason)
        }
    }
}

/// What the store knows of a saved workout when attaching things to it.
struct StoredWorkout: Sendable {
    var id: UUID
    /// The integer key other tables use.
    var key: Int64
    /// Start and end as stored: seconds since 1970.
    var start: Double
    var end: Double

    var bounds: ClosedRange<Double> { start...end }
    var dates: ClosedRange<Date> { Date(timeIntervalSince1970: start)...Date(timeIntervalSince1970: end) }
}

/// Samples to rows and back.
enum SampleRows {
    /// The sample of workout `workoutID` in `row` (columns `type`, `start_time`, `end_time`,
    /// `value`, read by name). Throws ``WorkoutStoreError/unreadableRecord(path:reason:)`` for a
    /// type this version does not know: a sample left out would be a sample lost.
    static func decode(_ row: Row, of workoutID: UUID, path: String?) throws(WorkoutStoreError) -> QuantitySample {
        guard let type = QuantityType(rawValue: row["type"]) else {
            throw .unreadableRecord(path: path, reason: "a sample of workout \(workoutID) has the unknown type \"\(row["type"] as String)\"")
        }
        return QuantitySample(
            type: type, value: row["value"],
            start: Date(timeIntervalSince1970: row["start_time"]), end: Date(timeIntervalSince1970: row["end_time"]))
    }
}

extension Row {
    /// The real at `index`, or `nil` for NULL, through GRDB's fast path for `Double`: a generic
    /// `Double?` read looks up Swift's generic metadata for each value, which a read of a million
    /// rows feels.
    @inline(__always)
    func optionalDouble(_ index: Int) -> Double? {
        hasNull(atIndex: index) ? nil : (self[index] as Double)
    }
}

/// Route points to rows and back: one prepared statement, bound column by column.
struct RoutePointRows {
    /// The columns a point is read from, in the order of ``columns``. Read by position, as GRDB
    /// advises for the hot path (a route is read a million rows at a time), but by a named case.
    enum Column: Int, CaseIterable {
        case ordinal, segment, time, latitude, longitude, altitude, altitudeHAE, horizontalAccuracy,
             verticalAccuracy, speed, speedAccuracy, course, courseAccuracy, fix

        var name: String {
            switch self {
            case .altitudeHAE: "altitude_hae"
            case .horizontalAccuracy: "h_accuracy"
            case .verticalAccuracy: "v_accuracy"
            case .speedAccuracy: "speed_accuracy"
            case .courseAccuracy: "course_accuracy"
            default: "\(self)"
            }
        }
    }

    /// The ``Column``s, for a `SELECT` whose rows ``decode(_:)`` reads.
    static let columns = Column.allCases.map(\.name).joined(separator: ", ")
    /// The columns an insert binds, in order: worked out once (a name is the case's text, made by
    /// reflection, which cost more than a session's write of a few points).
    private static let insertColumns = ["route"] + Column.allCases.map(\.name)

    private var inserter: RowInserter
    private let route: Int64

    /// Prepares the insert of `count` points of `route`; `onConflict` is an optional clause such
    /// as `ON CONFLICT DO NOTHING`.
    init(route: Int64, count: Int, onConflict: String = "", in db: Database) {
        self.route = route
        inserter = RowInserter(
            into: "route_point", columns: Self.insertColumns, onConflict: onConflict, rowCount: count, in: db)
    }

    /// Inserts one point. `location.time` must be set (validation ensures it).
    mutating func insert(ordinal: Int, segment: Int, _ location: Location) throws {
        try inserter.bind(route, column: 0)
        try inserter.bind(Int64(ordinal), column: 1)
        try inserter.bind(Int64(segment), column: 2)
        try inserter.bind(location.time!.timeIntervalSince1970, column: 3)
        try inserter.bind(location.latitude, column: 4)
        try inserter.bind(location.longitude, column: 5)
        try inserter.bind(location.altitude, column: 6)
        try inserter.bind(location.ellipsoidalAltitude, column: 7)
        try inserter.bind(location.horizontalAccuracy, column: 8)
        try inserter.bind(location.verticalAccuracy, column: 9)
        try inserter.bind(location.speed, column: 10)
        try inserter.bind(location.speedAccuracy, column: 11)
        try inserter.bind(location.course, column: 12)
        try inserter.bind(location.courseAccuracy, column: 13)
        try inserter.bind(Int64(Self.fix(location)), column: 14)
        try inserter.endRow()
    }

    /// Mode, status and the simulated flag in one small integer (see the v1 schema).
    static func fix(_ location: Location) -> Int {
        location.mode.gpsdMode | (location.status?.gpsdStatus ?? 0) << 2 | (location.isSimulated ? 64 : 0)
    }

    /// The point in `row`, whose columns are ``columns`` in order.
    ///
    /// Each column is read through GRDB's fast path for a concrete type (`Double`, `Int`:
    /// `StatementColumnConvertible`), a NULL tested first: a generic `DatabaseValueConvertible`
    /// read looked up Swift's generic metadata for every column of every row, a third of the time
    /// of an export of a million points.
    static func decode(_ row: Row) -> RoutePoint {
        @inline(__always) func double(_ column: Column) -> Double { row[column.rawValue] }
        @inline(__always) func integer(_ column: Column) -> Int { row[column.rawValue] }
        @inline(__always) func optional(_ column: Column) -> Double? { row.optionalDouble(column.rawValue) }
        let time = Date(timeIntervalSince1970: double(.time))
        let fix = integer(.fix)
        let location = Location(
            latitude: double(.latitude), longitude: double(.longitude),
            altitude: optional(.altitude), ellipsoidalAltitude: optional(.altitudeHAE),
            horizontalAccuracy: optional(.horizontalAccuracy), verticalAccuracy: optional(.verticalAccuracy),
            speed: optional(.speed), speedAccuracy: optional(.speedAccuracy),
            course: optional(.course), courseAccuracy: optional(.courseAccuracy), time: time, receivedAt: time,
            mode: FixMode(gpsdMode: fix & 3), status: FixStatus(gpsdStatus: (fix >> 2) & 15),
            isSimulated: fix & 64 != 0)
        return RoutePoint(ordinal: integer(.ordinal), segment: integer(.segment), location: location)
    }
}
