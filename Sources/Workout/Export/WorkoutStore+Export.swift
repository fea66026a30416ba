import Foundation
import GRDB
import LocationCore
import GPSCore

/// Exporting a stored workout, with its route and samples, to GPX or GeoJSON, in constant memory:
/// the route is read in batches (``routePoints(of:batchSize:)``) and written as it is read.
///
/// ## Samples
/// GPX puts heart rate, cadence, power and temperature on route points: each point carries the
/// sample of each type nearest its time within its interval (see the GPX export's notes, and
/// `PointSampler`). FIT records and TCX track points are taken the same way, one a fix and one a
/// second with a sample where there is no fix (`RecordMoments`). GeoJSON puts heart rate and
/// cadence on the point whose time equals the sample's start, within half a millisecond. What a
/// format leaves out is counted in ``ExportSummary/samplesNotWritten``. GPX refuses a workout
/// without a route (``WorkoutStoreError/formatCannotHold(workoutID:format:reason:instead:)``).
extension WorkoutStore {
    /// Exports the workout `workoutID` in `format`, handing the bytes to `write` in chunks of
    /// about 64 KB as they are produced. The buffer given to `write` is valid only during the call.
    ///
    /// ```swift
    /// var gpx = Data()
    /// let summary = try await store.export(id, format: .gpx) { gpx.append(contentsOf: $0) }
    /// ```
    ///
    /// The export reads the workout as it was when it began (a file store's snapshot): what is
    /// written to the store meanwhile is not in it.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold
    /// the workout (before anything is written), ``WorkoutStoreError/exportFailed(workoutID:path:reason:)``
    /// when `write` throws (or a FIT export's temporary file cannot be written),
    /// ``WorkoutStoreError/cancelled(operation:)`` when the task is cancelled, and the errors of
    /// ``routePoints(of:batchSize:)``.
    @discardableResult
    nonisolated(nonsending)
    public func export(
        _ workoutID: UUID, format: WorkoutExportFormat, to write: (UnsafeRawBufferPointer) throws -> Void
    ) async throws(WorkoutStoreError) -> ExportSummary {
        var output = ExportOutput(workoutID: workoutID, path: nil)
        return try await export(workoutID, format: format, into: &output, sink: write)
    }

    /// Exports the workout `workoutID` in `format` to the file at `path`, atomically: the bytes go
    /// to a temporary file in the same folder, which replaces `path` only once complete (`fsync`,
    /// then `rename(2)`). After a failure `path` is as it was and no temporary file is left.
    ///
    /// Throws ``WorkoutStoreError/exportFailed(workoutID:path:reason:)`` when the file cannot be
    /// created, written or renamed into place, and the errors of ``export(_:format:to:)``.
    @discardableResult
    nonisolated(nonsending)
    public func export(
        _ workoutID: UUID, format: WorkoutExportFormat, toFileAt path: String
    ) async throws(WorkoutStoreError) -> ExportSummary {
        var file = try AtomicFile(creatingTemporaryFor: path, workoutID: workoutID)
        var output = ExportOutput(workoutID: workoutID, path: path)
        do {
            let summary = try await export(workoutID, format: format, into: &output) { bytes throws(AtomicFile.Failure) in
                try file.write(bytes)
            }
            try file.commit()
            return summary
        } catch {
            file.abandon()
            throw error
        }
    }

    /// Exports the workout `workoutID` in `format` into memory: for tests and small workouts (a
    /// 1,000,000-point route makes over 100 MB of GPX). Throws as ``export(_:format:to:)``.
    nonisolated(nonsending)
    public func exportData(_ workoutID: UUID, format: WorkoutExportFormat) async throws(WorkoutStoreError) -> Data {
        var data = Data()
        _ = try await export(workoutID, format: format) { data.append(contentsOf: $0) }
        return data
    }

    // MARK: - Internals

    nonisolated(nonsending)
    private func export(
        _ workoutID: UUID, format: WorkoutExportFormat, into output: inout ExportOutput, sink: ExportSink
    ) async throws(WorkoutStoreError) -> ExportSummary {
        // Every read of the export (the workout, its events, laps, route and samples, in batches)
        // sees the store as it was when the export began.
        let store = try snapshot()
        let source = try await store.exportSource(workoutID, loadingSamples: format == .gpx || format == .geojson)
        var summary = switch format {
        case .gpx: try await store.writeGPX(source, into: &output, sink: sink)
        case .geojson: try await store.writeGeoJSON(source, into: &output, sink: sink)
        case .fit: try await store.writeFIT(source, into: &output, sink: sink)
        case .tcx: try await store.writeTCX(source, into: &output, sink: sink)
        }
        try output.flush(sink)
        summary.bytes = output.count
        return summary
    }

