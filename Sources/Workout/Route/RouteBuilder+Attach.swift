import Foundation
import GRDB
import LocationCore
import GPSCore

extension RouteBuilder {
    /// Attaches the staged route `routeID` to `workout` inside the current transaction: checks the
    /// workout has no route and contains every point, then turns the staging row into the
    /// workout's route in one `UPDATE`.
    static func attach(
        routeID: Int64, _ accumulator: RouteAccumulator, to workout: StoredWorkout,
        metadata: [String: String], store: WorkoutStore, in db: Database
    ) throws -> WorkoutRoute {
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM route WHERE workout = ?", arguments: [workout.key]) != nil {
            throw WorkoutStoreError.routeAlreadyAttached(workoutID: workout.id)
        }
        let first = accumulator.firstTime!
        let last = accumulator.lastTime!
        if first < workout.start || last > workout.end {
            let ordinal = try Int.fetchOne(db, sql: """
                SELECT ordinal FROM route_point WHERE route = ? AND (time < ? OR time > ?) ORDER BY ordinal LIMIT 1
                """, arguments: [routeID, workout.start, workout.end])
            throw WorkoutStoreError.invalidRoutePoint(
                workoutID: workout.id, index: ordinal ?? 0, indexInBatch: nil,
                problem: .outsideWorkout(start: workout.dates.lowerBound, end: workout.dates.upperBound))
        }
        try db.execute(sql: """
            UPDATE route SET workout = ?, builder_owner = NULL, point_count = ?, segment_count = ?,
                start_time = ?, end_time = ?, dropped_duplicates = ?, metadata = ?
            WHERE id = ? AND workout IS NULL
            """, arguments: [
                workout.key, accumulator.count, accumulator.segmentCount, first, last,
                accumulator.droppedDuplicates, WorkoutRows.encode(metadata), routeID,
            ])
        guard db.changesCount == 1 else {
            throw WorkoutStoreError.databaseFailed(
                operation: .finishRoute, path: store.path, reason: "the route's staged points are no longer in the store")
        }
        // A workout saved without totals gets the route's, worked out as an import works them
        // out, with the pauses (its segment breaks) that decided them (unless it has events of its own).
        if var figures = accumulator.figures {
            let timeline = figures.finish(at: workout.end)
            let computed = timeline.totals(start: workout.start, end: workout.end)
            try db.execute(sql: """
                UPDATE workout SET distance = ?, duration = ?, moving_time = ?, elevation_gain = ?, elevation_loss = ?
                WHERE id = ? AND coalesce(duration, moving_time, distance, elevation_gain, elevation_loss, energy) IS NULL
                """, arguments: [
                    computed.distance, computed.duration, computed.movingTime, computed.elevationGain, computed.elevationLoss, workout.key,
                ])
            if db.changesCount == 1, try Bool.fetchOne(db, sql: "SELECT 1 FROM workout_event WHERE workout = ?", arguments: [workout.key]) == nil {
                for (ordinal, event) in timeline.events.enumerated() {
                    try WorkoutStore.insert(event, ordinal: ordinal, workoutKey: workout.key, in: db)
                }
            }
        }
        return WorkoutRoute(
            workoutID: workout.id, pointCount: accumulator.count, segmentCount: accumulator.segmentCount,
            start: Date(timeIntervalSince1970: first), end: Date(timeIntervalSince1970: last),
            droppedDuplicates: accumulator.droppedDuplicates, metadata: metadata)
    }

    /// Refuses to save `workout` when a sample staged with the route lies outside it.
    private static func checkStagedSamples(_ staged: (key: Int64, earliest: Double, latest: Double), within workout: WorkoutRecord) throws {
        let start = workout.start.timeIntervalSince1970, end = workout.end.timeIntervalSince1970
        guard staged.earliest < start || staged.latest > end else { return }
        let outside = staged.earliest < start ? staged.earliest : staged.latest
        throw WorkoutStoreError.invalidSample(
            workoutID: workout.id, index: 0,
            reason: "a sample written with the route, at \(RFC3339.string(from: Date(timeIntervalSince1970: outside))), lies outside the workout (\(RFC3339.string(from: workout.start)) to \(RFC3339.string(from: workout.end)))")
    }

    /// Saves `workout`, `samples` and `events` (in time order: pauses, resumes, laps, as a recorded
    /// session has them) and attaches this builder's route to it, in one transaction: the end of
    /// ``WorkoutStore/saveWorkout(_:samples:routeMetadata:route:)`` and of the importers. Whatever
    /// happens, the builder is done afterwards: finished when the run was saved, its staging
    /// deleted otherwise.
    func commit(
        _ workout: WorkoutRecord, samples: [QuantitySample], events: [WorkoutEvent] = [], metadata: [String: String]?
    ) async throws(WorkoutStoreError) -> SaveOutcome {
        await enter()
        defer { leave() }
        try checkUsable(.saveWorkout)
        if let outside = events.first(where: { !workout.contains($0.time) }) {
            await dropStaging()
            throw .invalidWorkout(
                workoutID: workout.id, reason: "its \(outside.kind.rawValue) event at \(RFC3339.string(from: outside.time)) lies outside it")
        }
        let store = store
        let routeID = routeID
        let accumulator = accumulator
        let staged = stagedWorkout
        let outcome: SaveOutcome
        do {
            outcome = try await store.write(.saveWorkout) { db in
                if let existing = try WorkoutRows.existing(workout, in: db) {
                    return .alreadySaved(existingID: existing.id, matchedBy: existing.key)
                }
                let stored: StoredWorkout
                if let staged {
                    try Self.checkStagedSamples(staged, within: workout)
                    try store.reach(.begin(.save))
                    try WorkoutRows.publish(workout, stagedAs: staged.key, path: store.path, in: db)
                    stored = StoredWorkout(
                        id: workout.id, key: staged.key,
                        start: workout.start.timeIntervalSince1970, end: workout.end.timeIntervalSince1970)
                } else {
                    stored = try store.insertWorkout(workout, in: db)
                }
                try store.reach(.begin(.addSamples))
                try store.insert(samples, workoutKey: stored.key, workoutID: workout.id, in: db)
                for (ordinal, event) in events.enumerated() {
                    try WorkoutStore.insert(event, ordinal: ordinal, workoutKey: stored.key, in: db)
                }
                if let routeID {
                    try store.reach(.begin(.finishRoute))
                    _ = try Self.attach(routeID: routeID, accumulator, to: stored, metadata: metadata ?? [:], store: store, in: db)
                }
                return .saved(workoutID: workout.id)
            }
        } catch {
            await dropStaging()
            throw error
        }
        if case .saved = outcome {
            state = .finished(workout.id)
        } else {
            await dropStaging()
        }
        return outcome
    }
}
