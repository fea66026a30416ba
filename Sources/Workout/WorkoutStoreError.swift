import Foundation
import LocationCore
import GPSCore

/// What a ``WorkoutStore`` (or a ``RouteBuilder``) was doing when something went wrong. The first
/// four are the steps of the HealthKit-style save chain, in order.
public enum StoreOperation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ``WorkoutStore/save(_:)``: the workout itself.
    case save
    /// ``WorkoutStore/addSamples(_:to:)``.
    case addSamples
    /// ``RouteBuilder/insertRouteData(_:)``.
    case insertRouteData
    /// ``RouteBuilder/finishRoute(with:metadata:)``.
    case finishRoute
    /// ``WorkoutStore/saveWorkout(_:samples:route:routeMetadata:)``: a whole run at once.
    case saveWorkout
    /// Opening the store and bringing its schema up to date.
    case open
    /// A query.
    case read
    /// ``WorkoutStore/deleteWorkout(id:)``.
    case delete
    /// Throwing away the points of a route builder that was not finished.
    case discardRoute
    /// ``WorkoutStore/export(_:format:to:)`` and the calls built on it, and ``WorkoutStore/plotSVG(of:width:)``.
    case export
    /// ``WorkoutStore/enqueueUpload(of:to:at:)`` and the upload queue's changes.
    case upload

    /// The call's name, as a person would look for it in the code: `addSamples(_:to:)`.
    public var description: String {
        switch self {
        case .save: "save(_:)"
        case .addSamples: "addSamples(_:to:)"
        case .insertRouteData: "insertRouteData(_:)"
        case .finishRoute: "finishRoute(with:metadata:)"
        case .saveWorkout: "saveWorkout(...)"
        case .open: "opening the store"
        case .read: "a query"
        case .delete: "deleteWorkout(id:)"
        case .discardRoute: "discarding an unfinished route"
        case .export: "export(_:format:...)"
        case .upload: "the upload queue"
        }
    }
}

/// Why a route point was refused.
public enum RoutePointProblem: Sendable, Hashable, CustomStringConvertible {
    /// The fix has no `time`: a route point needs one, to order it and check it against the workout.
    case missingTime
    /// Latitude outside -90...90 (or not a number).
    case latitudeOutOfRange(Double)
    /// Longitude outside -180...180 (or not a number).
    case longitudeOutOfRange(Double)
    /// A measurement that is infinite or NaN; `field` names it (`altitude`, `speed`...).
    case notFinite(field: String)
    /// The point is older than the point before it (`previous`): routes are inserted in time order.
    case outOfOrder(previous: Date)
    /// The point's time lies outside the workout it was to be attached to.
    case outsideWorkout(start: Date, end: Date)

    /// The problem in words.
    public var description: String {
        switch self {
        case .missingTime: "it has no time"
        case let .latitudeOutOfRange(value): "its latitude \(value) is outside -90...90"
        case let .longitudeOutOfRange(value): "its longitude \(value) is outside -180...180"
        case let .notFinite(field): "its \(field) is not a finite number"
        case let .outOfOrder(previous):
            "it is older than the point before it (\(RFC3339.string(from: previous))); insert points in time order"
        case let .outsideWorkout(start, end):
            "it lies outside the workout (\(RFC3339.string(from: start)) to \(RFC3339.string(from: end)))"
        }
    }
}

