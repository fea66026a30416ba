import GRDB
import GRDBSQLite

/// A prepared INSERT run row after row with values bound straight into SQLite, for the store's
/// bulk writes (route points, samples): a million rows would otherwise build a million
/// `StatementArguments` arrays of boxed values, which costs more than SQLite's own work.
///
/// Only this file calls SQLite's C API. The statement comes from GRDB (cached per connection) and
/// runs inside a transaction GRDB opened; `step()` reports failures as GRDB's `DatabaseError`, so
/// the store maps them as it maps every other database error.
struct RowInserter {
    private let statement: Statement
    private let connection: SQLiteConnection?

    init(sql: String, in db: Database) throws {
        statement = try db.cachedStatement(sql: sql)
        connection = db.sqliteConnection
    }

    /// Binds a real, or NULL for `nil`, to parameter `index` (from 1).
    @inline(__always)
    func bind(_ value: Double?, at index: Int32) {
        if let value {
            sqlite3_bind_double(statement.sqliteStatement, index, value)
        } else {
            sqlite3_bind_null(statement.sqliteStatement, index)
        }
    }

    /// Binds an integer to parameter `index` (from 1).
    @inline(__always)
    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(statement.sqliteStatement, index, value)
    }

    /// Binds a sample type's raw value to parameter `index` (from 1), without copying it.
    func bind(_ type: QuantityType, at index: Int32) {
        let name = Self.storedName(of: type)
        sqlite3_bind_text(
            statement.sqliteStatement, index, UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self),
            Int32(name.utf8CodeUnitCount), nil)  // nil: SQLITE_STATIC, the text outlives the statement
    }

    /// ``QuantityType/rawValue`` as static text (a test checks they agree).
    static func storedName(of type: QuantityType) -> StaticString {
        switch type {
        case .heartRate: "heart_rate"
        case .cadence: "cadence"
        case .power: "power"
        case .temperature: "temperature"
        case .speed: "speed"
        }
    }

    /// Runs the statement with the values bound, then makes it ready for the next row. Returns
    /// whether it wrote a row (`false`: an `ON CONFLICT DO NOTHING` skipped it).
    /// The corresponding C functions are `sqlite3_step(3)`, `sqlite3_changes(3)` and `sqlite3_reset(3)`.
    @discardableResult
    func step() throws -> Bool {
        let code = sqlite3_step(statement.sqliteStatement)
        sqlite3_reset(statement.sqliteStatement)
        guard code == SQLITE_DONE else {
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        return sqlite3_changes(connection) > 0
    }
}
