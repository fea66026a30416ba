import Foundation
import GPX
import LocationCore
import TCX

/// Imports TCX files (Garmin Training Center Database v2, `.tcx` or `.tcx.gz`) into a
/// ``WorkoutStore``: one workout per activity, through the save chain, atomically per workout, in
/// flat memory whatever the file's size.
///
/// ```swift
/// let report = try await TCXImporter(store: store).importFile(at: "run.tcx")
/// for imported in report.workouts { print(imported.workoutID, imported.points, imported.laps ?? 1) }
/// ```
///
/// ## How an activity becomes a workout
/// - **Route**: the track points with a position, in time order, as `Location`s with their
///   altitude and (ActivityExtension) speed; a point without a valid time, or earlier than the
///   one before it, is skipped and reported with its line; an exact repeat is dropped; a lone
///   point dated more than ten minutes ahead of the point after it, which goes back, is the odd
///   one out and is skipped (as in ``FITImporter``).
/// - **Samples**: heart rate, cadence (a bike's `<Cadence>`, else the extension's `RunCadence`)
///   and watts of every point, and the speed of points without a position.
/// - **Indoors**: an activity whose points have no position at all (a treadmill, a trainer) is
///   ``WorkoutMetadata/isIndoor``, and each point's `DistanceMeters` becomes a `.distance` sample:
///   the distance since the point before, over the time between them, so the workout's distance is
///   the device's.
/// - **Laps**: a `lap` event where each lap but the first begins (its `StartTime`), with the
///   previous lap's `TriggerMethod` (`Manual`, `Distance`, `Time`; others give none).
/// - **Pauses**: a second `<Track>` in a lap is where the device paused: a `pause` at the last
///   point before it and a `resume` at its first point, and a new route segment.
/// - **Our own exports** (<doc:OwnFiles>, in elements of our namespace in the extensions of
///   the activity and its points): the workout comes back as it was, under its id (so importing
///   it into the store that holds it finds it there), from its start to its end, with its pauses,
///   auto-pauses, laps and markers exactly and its route segments where they were; its tracks and
///   laps then stand for nothing more. Where the workout counted a sensor's distance (its
///   `sgf:workout` says how), the points' `DistanceMeters` become `.distance` samples as a FIT
///   import's records' do (``FITImporter``), so a wheel's distance across a tunnel comes back.
/// - **Activity**: ``WorkoutImportOptions/activity`` when set, else its `Sport` through
///   ``WorkoutActivityType/init(tcxSport:)``.
/// - **Totals**: as for FIT (``FITImporter``): from the points by the session engine's time line,
///   the moving time being the active time; energy from the laps' calories (none when every lap
///   says 0, as writers that know none do: the schema requires the element). The laps' own totals
///   (distance, timer time, calories, heart rate) are kept as the device's (``DeviceTotals``).
/// - **Identity**: the fingerprint of the route's points (a GPX or FIT file of the same points is
///   the same workout), or of the samples for an activity without positions.
/// - **Metadata**: the creator's name as the source device; `file`, `tcx_activity` (its index),
///   `sport`, `description` (its `<Notes>`) and the `device_*` totals.
///
/// Courses are not workouts: each is listed in ``TCXImportReport/notImported`` with the reason.
///
/// ## Failure
/// As ``GPXImporter``: the workouts of activities finished before an error stay saved; the one
/// being read is not saved; ``TCXImportError`` names the file, line and column. With
/// ``WorkoutImportOptions/strict``, the first point or value the rules above would skip (and every
/// invalid value the reader finds) stops the import as an invalid value, at its line.
public struct TCXImporter: Sendable {
    /// The store imported into.
    public let store: WorkoutStore
    /// How it imports.
    public var options: TCXImportOptions

    /// An importer into `store`.
    public init(store: WorkoutStore, options: TCXImportOptions = TCXImportOptions()) {
        self.store = store
        self.options = options
    }

