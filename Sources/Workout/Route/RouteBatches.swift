import Foundation
import GRDB

/// The points of a workout's route, delivered in batches of ordered ``RoutePoint``s, as HealthKit's
/// `HKWorkoutRouteQuery` does. Get one from ``WorkoutStore/routePoints(of:batchSize:)``.
///
/// ```swift
/// for try await batch in store.routePoints(of: workout.id) {
///     for point in batch { print(point.location) }
/// }
/// ```
///
/// Each batch is one query that resumes after the last point delivered (keyset pagination on the
/// point's ordinal), so memory stays that of one batch whatever the route's length, and other
/// readers and writers go on between batches. The sequence is empty when the workout has no
/// route, and throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does
/// not hold the workout, or ``WorkoutStoreError/routeDeletedWhileReading(workoutID:pointsRead:)``
/// when the workout is deleted before the last batch.
public struct RouteBatches: AsyncSequence, Sendable {
    /// A batch: consecutive points, in route order.
    public typealias Element = [RoutePoint]
    /// What reading can throw.
    public typealias Failure = WorkoutStoreError

    let store: WorkoutStore
    let workoutID: UUID
    let batchSize: Int

    /// Starts reading at the first point.
    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, workoutID: workoutID, batchSize: Swift.max(1, batchSize))
    }

    /// Reads one batch per call to `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        let store: WorkoutStore
        let workoutID: UUID
        let batchSize: Int
        /// The route's key and point count, once looked up.
        var route: (id: Int64, count: Int)?
        /// The ordinal of the next point to deliver.
        var nextOrdinal = 0
        var done = false

        /// The next batch, or `nil` after the last.
        public mutating func next() async throws(WorkoutStoreError) -> [RoutePoint]? {
            try await next(isolation: nil)
        }

        /// The next batch, or `nil` after the last.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(WorkoutStoreError) -> [RoutePoint]? {
            guard !done else { return nil }
            let workoutID = workoutID
            if route == nil {
                let found = try await store.read { db -> (Int64, Int)?? in
                    guard let stored = try WorkoutRows.find(workoutID, in: db) else { return nil }
                    return .some(try Row.fetchOne(db, sql: "SELECT id, point_count FROM route WHERE workout = ?", arguments: [stored.key])
                        .map { ($0["id"], $0["point_count"]) })
                }
                guard let found else {
                    done = true
                    throw .workoutNotSaved(workoutID: workoutID, step: .read)
                }
                guard let found else {
                    done = true
                    return nil
                }
                route = found
            }
            let (routeID, count) = route!
            guard nextOrdinal < count else {
                done = true
                return nil
            }
            let start = nextOrdinal
            let limit = batchSize
            let batch = try await store.read { db in
                let statement = try db.cachedStatement(sql: """
                    SELECT \(RoutePointRows.columns) FROM route_point
                    WHERE route = ? AND ordinal >= ? ORDER BY ordinal LIMIT ?
                    """)
                var points: [RoutePoint] = []
                points.reserveCapacity(limit)
                let rows = try Row.fetchCursor(statement, arguments: [routeID, start, limit])
                while let row = try rows.next() {
                    points.append(RoutePointRows.decode(row))
                }
                let extensions = try Row.fetchCursor(db, sql: """
                    SELECT ordinal, xml FROM route_point_extension WHERE route = ? AND ordinal >= ? AND ordinal < ?
                    """, arguments: [routeID, start, start + points.count])
                while let row = try extensions.next() {
                    let ordinal: Int = row["ordinal"]
                    points[ordinal - start].unknownExtensions = row["xml"]
                }
                return points
            }
            if batch.count < Swift.min(batchSize, count - start) {
                done = true
                throw .routeDeletedWhileReading(workoutID: workoutID, pointsRead: start + batch.count)
            }
            nextOrdinal = start + batch.count
            return batch
        }
    }
}
