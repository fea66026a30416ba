import GRDB
import GRDBSQLite

/// Inserts rows into one table with values bound straight into SQLite, several rows per
/// statement, for the store's bulk writes (route points, samples).
///
/// A million rows would otherwise build a million `StatementArguments` arrays of boxed values,
/// and run SQLite's per-statement work (open the table, seek, close) a million times; both cost
/// more than inserting the rows. So rows are bound, column by column, into the slots of a
/// multi-row `INSERT ... VALUES (...), (...), ...` of up to ``rowsPerStatement`` rows, run when
/// its slots are full. The caller says up front how many rows it will insert, so the rows after
/// the last full group go in groups of powers of two (``groupSize(remaining:maximum:)``), whose
/// few statements the connection's cache keeps.
///
/// Only this file calls SQLite's C API. The statements come from GRDB (cached per connection) and
/// run inside a transaction GRDB opened; failures are reported as GRDB's `DatabaseError`, so the
/// store maps them as it maps every other database error.
struct RowInserter {
    /// A group of rows run by one statement: how many, and how many the statement wrote
    /// (fewer when `ON CONFLICT DO NOTHING` skipped some).
    struct Group {
        var rows: Range<Int>
        var written: Int
    }

    private let db: Database
    private let head: String
    private let tail: String
    private let values: String
    private let columns: Int
    private let rowsPerStatement: Int
    private var statement: Statement?
    /// The statement of a full group once prepared, for the groups after: looked up by its SQL in
    /// the connection's cache for each group, its kilobytes of text were hashed each time. (A
    /// batch of fewer rows than a group, a session's usual write, never makes the full group's.)
    private var fullGroupStatement: Statement?
    private var groupStart = 0
    private var groupSize = 0
    private var row = 0
    private let total: Int

    /// An inserter of `rowCount` rows into `table`'s `columns`; `onConflict` is an optional
    /// clause such as `ON CONFLICT DO NOTHING`.
    init(into table: String, columns: [String], onConflict: String = "", rowCount: Int, in db: Database) {
        self.db = db
        head = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        tail = onConflict.isEmpty ? "" : " " + onConflict
        self.columns = columns.count
        values = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        // SQLite allows 32,766 parameters per statement; past ~64 rows the gain is gone.
        rowsPerStatement = max(1, min(64, 32_766 / columns.count))
        total = rowCount
    }

    /// Binds a real, or NULL for `nil`, to column `column` (from 0) of the current row.
    @inline(__always)
    mutating func bind(_ value: Double?, column: Int) throws {
        let (statement, index) = try slot(column)
        if let value {
            sqlite3_bind_double(statement, index, value)
        } else {
            sqlite3_bind_null(statement, index)
        }
    }

    /// Binds an integer to column `column` (from 0) of the current row.
    @inline(__always)
    mutating func bind(_ value: Int64, column: Int) throws {
        let (statement, index) = try slot(column)
        sqlite3_bind_int64(statement, index, value)
    }

    /// Binds a sample type's raw value to column `column` (from 0) of the current row, without
    /// copying it.
    mutating func bind(_ type: QuantityType, column: Int) throws {
        let (statement, index) = try slot(column)
        let name = Self.storedName(of: type)
        sqlite3_bind_text(
            statement, index, UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self),
            Int32(name.utf8CodeUnitCount), nil)  // nil: SQLITE_STATIC, the text outlives the statement
    }

    /// `QuantityType.rawValue` as static text (a test checks they agree).
    static func storedName(of type: QuantityType) -> StaticString {
        switch type {
        case .heartRate: "heart_rate"
        case .cadence: "cadence"
        case .power: "power"
        case .temperature: "temperature"
        case .speed: "speed"
        case .heartbeatInterval: "heartbeat_interval"
        case .distance: "distance"
        }
    }

    /// Ends the current row. When it completes a group, runs the group's statement and returns
    /// the group. The corresponding C functions are `sqlite3_step(3)`, `sqlite3_changes(3)`
    /// and `sqlite3_reset(3)`.
    @discardableResult
    mutating func endRow() throws -> Group? {
        precondition(statement != nil, "a row ends after its values are bound")
        row += 1
        guard row == groupStart + groupSize else { return nil }
        let sqliteStatement = statement!.sqliteStatement
        let code = sqlite3_step(sqliteStatement)
        sqlite3_reset(sqliteStatement)
        guard code == SQLITE_DONE else {
            let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement!.sql)
        }
        let group = Group(rows: groupStart..<row, written: Int(sqlite3_changes(db.sqliteConnection)))
        statement = nil
        return group
    }

    /// How many rows the next group takes, `remaining` left: a full group, else the largest power
    /// of two not above what remains. A few statement sizes are then prepared once per connection
    /// and found in its cache after; a group of exactly what remained made a statement of its own
    /// for most calls (a session writes a few seconds of fixes at a time), prepared each time.
    static func groupSize(remaining: Int, maximum: Int) -> Int {
        guard remaining < maximum else { return maximum }
        return 1 << (Int.bitWidth - 1 - remaining.leadingZeroBitCount)
    }

    /// The INSERT of `rows` rows.
    private func sql(rows: Int) -> String {
        head + Array(repeating: values, count: rows).joined(separator: ", ") + tail
    }

    /// The statement and parameter index of `column` in the current row, preparing the next
    /// group's statement at the first column of a group.
    @inline(__always)
    private mutating func slot(_ column: Int) throws -> (OpaquePointer, Int32) {
        if statement == nil {
            precondition(row < total, "more rows than announced")
            groupStart = row
            groupSize = Self.groupSize(remaining: total - row, maximum: rowsPerStatement)
            if groupSize == rowsPerStatement {
                if fullGroupStatement == nil { fullGroupStatement = try db.cachedStatement(sql: sql(rows: groupSize)) }
                statement = fullGroupStatement
            } else {
                statement = try db.cachedStatement(sql: sql(rows: groupSize))
            }
        }
        return (statement!.sqliteStatement, Int32((row - groupStart) * columns + column + 1))
    }
}
