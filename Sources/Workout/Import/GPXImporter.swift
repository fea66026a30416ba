import Foundation
import LocationCore

/// Imports GPX files into a ``WorkoutStore``: one workout per track, through the save chain,
/// atomically per workout, in flat memory for the route whatever the file's size.
///
/// ```swift
/// let report = try await GPXImporter(store: store).importFile(at: "ride.gpx.gz")
/// for imported in report.workouts {
///     print(imported.isNew ? "imported" : "already imported", imported.workoutID, imported.points)
/// }
/// ```
///
/// ## How a track becomes a workout
/// - **Route**: the track's points, in its segments, each as a `Location` (see
///   `GPXReadOptions` for what the reader skips; the importer also skips points without a
///   time and points earlier than the point before them, and reports each with its line).
///   A point equal to one kept at the same time (position and elevation) is dropped as a
///   duplicate and counted in ``ImportedWorkout/duplicatesDropped``.
/// - **Samples**: heart rate, cadence, power and air temperature of each point, as instantaneous
///   `QuantitySample`s at the point's time, written with the route as it is read (out of
///   sight until the track commits), so a long track's samples are not all written at its end.
/// - **Activity**: ``WorkoutImportOptions/activity`` when set, else the track's `<type>` through
///   ``WorkoutActivityType/init(gpxType:)``, else ``WorkoutActivityType/other``.
/// - **Times**: start and end are the first and last kept points' times (UTC).
/// - **Totals**, as every importer and a recorded session work them out
///   (<doc:TheFigures>): each break between segments is a pause (saved as the workout's events); distance
///   is haversine on the WGS84 mean radius between the points within segments; elevation gain
///   and loss smoothed with a 5 m hysteresis (the raw sums are in
///   ``ImportedWorkout/rawElevationGain`` and the metadata value `elevation_gain_raw_m`); duration
///   leaves the pauses out, and moving time the stops the file records too (a file of another
///   tool records none: stops are not guessed from positions, which sparse tracks make unreliable).
/// - **Our own exports**: the `<trk>`'s extensions of a file this package exported
///   (<doc:OwnFiles>: id, start, end and every event to the millisecond) give the workout
///   back as it was: under its id (so importing it into the store that holds it finds it there),
///   from its start to its end, with its pauses, auto-pauses, laps and markers exactly (its
///   segment breaks then stand for no pause of their own), and a sensor's `.distance` samples
///   beside the points counted as the workout counted them (its ``DistanceSource`` and sensor
///   factor, kept in the metadata: ``SensorDistance``).
/// - **Identity**: the external id `gpx-track:HASH:COUNT` is a hash of the kept points' times and
///   positions, so importing the same track again, from the same file or from a copy that says
///   the same, finds the stored workout (``SaveOutcome/alreadySaved(existingID:matchedBy:)``)
///   and saves nothing.
/// - **Metadata**: the file's `creator` as the source device, ``WorkoutImportOptions/sourceApp`` as
///   the source app, and the values `name`, `description`, `file` and `gpx_track` (its index).
/// - **Unknown extensions** of a point are kept with it (``RoutePoint/unknownExtensions``) and
///   written back by a GPX export.
///
/// ## Failure
/// Each track's workout, samples and route appear together when its `</trk>` is reached, or not
/// at all. If the file turns out malformed halfway, or the store refuses a track, the import
/// stops with ``GPXImportError``; workouts of tracks finished before stay saved and are listed
/// in the error.
///
/// ## Threads
/// The file is parsed on a thread of its own, which converts points, computes totals and
/// collects samples; the calling task only writes to the store. The two are linked by a queue
/// of a few batches, so a fast parser waits for a slow disk instead of filling memory.
public struct GPXImporter: Sendable {
    public let store: WorkoutStore
    public var options: GPXImportOptions

    public init(store: WorkoutStore, options: GPXImportOptions = GPXImportOptions()) {
        self.store = store
        self.options = options
    }

    /// Imports every track of the GPX file at `path` (plain or gzip-compressed).
    ///
    /// - Parameters:
    ///   - path: the file to import.
    ///   - progress: called on the reader's thread after each chunk read, with the bytes read so
    ///     far and the file's size when known.
    /// - Throws: ``GPXImportError``.
    public func importFile(
        at path: String,
        progress: (@Sendable (_ bytesRead: Int64, _ totalBytes: Int64?) -> Void)? = nil
    ) async throws(GPXImportError) -> GPXImportReport {
        let readOptions = GPXReadOptions(strict: options.strict)
        let batchSize = max(1, options.batchSize)
        return try await ImportPipeline.run(thread: "gpx-import", read: { (outlet: ImportOutlet<GPXImportItem>) in
            let collector = TrackCollector(batchSize: batchSize, outlet: outlet)
            do throws(GPXError) {
                let summary = try GPXReader(options: readOptions).read(fileAt: path, progress: progress) { event in
                    try collector.handle(event)
                }
                outlet.deliverLast(.end(summary))
            } catch {
                outlet.deliverLast(.stopped(error))
            }
        }, save: { handOff throws(GPXImportError) in
            try await save(from: handOff, file: path)
        })
    }