    /// Imports every activity of the TCX file at `path` (plain or gzip-compressed); `progress` is
    /// called on the reader's thread with the bytes read and the file's size when known.
    ///
    /// - Throws: ``TCXImportError``.
    public func importFile(
        at path: String,
        progress: (@Sendable (_ bytesRead: Int64, _ totalBytes: Int64?) -> Void)? = nil
    ) async throws(TCXImportError) -> TCXImportReport {
        let options = options
        return try await ImportPipeline.run(thread: "tcx-import", read: { (outlet: ImportOutlet<TCXImportItem>) in
            let collector = TCXActivityCollector(file: path, options: options, outlet: outlet)
            do throws(TCXError) {
                let summary = try TCXReader(options: TCXReadOptions(strict: options.strict)).read(fileAt: path, progress: progress) { event in
                    try collector.handle(event)
                }
                outlet.deliverLast(.end(summary))
            } catch {
                // Strict mode: a point the import would skip is an invalid value, as the reader's are.
                outlet.deliverLast(.stopped(collector.refusal.map {
                    .invalidValue(file: path, line: $0.line, column: $0.column, reason: $0.reason)
                } ?? error))
            }
        }, save: { handOff throws(TCXImportError) in
            try await save(from: handOff, file: path)
        })
    }

    /// Takes what the reader sends and saves a workout at the end of each activity.
    private func save(from handOff: HandOff<TCXImportItem>, file: String) async throws(TCXImportError) -> TCXImportReport {
        var imported: [ImportedWorkout] = []
        var notImported: [TCXNotImported] = []
        var saver = ImportSaver(store: store)
        func failed(_ error: WorkoutStoreError, line: Int, lines: [Int] = []) async -> TCXImportError {
            await saver.discard()
            if case .cancelled = error { return .cancelled(file: file, imported: imported) }
            return .save(file: file, line: ImportSaver.place(of: error, in: lines, else: line), error, imported: imported)
        }
        while let item = await handOff.next() {
            switch item {
            case let .points(batch):
                do {
                    try await saver.insert(batch)
                } catch {
                    throw await failed(error, line: batch.trackLine, lines: batch.lines)
                }
            case let .finished(.activity(activity)):
                guard activity.notImported == nil, saver.hasBatches else {
                    await saver.discard()
                    notImported.append(TCXNotImported(
                        kind: .activity, index: activity.index, line: activity.place, reason: activity.notImported ?? "it has nothing to keep"))
                    continue
                }
                var workout = activity.workout
                if !activity.isOurs { workout.id = saver.workoutID }
                let committed: ImportSaver.Committed
                do {
                    committed = try await saver.commit(workout, events: activity.events, source: "tcx")
                } catch {
                    throw await failed(error, line: activity.place)
                }
                var entry = ImportedWorkout(
                    workout: workout, outcome: committed.outcome, trackIndex: activity.index, trackName: nil, trackLine: activity.place,
                    points: committed.points, duplicatesDropped: activity.duplicates + committed.duplicatesDropped,
                    segments: activity.segments, samples: activity.samples, rawElevationGain: activity.rawElevationGain,
                    heartRateAverage: activity.heartRateAverage, heartRateMaximum: activity.heartRateMaximum, skipped: activity.skipped)
                (entry.laps, entry.pauses, entry.stops, entry.deviceTotals) = (activity.laps, activity.pauses, activity.stops, activity.deviceTotals)
                imported.append(entry)
            case let .finished(.course(course)):
                notImported.append(TCXNotImported(
                    kind: .course, index: course.index, name: course.name, line: course.line,
                    reason: "it is a course (a route to follow, \(course.trackpoints) points), not a recorded workout"))
            case let .end(summary):
                return TCXImportReport(file: file, workouts: imported, notImported: notImported, read: summary)
            case let .stopped(error):
                await saver.discard()
                throw .read(error, imported: imported)
            }
        }
        await saver.discard()
        throw .cancelled(file: file, imported: imported)
    }
}
