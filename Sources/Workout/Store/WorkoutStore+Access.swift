import Foundation
import GRDB

/// How every call reaches the database: one transaction per call, errors turned into
/// ``WorkoutStoreError`` naming the operation, and the fault hook asked where one is installed.
extension WorkoutStore {
    /// Runs `body` in one `IMMEDIATE` write transaction: it commits if `body` returns, and rolls
    /// back if `body` throws, the task is cancelled or SQLite fails. The commit fault point is
    /// reached just before the commit.
    func write<T: Sendable>(
        _ operation: StoreOperation,
        _ body: @Sendable (Database) throws -> T
    ) async throws(WorkoutStoreError) -> T {
        let hook = faultHook
        let path = path
        do {
            return try await writer.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    if let hook { try hook.reach(.commit(operation), path: path) }
                    return .commit
                }
                return result!
            }
        } catch {
            throw mapped(error, during: operation)
        }
    }

    /// Runs `body` in a read transaction (in parallel with other reads and the writer, in a file
    /// store; in a snapshot, on the state the snapshot holds).
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(WorkoutStoreError) -> T {
        do {
            return try await reader.read(body)
        } catch {
            throw mapped(error, during: .read)
        }
    }

    /// The store as it is now, for reads that must agree with each other across many calls (an
    /// export reads the route and samples in batches): a file store gives a
    /// snapshot, one read transaction held open on a connection of its own (GRDB's
    /// `DatabaseSnapshot`), which later writes by this process or another do not change; an
    /// in-memory or read-only store (one connection, every access serialized) gives itself.
    /// Released, the snapshot closes.
    func snapshot() throws(WorkoutStoreError) -> WorkoutStore {
        guard reader === writer, let pool = writer as? DatabasePool else { return self }
        do {
            return WorkoutStore(viewing: self, through: try pool.makeSnapshot())
        } catch {
            throw mapped(error, during: .export)
        }
    }

    /// Asks the fault hook, if any, at `point`.
    @inline(__always)
    func reach(_ point: @autoclosure () -> FaultPoint) throws(WorkoutStoreError) {
        if let faultHook { try faultHook.reach(point(), path: path) }
    }

    /// Deletes a staged (unfinished) route and its points, whatever the state of the calling task:
    /// a cancelled task must still clean up. Returns when done; failures are logged, and the
    /// staging is then removed when the store next opens after this process ends.
    func discardStagedRoute(_ routeID: Int64?, workout: Int64? = nil) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            discardStagedRoute(routeID, workout: workout) { continuation.resume() }
        }
    }

    /// Deletes a staged route, and the staged workout `workout` holding its samples, without
    /// waiting (for a `deinit`); `completion` runs once done.
    func discardStagedRoute(_ routeID: Int64?, workout: Int64? = nil, completion: @escaping @Sendable () -> Void = {}) {
        let logger = logger
        let path = path
        writer.asyncWrite({ db in
            if let routeID {
                try db.execute(sql: "DELETE FROM route WHERE id = ? AND workout IS NULL", arguments: [routeID])
            }
            if let workout {
                try db.execute(sql: "DELETE FROM workout WHERE id = ? AND builder_owner IS NOT NULL", arguments: [workout])
            }
        }, completion: { _, result in
            if case let .failure(error) = result {
                logger.error("Cannot delete an unfinished route's points", metadata: [
                    "store.path": "\(path ?? ":memory:")", "route": "\(routeID.map(String.init) ?? "none")", "error": "\(error)",
                ])
            }
            completion()
        })
    }

    /// `error` as a ``WorkoutStoreError`` for `operation`.
    func mapped(_ error: any Error, during operation: StoreOperation) -> WorkoutStoreError {
        switch error {
        case let error as WorkoutStoreError:
            return error
        case let error as WorkoutRows.UnreadableMetadata:
            return error.storeError(path: path)
        case is CancellationError:
            return .cancelled(operation: operation)
        case let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT && Task.isCancelled:
            return .cancelled(operation: operation)
        default:
            return .databaseFailed(operation: operation, path: path, reason: Self.reason(error))
        }
    }

    /// SQLite's own message and code, without GRDB's SQL dump.
    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            let message = error.message ?? "\(error.resultCode)"
            return "\(message) (SQLite code \(error.extendedResultCode.rawValue))"
        }
        return "\(error)"
    }
}