    /// The workout, its route summary and (`loadingSamples`) its samples by type, read before the
    /// route. The FIT export reads the samples in batches as it goes instead.
    func exportSource(_ workoutID: UUID, loadingSamples: Bool = true) async throws(WorkoutStoreError) -> ExportSource {
        guard let workout = try await workout(id: workoutID) else {
            throw .workoutNotSaved(workoutID: workoutID, step: .export)
        }
        let route = try await route(of: workoutID)
        let (samples, options, events, autoPaused) = try await read { db -> (ExportSource.Samples, SessionTimeline.Options, [WorkoutEvent], Bool) in
            var samples = ExportSource.Samples()
            guard let stored = try WorkoutRows.find(workoutID, in: db) else { return (samples, .asStored, [], false) }
            let options = try Self.timelineOptions(ofWorkoutKey: stored.key, in: db)
            let events = try Self.events(ofWorkoutKey: stored.key, in: db)
            let autoPaused = try Self.sessionConfiguration(ofWorkoutKey: stored.key, in: db)?.autoPause != nil
            guard loadingSamples else { return (samples, options, events, autoPaused) }
            // A type at a time, in the order of the table's key: no text decoded per sample.
            let statement = try db.cachedStatement(
                sql: "SELECT start_time, end_time, value FROM quantity_sample WHERE workout = ? AND type = ? ORDER BY start_time, end_time")
            for type in QuantityType.allCases {
                let rows = try Row.fetchCursor(statement, arguments: [stored.key, type.rawValue])
                var list: [ExportSource.Sample] = []
                while let row = try rows.next() { list.append((row[0] as Double, row[1] as Double, row[2] as Double)) }
                if !list.isEmpty { samples.byType[type] = list }
            }
            return (samples, options, events, autoPaused)
        }
        return ExportSource(
            workout: workout, route: route, samples: samples, timelineOptions: options, events: events, autoPaused: autoPaused)
    }

    /// Reads the route once, in order, calling `body` for each point with the output's buffer, and
    /// flushing the buffer whenever it is full. Checks for cancellation between batches.
    nonisolated(nonsending)
    func forEachRoutePoint(
        of workoutID: UUID, into output: inout ExportOutput, sink: ExportSink,
        _ body: (RoutePoint, inout [UInt8]) -> Void
    ) async throws(WorkoutStoreError) {
        for try await batch in routePoints(of: workoutID, batchSize: 4_096) {
            for point in batch {
                body(point, &output.bytes)
                try output.flushIfFull(sink)
            }
            if Task.isCancelled { throw .cancelled(operation: .export) }
        }
    }
}

/// What an export needs before it reads the route.
struct ExportSource: Sendable {
    /// A sample's start and end (seconds since 1970) and value.
    typealias Sample = (start: Double, end: Double, value: Double)

    /// The workout's samples, by type, each type's by start (loaded for GPX and GeoJSON).
    struct Samples: Sendable {
        var byType: [QuantityType: [Sample]] = [:]

        /// The samples of `type`.
        subscript(type: QuantityType) -> [Sample] { byType[type] ?? [] }

        /// How many samples there are.
        var count: Int { byType.values.map(\.count).reduce(0, +) }
    }

    var workout: WorkoutRecord
    var route: WorkoutRoute?
    var samples: Samples
    /// How the workout's time line decides which points count, and its events.
    var timelineOptions: SessionTimeline.Options
    var events: [WorkoutEvent]
    /// Whether the session that recorded it ran auto-pause.
    var autoPaused = false

    /// The metadata value "name", else the activity and the day: "Running 2024-05-01".
    var name: String {
        if let name = workout.metadata.values["name"], !name.isEmpty { return name }
        let activity = workout.activityType.description
        return activity.prefix(1).uppercased() + activity.dropFirst() + " " + RFC3339.string(from: workout.start, fractionDigits: 0).prefix(10)
    }
}
