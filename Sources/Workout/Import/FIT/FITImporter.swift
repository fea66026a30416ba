import FIT
import Foundation
import LocationCore

/// Imports FIT activity files (`.fit`, `.fit.gz`) into a ``WorkoutStore``: one workout per
/// activity (per FIT file of a chain), through the save chain, atomically per workout, in flat
/// memory whatever the file's size.
///
/// ```swift
/// let report = try await FITImporter(store: store).importFile(at: "ride.fit")
/// for imported in report.workouts {
///     print(imported.isNew ? "imported" : "already imported", imported.workoutID, imported.points, imported.laps)
/// }
/// print(report.read.issues)   // a bad CRC, a file cut off partway: what was imported anyway
/// ```
///
/// ## How an activity becomes a workout
/// - **Route**: the `record`s with a position, in time order, as `Location`s: position,
///   altitude (enhanced when given), speed, and the device's GPS accuracy as horizontal accuracy.
///   A record dated in the device's system time (a `date_time` below 0x10000000: seconds since
///   power-up, as a Garmin VIRB writes them) is placed in UTC through the file's
///   `timestamp_correlation`, or a `gps_metadata` with its `utc_timestamp`, wherever in the file
///   it comes (what comes before it waits for it; so do its timer events, laps and sessions). A
///   record without a time (or in system time, in a file with no such anchor) or earlier than the
///   one before it is skipped and reported with its offset; one equal to the record before (time,
///   position, altitude) is dropped as a duplicate. A lone record dated more than ten minutes
///   ahead of the record after it, which goes back, is the odd one out (a misdated record, two
///   recordings spliced) and is skipped, as a live session's admission skips such a fix: it no
///   longer makes every record after it "earlier than the one before".
/// - **Samples**: heart rate, cadence (with its fraction), power and temperature of every record,
///   and the speed of records without a position, as instantaneous `QuantitySample`s. A record
///   without a position keeps its samples. A developer field that says which record field it is
///   (a power pod's "Power") stands in for that field when the record lacks it; the other
///   developer fields of a point are kept with it as XML (exported back in GPX), up to 8 KB a
///   point (the fields past it are reported). The beat-to-beat intervals of `hrv` messages are
///   `QuantityType.heartbeatInterval` samples: a device's run on from the activity's first timer
///   start, each ending where the next begins (those outside the records are reported and left
///   out).
/// - **Pauses**: timer stops and starts become ``WorkoutEvent``s, `pause` and `resume`, or
///   `motion_paused` and `motion_resumed` when the device auto-paused; each resume starts a new
///   route segment, and is dated no later than the record after it (a timer started after the
///   last record makes no resume: the workout ends paused at its last record). Stops and starts
///   with no record between them make one pause, unless the stop after the start is of the other
///   kind (a rider pausing just after auto-pause ended): each pause is then kept as what it was. Laps: a `lap` event at the end of every lap but the last, with its trigger.
///   ``WorkoutStore/laps(of:)`` then gives the file's laps, worked out from the points.
/// - **Indoors**: an activity whose session (or `sport` message) has an indoor sub sport (indoor
///   cycling, treadmill, virtual activity: `FITSubSport.isIndoor`), or whose records have no
///   position at all, is ``WorkoutMetadata/isIndoor``; the sub sport is kept in the metadata
///   (``WorkoutMetadata/subSportKey``, and ``WorkoutMetadata/virtualKey`` `true` for a virtual
///   course). Without positions, each record's `distance` (the device's, from a wheel, a foot pod
///   or a trainer) becomes a `.distance` sample, the distance since the record before over the
///   time between them (a distance that goes back is reported, and counted again from there), so
///   the workout's distance is the device's.
/// - **Activity**: ``WorkoutImportOptions/activity`` when set, else the session's sport through
///   ``WorkoutActivityType/init(fitSport:)`` (a multisport file's sessions of several sports: ``WorkoutActivityType/other``).
/// - **Times**: from the session's start (when before the first record) to the last record, or
///   the timer's last stop after it (not the session message's time, which some devices write
///   when the activity is saved, long after: the device's elapsed time keeps that span). A record
///   more than a day after the one before is taken for damage and skipped.
/// - **Totals**: distance and elevation from the points, by the session engine's time line
///   (distance counted while not paused, within segments), and as a recorded session's, the
///   moving time is the active time (the timer running); energy from the device. The device's own totals (its sessions') are kept beside them in the
///   metadata (``DeviceTotals``).
/// - **Identity**: the external id is the fingerprint of the route's points (the GPX import's, so
///   the same points from a FIT or a GPX file are the same workout), or of the samples for an
///   activity without positions: importing the same activity again saves nothing.
/// - **Our own exports** (<doc:OwnFiles>: developer fields of ours): the workout comes back as it
///   was, under its id (so importing it into the store that holds it finds it there), from its
///   start to its end (to the millisecond; a second earlier at most, where its first record,
///   whole seconds, lies before it), with its events exactly, its route segments where they were,
///   and each beat where it was; its timer events and laps then stand for nothing more. Its first
///   timer start says how its distance was counted: the records' distances where the workout
///   counted a sensor's (every record with ``DistanceSource/sensor``; with
///   ``DistanceSource/automatic`` those of each stretch of more than 5 s between fixes, and at the
///   fix that ends it) become `.distance` samples, the distance since the record before, so a
///   wheel's distance across a tunnel comes back; the metadata keeps the source (``SensorDistance``,
///   with a factor of 1: the records' distances have it in them). Another device's records'
///   distances beside positions are not taken: outdoors they are often its GPS's, which the
///   points measure again.
/// - **Metadata**: the recording device's name as the source device, the values `file`,
///   `fit_file` (which file of a chain), `sport`, `sub_sport`, `name` (the sport's name on the device),
///   `utc_offset_s` and the `device_*` totals.
///
/// A FIT file that is not an activity (settings, a course, monitoring, a workout plan) or has no
/// records is listed in ``FITImportReport/notImported`` with the reason, and saves nothing.
///
/// ## Failure
/// A bad CRC, or a file cut off or damaged partway, imports what came before it and lists the
/// issue in ``FITImportReport/read``; a record or value the rules above skip is listed with the
/// workout. With ``WorkoutImportOptions/strict`` the import stops at the first of either with
/// ``FITImportError`` instead (``FITImportError/invalidRecord(file:offset:reason:imported:)`` for
/// a record), and the workout being read is not saved. Workouts of activities finished before a
/// failure stay saved.
public struct FITImporter: Sendable {
    /// The store imported into.
    public let store: WorkoutStore
    /// How it imports.
    public var options: FITImportOptions

