import Foundation
import GRDB
import LocationCore

/// Saving a whole recorded run in one call, atomically and idempotently.
///
/// ## Idempotency
/// A run is recognised by its workout's ``WorkoutRecord/id`` or, when set, its
/// ``WorkoutMetadata/externalID``. The id catches a retry of the same value (after a failure, or
/// when the caller cannot tell whether the first call got through); the external id catches the
/// same activity arriving again as a new value, such as a GPX file imported twice (an importer
/// sets it to the file's content hash or the device's activity id). Either way the call returns
/// ``SaveOutcome/alreadySaved(existingID:matchedBy:)`` and writes nothing: the stored run is kept
/// as it is, and replacing it means deleting it first.
extension WorkoutStore {
    /// Saves `workout`, its `samples` and its `route` (one segment) in one transaction: either all
    /// of it is stored or none of it. Running it again finds the stored run instead of saving it
    /// twice. A `workout` saved without totals gets the route's (distance, duration, moving time,
    /// elevation gain and loss), worked out as an import works them out
    /// (<doc:TheFigures>).
    ///
    /// ```swift
    /// switch try await store.saveWorkout(run, samples: heartRate, route: fixes) {
    /// case .saved: print("saved")
    /// case let .alreadySaved(id, matchedBy): print("already saved as \(id), by \(matchedBy)")
    /// }
    /// ```
    ///
    /// Everything is checked before anything is written: the workout's fields, each sample and
    /// each route point (the rules of ``addSamples(_:to:)`` and ``RouteBuilder``), and that every
    /// sample and point lies within the workout. Throws the same errors they do, and
    /// ``WorkoutStoreError/databaseFailed(operation:path:reason:)`` or
    /// ``WorkoutStoreError/cancelled(operation:)``; after a throw nothing of the run is stored.
    @discardableResult
    public func saveWorkout(
        _ workout: WorkoutRecord,
        samples: [QuantitySample] = [],
        route: [Location] = [],
        routeMetadata: [String: String]? = nil
    ) async throws(WorkoutStoreError) -> SaveOutcome {
        try await saveWorkout(workout, samples: samples, segments: [route], events: [], routeMetadata: routeMetadata)
    }

