import Foundation
import GRDB
import LocationCore

/// The first two steps of the HealthKit-style chain; ``RouteBuilder`` has the route steps.
extension WorkoutStore {
    /// Saves `workout`: the first step of the chain. Afterwards the workout is complete as a
    /// workout (visible to queries, with its totals and metadata); samples and a route may follow.
    ///
    /// Throws ``WorkoutStoreError/invalidWorkout(workoutID:reason:)`` when its fields contradict each
    /// other, ``WorkoutStoreError/workoutAlreadySaved(workoutID:existingID:matchedBy:)`` when the
    /// store holds a workout with its id or external id (nothing is written: use
    /// ``saveWorkout(_:samples:route:routeMetadata:)`` for a save that may be repeated), and
    /// ``WorkoutStoreError/databaseFailed(operation:path:reason:)`` when SQLite fails.
    public func save(_ workout: WorkoutRecord) async throws(WorkoutStoreError) {
        try Validation.check(workout)
        try await write(.save) { db in
            if let existing = try WorkoutRows.existing(workout, in: db) {
                throw WorkoutStoreError.workoutAlreadySaved(workoutID: workout.id, existingID: existing.id, matchedBy: existing.key)
            }
            _ = try self.insertWorkout(workout, in: db)
        }
    }

    /// Inserts `workout` in the current transaction, reaching the `.save` fault points.
    func insertWorkout(_ workout: WorkoutRecord, in db: Database) throws -> StoredWorkout {
        try reach(.begin(.save))
        try reach(.row(.save, number: 1))
        let key = try WorkoutRows.insert(workout, in: db)
        return StoredWorkout(
            id: workout.id, key: key, start: workout.start.timeIntervalSince1970, end: workout.end.timeIntervalSince1970)
    }

    /// Adds `samples` to a saved workout, all or none: the second step of the chain.
    ///
    /// Each sample must lie within the workout as stored (both ends included), have a finite
    /// value, and not be negative unless it is a temperature. A sample equal to a stored one (type,
    /// interval and value) is skipped, so repeating a call adds nothing twice.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the workout is not in
    /// the store, ``WorkoutStoreError/invalidSample(workoutID:index:reason:)`` naming the first
    /// refused sample, ``WorkoutStoreError/conflictingSample(workoutID:index:type:start:storedValue:newValue:)``
    /// when a sample has the type and interval of a stored one but another value, and
    /// ``WorkoutStoreError/databaseFailed(operation:path:reason:)``.
    public func addSamples(_ samples: [QuantitySample], to workout: WorkoutRecord) async throws(WorkoutStoreError) {
        try Validation.check(samples, for: workout.id, within: nil)
        let id = workout.id
        try await write(.addSamples) { db in
            guard let stored = try WorkoutRows.find(id, in: db) else {
                throw WorkoutStoreError.workoutNotSaved(workoutID: id, step: .addSamples)
            }
            try Validation.check(samples, for: id, within: stored.dates)
            try self.reach(.begin(.addSamples))
            try self.insert(samples, workoutKey: stored.key, workoutID: id, in: db)
        }
    }

    /// Inserts samples in the current transaction, reaching a row fault point before each.
    func insert(_ samples: [QuantitySample], workoutKey: Int64, workoutID: UUID, in db: Database) throws {
        guard !samples.isEmpty else { return }
        var inserter = RowInserter(
            into: "quantity_sample", columns: ["workout", "type", "start_time", "end_time", "value"],
            onConflict: "ON CONFLICT DO NOTHING", rowCount: samples.count, in: db)
        for (index, sample) in samples.enumerated() {
            try reach(.row(.addSamples, number: index + 1))
            try inserter.bind(workoutKey, column: 0)
            try inserter.bind(sample.type, column: 1)
            try inserter.bind(sample.start.timeIntervalSince1970, column: 2)
            try inserter.bind(sample.end.timeIntervalSince1970, column: 3)
            try inserter.bind(sample.value, column: 4)
            if let group = try inserter.endRow(), group.written < group.rows.count {
                try checkSkipped(samples, in: group.rows, workoutKey: workoutKey, workoutID: workoutID, in: db)
            }
        }
    }

    /// Among `samples[rows]`, some were skipped as already stored (same type and interval):
    /// refuses the first whose stored value differs (a retried call adds nothing twice, a
    /// contradicting one is an error).
    private func checkSkipped(
        _ samples: [QuantitySample], in rows: Range<Int>, workoutKey: Int64, workoutID: UUID, in db: Database
    ) throws {
        for index in rows {
            let sample = samples[index]
            let stored = try Double.fetchOne(db, sql: """
                SELECT value FROM quantity_sample WHERE workout = ? AND type = ? AND start_time = ? AND end_time = ?
                """, arguments: [workoutKey, sample.type.rawValue, sample.start.timeIntervalSince1970, sample.end.timeIntervalSince1970])
            // Within one call, an earlier sample of the same type and interval may be the stored one.
            if let stored, stored != sample.value {
                throw WorkoutStoreError.conflictingSample(
                    workoutID: workoutID, index: index, type: sample.type, start: sample.start,
                    storedValue: stored, newValue: sample.value)
            }
        }
    }

    /// Inserts the kept points of `batch` into `route` in the current transaction, as `plan` says,
    /// reaching a row fault point before each when faults are installed.
    func insertPoints(_ batch: [Location], plan: RouteAccumulator.Plan, route: Int64, in db: Database) throws {
        var rows = RoutePointRows(route: route, count: batch.count - plan.dropped.count, in: db)
        if let faultHook {
            var number = 0
            try plan.forEachKept(in: batch) { ordinal, location in
                number += 1
                try faultHook.reach(.row(.insertRouteData, number: number), path: path)
                try rows.insert(ordinal: ordinal, segment: plan.segment, location)
            }
        } else {
            try plan.forEachKept(in: batch) { ordinal, location in
                try rows.insert(ordinal: ordinal, segment: plan.segment, location)
            }
        }
    }
}