    /// An importer into `store`.
    public init(store: WorkoutStore, options: FITImportOptions = FITImportOptions()) {
        self.store = store
        self.options = options
    }

    /// Imports every activity of the FIT file at `path` (plain or gzip-compressed).
    ///
    /// - Parameters:
    ///   - path: the file to import.
    ///   - progress: called on the reader's thread after each chunk read, with the bytes read so
    ///     far and the file's size when known.
    /// - Throws: ``FITImportError``.
    public func importFile(
        at path: String,
        progress: (@Sendable (_ bytesRead: Int64, _ totalBytes: Int64?) -> Void)? = nil
    ) async throws(FITImportError) -> FITImportReport {
        let options = options
        return try await ImportPipeline.run(thread: "fit-import", read: { (outlet: ImportOutlet<FITImportItem>) in
            let collector = FITActivityCollector(file: path, options: options, outlet: outlet)
            do throws(FITError) {
                let summary = try FITReader(options: FITReadOptions(strict: options.strict)).read(fileAt: path, progress: progress) { event in
                    try collector.handle(event)
                }
                do {
                    try collector.finish()
                    outlet.deliverLast(.end(summary))
                } catch {
                    if let refusal = collector.refusal { outlet.deliverLast(.stopped(.refused(refusal))) }
                }
            } catch {
                outlet.deliverLast(.stopped(collector.refusal.map(FITReadStop.refused) ?? .failed(error)))
            }
        }, save: { handOff throws(FITImportError) in
            try await save(from: handOff, file: path)
        })
    }

    /// Takes what the reader sends and saves a workout at the end of each activity.
    private func save(from handOff: HandOff<FITImportItem>, file: String) async throws(FITImportError) -> FITImportReport {
        var imported: [FITImportedWorkout] = []
        var notImported: [FITActivityNotImported] = []
        var notImportedCount = 0
        var saver = ImportSaver(store: store)
        func failed(_ error: WorkoutStoreError, offset: Int, offsets: [Int] = []) async -> FITImportError {
            await saver.discard()
            if case .cancelled = error { return .cancelled(file: file, imported: imported) }
            return .save(file: file, offset: ImportSaver.place(of: error, in: offsets, else: offset), error, imported: imported)
        }
        while let item = await handOff.next() {
            switch item {
            case let .points(batch):
                do {
                    try await saver.insert(batch)
                } catch {
                    throw await failed(error, offset: batch.lines.first ?? batch.trackLine, offsets: batch.lines)
                }
            case let .finished(activity):
                guard activity.notImported == nil, saver.hasBatches else {
                    await saver.discard()
                    notImportedCount += 1
                    if notImported.count < FITImportReport.maximumNotImportedListed {
                        notImported.append(FITActivityNotImported(
                            fileIndex: activity.index, offset: activity.place,
                            reason: activity.notImported ?? "it has no records to keep", skipped: activity.skipped))
                    }
                    continue
                }
                var workout = activity.workout
                if !activity.isOurs { workout.id = saver.workoutID }
                let committed: ImportSaver.Committed
                do {
                    committed = try await saver.commit(workout, events: activity.events, source: "fit")
                } catch {
                    throw await failed(error, offset: activity.place)
                }
                imported.append(FITImportedWorkout(
                    workout: workout, outcome: committed.outcome, fileIndex: activity.index, offset: activity.place,
                    points: committed.points, duplicatesDropped: activity.duplicates + committed.duplicatesDropped,
                    segments: activity.segments, samples: activity.samples, laps: activity.laps, pauses: activity.pauses,
                    stops: activity.stops,
                    heartRateAverage: activity.heartRateAverage, heartRateMaximum: activity.heartRateMaximum,
                    deviceTotals: activity.deviceTotals, skipped: activity.skipped))
            case let .end(summary):
                return FITImportReport(file: file, workouts: imported, notImported: notImported, notImportedCount: notImportedCount, read: summary)
            case let .stopped(.failed(error)):
                await saver.discard()
                throw .read(error, imported: imported)
            case let .stopped(.refused(skip)):
                await saver.discard()
                throw .invalidRecord(file: file, offset: skip.offset, reason: skip.reason, imported: imported)
            }
        }
        await saver.discard()
        throw .cancelled(file: file, imported: imported)
    }
}