    /// Saves a recorded session in one transaction: the workout, its samples, its route in
    /// `segments` (a segment per stretch between pauses), and its `events`. As the public
    /// `saveWorkout(_:samples:route:routeMetadata:)` otherwise.
    func saveWorkout(
        _ workout: WorkoutRecord, samples: [QuantitySample], segments: [[Location]], events: [WorkoutEvent],
        routeMetadata: [String: String]?
    ) async throws(WorkoutStoreError) -> SaveOutcome {
        try Validation.check(workout)
        try Validation.check(samples, for: workout.id, within: workout.start...workout.end)
        let bounds = workout.start.timeIntervalSince1970...workout.end.timeIntervalSince1970
        for event in events where !bounds.contains(event.time.timeIntervalSince1970) {
            throw .invalidWorkout(
                workoutID: workout.id, reason: "its \(event.kind.rawValue) event at \(RFC3339.string(from: event.time)) lies outside it")
        }
        var accumulator = RouteAccumulator()
        var plans: [RouteAccumulator.Plan] = []
        for segment in segments where !segment.isEmpty {
            accumulator.startNewSegment()
            plans.append(try accumulator.take(segment, workoutID: workout.id, within: bounds))
        }
        let summary = accumulator
        // A workout without totals gets the route's, worked out as an import works them out, with
        // the pauses that decided them.
        var completed = workout
        var decided = events
        if summary.count > 0, workout.totals == WorkoutTotals(), var figures = summary.figures {
            let timeline = figures.finish(at: workout.end.timeIntervalSince1970)
            completed.totals = timeline.totals(start: workout.start.timeIntervalSince1970, end: workout.end.timeIntervalSince1970)
            if decided.isEmpty { decided = timeline.events }
        }
        let events = decided
        let workout = completed
        let routeSegments = segments.filter { !$0.isEmpty }
        let segmentPlans = plans
        return try await write(.saveWorkout) { db in
            if let existing = try WorkoutRows.existing(workout, in: db) {
                return .alreadySaved(existingID: existing.id, matchedBy: existing.key)
            }
            let stored = try self.insertWorkout(workout, in: db)
            try self.reach(.begin(.addSamples))
            try self.insert(samples, workoutKey: stored.key, workoutID: workout.id, in: db)
            if summary.count > 0 {
                try self.reach(.begin(.insertRouteData))
                try db.execute(sql: """
                    INSERT INTO route (workout, point_count, segment_count, start_time, end_time,
                        dropped_duplicates, metadata, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [
                        stored.key, summary.count, summary.segmentCount, summary.firstTime, summary.lastTime,
                        summary.droppedDuplicates, WorkoutRows.encode(routeMetadata ?? [:]), Date().timeIntervalSince1970,
                    ])
                let route = db.lastInsertedRowID
                for (segment, plan) in zip(routeSegments, segmentPlans) {
                    try self.insertPoints(segment, plan: plan, route: route, in: db)
                }
                try self.reach(.begin(.finishRoute))
            }
            for (ordinal, event) in events.enumerated() {
                // With its lap trigger, as every other writer of events stores them.
                try WorkoutStore.insert(event, ordinal: ordinal, workoutKey: stored.key, in: db)
            }
            return .saved(workoutID: workout.id)
        }
    }

    /// Saves `workout`, its `samples` and a route that `route` feeds in batches (and segments),
    /// atomically: for a route too large to hold in memory, such as a long GPX track read as it
    /// is parsed. Running it again finds the stored run instead of saving it twice.
    ///
    /// ```swift
    /// try await store.saveWorkout(run, samples: heartRate) { route in
    ///     for try await batch in parser.trackPoints(batchSize: 10_000) {
    ///         try await route.insertRouteData(batch)
    ///     }
    /// }
    /// ```
    ///
    /// The points are staged as `route` inserts them (as a ``RouteBuilder`` stages them, and
    /// refused as they come when they break its rules or lie outside the workout); the workout,
    /// its samples and the route then appear together in one final transaction. If the store
    /// already holds the run (checked first, and again at the end), `route` is not called or its
    /// points are thrown away. If `route` throws, or any step fails, nothing of the run remains:
    /// a ``WorkoutStoreError`` is rethrown as it is, anything else as
    /// ``WorkoutStoreError/routeSourceFailed(workoutID:reason:)``.
    @discardableResult
    public func saveWorkout(
        _ workout: WorkoutRecord,
        samples: [QuantitySample] = [],
        routeMetadata: [String: String]? = nil,
        route: (RouteWriter) async throws -> Void
    ) async throws(WorkoutStoreError) -> SaveOutcome {
        try Validation.check(workout)
        try Validation.check(samples, for: workout.id, within: workout.start...workout.end)
        if let existing = try await read({ db in try WorkoutRows.existing(workout, in: db) }) {
            return .alreadySaved(existingID: existing.id, matchedBy: existing.key)
        }
        let builder = RouteBuilder(store: self, for: workout, measuring: true)
        do {
            try await route(RouteWriter(builder: builder))
        } catch {
            await builder.discard()
            throw error as? WorkoutStoreError ?? .routeSourceFailed(workoutID: workout.id, reason: "\(error)")
        }
        return try await builder.commit(workout, samples: samples, metadata: routeMetadata)
    }
}

/// Feeds a route to ``WorkoutStore/saveWorkout(_:samples:routeMetadata:route:)`` batch by batch:
/// the part of a ``RouteBuilder`` that such a save lets its caller use.
public struct RouteWriter: Sendable {
    let builder: RouteBuilder

    /// Adds `locations` to the route, all or none; see ``RouteBuilder/insertRouteData(_:)``.
    /// Points outside the workout are refused here, with their index.
    public func insertRouteData(_ locations: [Location]) async throws(WorkoutStoreError) {
        try await builder.insertRouteData(locations)
    }

    /// Makes the next point start a new segment (after a pause); see ``RouteBuilder/startNewSegment()``.
    public func startNewSegment() async throws(WorkoutStoreError) {
        try await builder.startNewSegment()
    }

    /// How many points the route holds so far.
    public var pointCount: Int {
        get async { await builder.pointCount }
    }
}