    /// Takes what the reader sends and saves a workout at the end of each track.
    private func save(from handOff: HandOff<GPXImportItem>, file: String) async throws(GPXImportError) -> GPXImportReport {
        var imported: [ImportedWorkout] = []
        var notImported: [TrackNotImported] = []
        var saver = ImportSaver(store: store)
        /// The store refused or failed: a cancelled task is a cancellation; a refused point is
        /// named by its line in the file.
        func failed(_ error: WorkoutStoreError, track: Int, line: Int, lines: [Int] = []) async -> GPXImportError {
            await saver.discard()
            if case .cancelled = error { return .cancelled(file: file, imported: imported) }
            return .save(file: file, trackIndex: track, line: ImportSaver.place(of: error, in: lines, else: line), error, imported: imported)
        }
        /// Saves the workout of a track with points (or lists it as not imported).
        func saveRoute(of track: CollectedTrack) async throws(GPXImportError) {
            guard saver.hasBatches, track.points > 0 else {
                notImported.append(TrackNotImported(
                    trackIndex: track.info.index, trackName: track.info.name, line: track.line,
                    reason: track.skipped.isEmpty && track.duplicates == 0 ? "it has no valid points" : "none of its points has a valid time",
                    skipped: track.skipped))
                return
            }
            var figures = track.figures
            let bounds = Self.bounds(of: track)
            let timeline = figures.finish(at: bounds.end.timeIntervalSince1970)
            let workout = record(for: track, timeline: timeline, bounds: bounds, id: saver.workoutID, file: file)
            let committed: ImportSaver.Committed
            do {
                let events = timeline.events.filter { workout.contains($0.time) }
                committed = try await saver.commit(workout, events: events, source: "gpx")
            } catch {
                throw await failed(error, track: track.info.index, line: track.line)
            }
            let statistics = track.statistics
            imported.append(ImportedWorkout(
                workout: workout, outcome: committed.outcome, trackIndex: track.info.index, trackName: track.info.name, trackLine: track.line,
                points: committed.points, duplicatesDropped: committed.duplicatesDropped + track.duplicates,
                segments: statistics.segmentCount, samples: track.sampleCount,
                rawElevationGain: statistics.elevationGain, heartRateAverage: track.heartRate?.average,
                heartRateMaximum: track.heartRate?.maximum, skipped: track.skipped))
        }
        while let item = await handOff.next() {
            switch item {
            case let .points(batch):
                do {
                    try await saver.insert(batch)
                } catch {
                    throw await failed(error, track: batch.trackIndex, line: batch.trackLine, lines: batch.lines)
                }
            case let .finished(track):
                guard track.points == 0, let header = track.marks.header else {
                    try await saveRoute(of: track)
                    continue
                }
                // Our own export of a workout without a route: its samples and events in the track's extensions.
                var figures = track.figures
                let timeline = figures.finish(at: header.end.timeIntervalSince1970)
                let workout = routelessRecord(for: track, header: header, timeline: timeline, file: file)
                let samples = track.marks.samples.filter { workout.contains($0.start) && workout.contains($0.end) }
                let committed: ImportSaver.Committed
                do {
                    let events = timeline.events.filter { workout.contains($0.time) }
                    committed = try await saver.commit(workout, samples: samples, events: events, source: "gpx")
                } catch {
                    throw await failed(error, track: track.info.index, line: track.line)
                }
                let heartRate = SampleFigures(samples: samples.filter { $0.type == .heartRate })
                imported.append(ImportedWorkout(
                    workout: workout, outcome: committed.outcome, trackIndex: track.info.index, trackName: track.info.name, trackLine: track.line,
                    points: 0, duplicatesDropped: 0, segments: 0, samples: samples.count, rawElevationGain: 0,
                    heartRateAverage: heartRate?.average, heartRateMaximum: heartRate?.maximum, skipped: track.skipped))
            case let .end(summary):
                return Self.report(file: file, imported: imported, notImported: notImported, summary: summary)
            case let .stopped(error):
                await saver.discard()
                throw .read(error, imported: imported)
            }
        }
        await saver.discard()
        throw .cancelled(file: file, imported: imported)
    }

