import Foundation
import GRDB
import LocationCore

/// Builds a workout's route in batches, then attaches it to a saved workout all at once, as
/// HealthKit's `HKWorkoutRouteBuilder`.
///
/// ```swift
/// let routeBuilder = RouteBuilder(store: store)
/// for try await batch in fixes {                     // as many batches as needed
///     try await routeBuilder.insertRouteData(batch)
/// }
/// let route = try await routeBuilder.finishRoute(with: workout, metadata: nil)
/// ```
///
/// ## Where the points wait
/// Each ``insertRouteData(_:)`` call writes its points straight into the store, in one
/// transaction, under a route row that belongs to no workout and names this process ("staging").
/// Queries never see staged points. ``finishRoute(with:metadata:)`` attaches them to the workout
/// by updating that one row, so a million points appear at once or not at all, without being
/// copied. A builder released unfinished deletes its staged points; if the process dies
/// first, the store deletes them the next time it opens (see ``WorkoutStore``). A builder that
/// a running process keeps, unfinished, keeps its staging: the store cannot tell it from one
/// still at work.
///
/// ## Order, duplicates, segments
/// Points must come in time order across all calls; one older than the point before it is
/// refused with ``RoutePointProblem/outOfOrder(previous:)``, with its whole batch, and the builder
/// stays usable. Points sharing a time are kept in the order given (receivers that log several
/// fixes a second often write whole seconds), unless one is an exact duplicate of a kept point
/// (same time, latitude, longitude and altitude), which is dropped and counted. Call
/// ``startNewSegment()`` after a pause: the next point starts a new segment.
///
/// Calls on one builder run one at a time, in the order they were made. A finished or discarded
/// builder refuses every call with ``WorkoutStoreError/builderFinished(step:workoutID:)`` or
/// ``WorkoutStoreError/builderDiscarded(step:)``.
public actor RouteBuilder {
    /// The store the route goes to.
    public nonisolated let store: WorkoutStore

    enum State: Sendable {
        case building
        case finished(UUID)
        case discarded
    }

    var state = State.building
    var accumulator: RouteAccumulator
    /// The staging route row, once the first point is written.
    var routeID: Int64?
    /// The staged workout row holding samples written with the points (see
    /// ``insert(_:samples:)``), and the earliest and latest times of those samples.
    var stagedWorkout: (key: Int64, earliest: Double, latest: Double)?
    /// For a builder inside ``WorkoutStore/saveWorkout(_:samples:routeMetadata:route:)``: the
    /// workout, known from the start, so points outside it are refused as they come.
    let knownWorkout: (id: UUID, bounds: ClosedRange<Double>)?
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// A builder for one route in `store`.
    public init(store: WorkoutStore) {
        self.store = store
        knownWorkout = nil
        accumulator = RouteAccumulator(measuring: true)
    }

    /// A builder for the route of `workout`, which is not saved yet; `measuring` when the route's
    /// figures are the workout's (an importer works its own out as it reads).
    init(store: WorkoutStore, for workout: WorkoutRecord, measuring: Bool = false) {
        self.store = store
        knownWorkout = (workout.id, workout.start.timeIntervalSince1970...workout.end.timeIntervalSince1970)
        accumulator = RouteAccumulator(measuring: measuring)
    }

    deinit {
        let route = routeID, workout = stagedWorkout?.key
        if case .building = state, route != nil || workout != nil {
            store.discardStagedRoute(route, workout: workout)
        }
    }

    /// How many points the builder holds (exact duplicates dropped).
    public var pointCount: Int {
        accumulator.count
    }

    /// How many points were dropped as exact duplicates of points already inserted.
    public var droppedDuplicates: Int {
        accumulator.droppedDuplicates
    }

    /// Adds `locations` to the route, all or none: checked, then staged in one transaction.
    ///
    /// Throws ``WorkoutStoreError/invalidRoutePoint(workoutID:index:indexInBatch:problem:)`` for the
    /// first refused point (no time, coordinates out of range, a measurement that is not finite,
    /// out of time order); ``WorkoutStoreError/builderFinished(step:workoutID:)`` or
    /// ``WorkoutStoreError/builderDiscarded(step:)`` once the builder is done; and
    /// ``WorkoutStoreError/databaseFailed(operation:path:reason:)``. After a throw the builder
    /// holds exactly what it held before the call.
    public func insertRouteData(_ locations: [Location]) async throws(WorkoutStoreError) {
        try await insert(locations, samples: [])
    }

    /// ``insertRouteData(_:)`` that also writes `samples` (and the points' unknown GPX
    /// `extensions`, by index in `locations`) in the same transaction, under a staged
    /// workout row no query sees (see the v2 schema), so a long recording's samples are written as
    /// they come instead of all at the end. They appear with the workout when
    /// ``commit(_:samples:metadata:)`` saves it, or vanish with the builder. Only for a builder
    /// made for a known workout (its id names the staged row and the samples' errors).
    func insert(
        _ locations: [Location], samples: [QuantitySample], extensions: [(index: Int, xml: String)] = []
    ) async throws(WorkoutStoreError) {
        await enter()
        defer { leave() }
        try checkUsable(.insertRouteData)
        if !samples.isEmpty {
            precondition(knownWorkout != nil, "samples are staged only for a known workout")
            try Validation.check(samples, for: knownWorkout!.id, within: nil)
        }
        var next = accumulator
        let plan = try next.take(locations, workoutID: knownWorkout?.id, within: knownWorkout?.bounds)
        guard next.count > accumulator.count || !samples.isEmpty else {
            accumulator = next  // a batch of exact duplicates only: nothing to write, but they count
            return
        }
        let existingRoute = routeID, existingWorkout = stagedWorkout?.key
        let workoutID = knownWorkout?.id
        let store = store
        let owner = StagingOwner.current.description
        let newPoints = next.count > accumulator.count
        let (route, workout) = try await store.write(.insertRouteData) { db in
            try store.reach(.begin(.insertRouteData))
            var route = existingRoute
            if route == nil, newPoints {
                try db.execute(
                    sql: "INSERT INTO route (builder_owner, created_at) VALUES (?, ?)",
                    arguments: [owner, Date().timeIntervalSince1970])
                route = db.lastInsertedRowID
            }
            if newPoints {
                try store.insertPoints(locations, plan: plan, route: route!, in: db)
                for (index, xml) in extensions {
                    guard let ordinal = plan.ordinal(ofIndex: index) else { continue }
                    try db.execute(
                        sql: "INSERT INTO route_point_extension (route, ordinal, xml) VALUES (?, ?, ?)",
                        arguments: [route!, ordinal, xml])
                }
            }
            var workout = existingWorkout
            if !samples.isEmpty, let workoutID {
                if workout == nil { workout = try WorkoutRows.insertStaged(workoutID, in: db) }
                try store.insert(samples, workoutKey: workout!, workoutID: workoutID, in: db)
            }
            return (route, workout)
        }
        routeID = route
        if let workout {
            let times = samples.map(\.start.timeIntervalSince1970) + samples.map(\.end.timeIntervalSince1970)
            let earliest = min(stagedWorkout?.earliest ?? .infinity, times.min() ?? .infinity)
            let latest = max(stagedWorkout?.latest ?? -.infinity, times.max() ?? -.infinity)
            stagedWorkout = (workout, earliest, latest)
        }
        accumulator = next
    }

    /// Makes the next inserted point start a new segment of the route: call it when the workout
    /// resumes after a pause. Before the first point, and twice in a row, it changes nothing.
    public func startNewSegment() throws(WorkoutStoreError) {
        try checkUsable(.insertRouteData)
        accumulator.startNewSegment()
    }

    /// Attaches every inserted point to `workout`, at once, and finishes the builder.
    ///
    /// The workout must be saved, have no route yet, and contain every point's time (both ends
    /// included). `metadata` is kept with the route. A workout saved without totals gets the
    /// route's (distance, duration, moving time, elevation gain and loss), worked out as
    /// `workout import` works them out, each segment break a pause saved as its events (see
    /// <doc:TheFigures>). A workout with totals keeps its own.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)``,
    /// ``WorkoutStoreError/routeAlreadyAttached(workoutID:)``,
    /// ``WorkoutStoreError/emptyRoute(workoutID:)``,
    /// ``WorkoutStoreError/invalidRoutePoint(workoutID:index:indexInBatch:problem:)`` with
    /// ``RoutePointProblem/outsideWorkout(start:end:)`` for the first point outside it, or
    /// ``WorkoutStoreError/databaseFailed(operation:path:reason:)``. After a throw the builder
    /// is still unfinished, holding its points: fix the cause and call again, or ``discard()``.
    @discardableResult
    public func finishRoute(with workout: WorkoutRecord, metadata: [String: String]?) async throws(WorkoutStoreError) -> WorkoutRoute {
        await enter()
        defer { leave() }
        try checkUsable(.finishRoute)
        guard let routeID, accumulator.count > 0 else { throw .emptyRoute(workoutID: workout.id) }
        let store = store
        let accumulator = accumulator
        let route = try await store.write(.finishRoute) { db in
            guard let stored = try WorkoutRows.find(workout.id, in: db) else {
                throw WorkoutStoreError.workoutNotSaved(workoutID: workout.id, step: .finishRoute)
            }
            try store.reach(.begin(.finishRoute))
            return try Self.attach(routeID: routeID, accumulator, to: stored, metadata: metadata ?? [:], store: store, in: db)
        }
        state = .finished(workout.id)
        return route
    }

    /// Throws the builder's points away and finishes it; nothing of the route remains. Doing
    /// nothing when the builder is already finished or discarded.
    public func discard() async {
        await enter()
        defer { leave() }
        await dropStaging()
    }

    /// ``discard()`` for a caller that already holds the builder's turn.
    func dropStaging() async {
        guard case .building = state else { return }
        state = .discarded
        if routeID != nil || stagedWorkout != nil {
            await store.discardStagedRoute(routeID, workout: stagedWorkout?.key)
            routeID = nil
            stagedWorkout = nil
        }
    }

    func checkUsable(_ step: StoreOperation) throws(WorkoutStoreError) {
        switch state {
        case .building: return
        case let .finished(id): throw .builderFinished(step: step, workoutID: id)
        case .discarded: throw .builderDiscarded(step: step)
        }
    }

    /// Waits for the calls made before this one to end (calls suspend at the store, and an
    /// actor would otherwise let the next call in).
    func enter() async {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
    }

    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