/// What went wrong in a ``WorkoutStore`` or a ``RouteBuilder``, with the facts needed to act on it:
/// which workout, which step of the save chain, which point or sample and why, which file.
///
/// Each case's `description` is a sentence naming them. Whatever the case, a failed call has
/// written nothing: every call is one transaction.
public enum WorkoutStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store file at `path` could not be opened or created; `reason` says why.
    case cannotOpen(path: String, reason: String)
    /// The schema migration named `migration` failed on the store at `path` (`nil`: in memory).
    case migrationFailed(path: String?, migration: String, reason: String)
    /// `step` needs the workout to be saved in this store first, and it is not.
    case workoutNotSaved(workoutID: UUID, step: StoreOperation)
    /// ``WorkoutStore/save(_:)`` was given a workout the store already holds (`existingID`,
    /// found by `matchedBy`). ``WorkoutStore/saveWorkout(_:samples:route:routeMetadata:)`` returns
    /// ``SaveOutcome/alreadySaved(existingID:matchedBy:)`` instead of throwing.
    case workoutAlreadySaved(workoutID: UUID, existingID: UUID, matchedBy: DuplicateKey)
    /// The workout's own fields are inconsistent (end before start, a negative total...).
    case invalidWorkout(workoutID: UUID, reason: String)
    /// Sample number `index` (from 0) of the call was refused; `reason` says why.
    case invalidSample(workoutID: UUID, index: Int, reason: String)
    /// Sample number `index` has the type and interval of a stored sample but another value.
    case conflictingSample(workoutID: UUID, index: Int, type: QuantityType, start: Date, storedValue: Double, newValue: Double)
    /// A route point was refused. `index` is its place in the route (from 0: the points kept
    /// before it; dropped duplicates do not count). `indexInBatch` is its place in the array
    /// given to the call that refused it, or `nil` when ``RouteBuilder/finishRoute(with:metadata:)``
    /// found it among the stored points. `workoutID` is `nil` while the route is not yet being
    /// attached to a workout.
    case invalidRoutePoint(workoutID: UUID?, index: Int, indexInBatch: Int?, problem: RoutePointProblem)
    /// The route builder already finished its route (attached to `workoutID`); it cannot be
    /// used again. Make a new ``RouteBuilder`` for another route.
    case builderFinished(step: StoreOperation, workoutID: UUID)
    /// The route builder's points were thrown away by ``RouteBuilder/discard()``; it cannot be used again.
    case builderDiscarded(step: StoreOperation)
    /// ``RouteBuilder/finishRoute(with:metadata:)`` was called before any point was inserted.
    case emptyRoute(workoutID: UUID)
    /// The workout has a route already; a workout has at most one.
    case routeAlreadyAttached(workoutID: UUID)
    /// The route of `workoutID` was deleted while it was being read, after `pointsRead` points.
    case routeDeletedWhileReading(workoutID: UUID, pointsRead: Int)
    /// Workout `workoutID` changed while it was being exported as FIT, and the file's parts
    /// disagree; export it again. No export throws it since the FIT export encodes once (it read
    /// the workout twice: to measure the file, then to write it); kept so that code matching it
    /// still compiles.
    case changedWhileExporting(workoutID: UUID)
    /// The sequence of route batches given to `saveWorkout` threw; nothing of the run was kept.
    case routeSourceFailed(workoutID: UUID, reason: String)
    /// SQLite failed during `operation` on the store at `path` (`nil`: in memory); `reason` is
    /// its message. Nothing of the failed call was kept.
    case databaseFailed(operation: StoreOperation, path: String?, reason: String)
    /// The store holds a record this version cannot read: a sample of a type from a newer version,
    /// or a metadata column that is not a JSON object of strings. `reason` names the workout and
    /// the column.
    case unreadableRecord(path: String?, reason: String)
    /// The task was cancelled during `operation`; nothing of the call was kept.
    case cancelled(operation: StoreOperation)
    /// Exporting workout `workoutID` failed because its output could not be written: `path` is
    /// the file (`nil` when the bytes went to the caller's closure, which threw), `reason` says why.
    /// A file export leaves no partial file behind.
    case exportFailed(workoutID: UUID, path: String?, reason: String)
    /// Workout `workoutID` cannot be exported as `format`, which has no place for it: a GPX file
    /// is a track of positions, and a workout without a route (a trainer ride, a treadmill run)
    /// has none. `instead` names the formats that hold it. Nothing was written.
    case formatCannotHold(workoutID: UUID, format: WorkoutExportFormat, reason: String, instead: [WorkoutExportFormat])

    /// The error as a sentence that names the workout, the step, the point or the file at fault.
    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "Cannot open the workout store at \(path): \(reason)."
        case let .migrationFailed(path, migration, reason):
            "Cannot bring the workout store \(Self.place(path)) up to date: migration \"\(migration)\" failed: \(reason)."
        case let .workoutNotSaved(id, step):
            "Cannot run \(step) for workout \(id): it is not saved in this store. Save it first with save(_:)."
        case let .workoutAlreadySaved(id, existing, key):
            existing == id
                ? "Workout \(id) is already saved in this store (found by \(key)); it was not saved again."
                : "Workout \(id) is already saved in this store as workout \(existing) (found by \(key)); it was not saved again."
        case let .invalidWorkout(id, reason):
            "Workout \(id) cannot be saved: \(reason)."
        case let .invalidSample(id, index, reason):
            "Sample \(index) for workout \(id) was refused: \(reason). No sample of the call was added."
        case let .conflictingSample(id, index, type, start, stored, new):
            "Sample \(index) for workout \(id) conflicts with a stored \(type) sample at \(RFC3339.string(from: start)): stored value \(stored), new value \(new). No sample of the call was added."
        case let .invalidRoutePoint(id, index, indexInBatch, problem):
            "Route point \(index)\(indexInBatch.map { " (item \($0) of its batch)" } ?? "")\(id.map { " for workout \($0)" } ?? "") was refused: \(problem). Nothing of that call was kept."
        case let .builderFinished(step, id):
            "Cannot run \(step): this RouteBuilder already finished its route for workout \(id). Make a new RouteBuilder for another route."
        case let .builderDiscarded(step):
            "Cannot run \(step): this RouteBuilder's points were discarded. Make a new RouteBuilder."
        case let .emptyRoute(id):
            "Cannot attach a route to workout \(id): no point was inserted. Call insertRouteData(_:) first."
        case let .routeAlreadyAttached(id):
            "Workout \(id) already has a route; a workout has at most one. Delete the workout to replace it."
        case let .changedWhileExporting(id):
            "Workout \(id) changed while it was being exported (the FIT export reads it twice, and a write between the two made them differ); what was written is not a FIT file: export it again."
        case let .routeDeletedWhileReading(id, read):
            "The route of workout \(id) was deleted while it was being read, after \(read) points."
        case let .routeSourceFailed(id, reason):
            "Reading the route for workout \(id) failed: \(reason). Nothing of the run was saved."
        case let .databaseFailed(operation, path, reason):
            "SQLite failed during \(operation) on the workout store \(Self.place(path)): \(reason). Nothing of that call was saved."
        case let .unreadableRecord(path, reason):
            "The workout store \(Self.place(path)) holds a record this version cannot read: \(reason)."
        case let .cancelled(operation):
            "\(operation) was cancelled; nothing of it was saved."
        case let .exportFailed(id, path, reason):
            path.map { "Cannot export workout \(id) to \($0): \(reason). No file was written; check that the folder exists and is writable." }
                ?? "Cannot export workout \(id): the output refused the bytes: \(reason)."
        case let .formatCannotHold(id, format, reason, instead):
            "Cannot export workout \(id) as \(format.rawValue.uppercased()): \(reason). Export it as \(instead.map { $0.rawValue.uppercased() }.joined(separator: " or ")) instead; nothing was written."
        }
    }

    /// "at PATH" or "in memory".
    static func place(_ path: String?) -> String {
        path.map { "at \($0)" } ?? "in memory"
    }
}