    /// A finished track's workout's id (when the file is our own export) and times: the first and
    /// last points', or our export's (which hold them).
    private static func bounds(of track: CollectedTrack) -> (id: UUID?, start: Date, end: Date) {
        let statistics = track.statistics
        // A track is saved only with points kept, whose times these are.
        let start = statistics.firstTime?.date ?? .distantPast, end = statistics.lastTime?.date ?? .distantPast
        if let header = track.marks.header, header.start <= start, header.end >= end {
            return (header.id, header.start, header.end)
        }
        return (nil, start, end)
    }

    /// The workout of our own export of a workout without a route: its header's id and times,
    /// the figures its events give.
    private func routelessRecord(for track: CollectedTrack, header: WorkoutEnvelope.Header, timeline: SessionTimeline, file: String) -> WorkoutRecord {
        var values = ["file": (file as NSString).lastPathComponent, "gpx_track": String(track.info.index)]
        values["name"] = track.info.name
        values["description"] = track.info.description
        var totals = timeline.totals(end: header.end.timeIntervalSince1970)
        totals.distance = header.distance  // its device's: no point gives it back
        totals.energy = header.energy
        return WorkoutRecord(
            id: header.id, activityType: options.activity ?? track.info.type.map(WorkoutActivityType.init(gpxType:)) ?? .other,
            start: header.start, end: header.end, totals: totals,
            metadata: WorkoutMetadata(sourceDevice: track.creator, sourceApp: options.sourceApp, values: values))
    }

    private func record(
        for track: CollectedTrack, timeline: SessionTimeline, bounds: (id: UUID?, start: Date, end: Date), id: UUID, file: String
    ) -> WorkoutRecord {
        let statistics = track.statistics
        let (start, end, id) = (bounds.start, bounds.end, bounds.id ?? id)
        var values = ["file": (file as NSString).lastPathComponent, "gpx_track": String(track.info.index)]
        values["name"] = track.info.name
        values["description"] = track.info.description
        if statistics.elevationCount > 1 { values["elevation_gain_raw_m"] = String(format: "%.1f", statistics.elevationGain) }
        var totals = timeline.totals(end: end.timeIntervalSince1970)
        // Our own export says the workout's energy, for which GPX has no place, and how its
        // distance was counted: the wheel's samples beside the points come back as it measured
        // them, so the factor is kept, and the store counts them as the session did.
        let header = bounds.id == nil ? nil : track.marks.header
        if let header {
            totals.energy = header.energy
            if let counting = header.counting { values.merge(counting.metadataValues) { _, ours in ours } }
        }
        return WorkoutRecord(
            id: id,
            activityType: options.activity ?? track.info.type.map(WorkoutActivityType.init(gpxType:)) ?? .other,
            start: start, end: end,
            totals: totals,
            metadata: WorkoutMetadata(
                isIndoor: header?.isIndoor, sourceDevice: track.creator, sourceApp: options.sourceApp, externalID: track.externalID,
                values: values))
    }

    /// The report, with the reader's skips given to the track whose lines hold them.
    private static func report(
        file: String, imported: [ImportedWorkout], notImported: [TrackNotImported], summary: GPXReadSummary
    ) -> GPXImportReport {
        var workouts = imported
        // Where each track starts, in file order: a skip belongs to the last track started before it.
        let starts = (imported.enumerated().map { (line: $0.element.trackLine, workout: Optional($0.offset)) }
            + notImported.map { (line: $0.line, workout: nil) }).sorted { $0.line < $1.line }
        var notImported = notImported
        var outside: [GPXSkip] = []
        for skip in summary.skipped {
            guard let owner = starts.last(where: { $0.line <= skip.line }) else {
                outside.append(skip)
                continue
            }
            if let position = owner.workout {
                workouts[position].skipped.append(skip)
            } else if let position = notImported.firstIndex(where: { $0.line == owner.line }) {
                notImported[position].skipped.append(skip)
            }
        }
        let inFileOrder = { (a: GPXSkip, b: GPXSkip) in (a.line, a.column) < (b.line, b.column) }
        for position in notImported.indices { notImported[position].skipped.sort(by: inFileOrder) }
        for position in workouts.indices { workouts[position].skipped.sort(by: inFileOrder) }
        return GPXImportReport(
            file: file, workouts: workouts, tracksNotImported: notImported, skippedOutsideTracks: outside, read: summary)
    }
}
