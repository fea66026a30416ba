import FIT
import Foundation
import LocationCore

/// FIT export: an activity file as the FIT "Activity File" recipe lays it out (see
/// `FITActivityEncoder`), header and file CRCs, that Garmin's decoder reads without error.
///
/// ## Records
/// One `record` a fix, and where there is no fix (indoors, in a tunnel, before the first fix) one
/// a second in which a sample was taken, as a head unit writes them (``RecordMoments``). A fix's
/// record holds its position, altitude, speed and the distance the workout's time line has counted
/// by its time (a wheel's across a tunnel too, where the workout counts it); a record without a
/// fix the distance so far (a workout without a route: the time line's distance from its wheel's,
/// foot pod's or trainer's `.distance` samples, through the record's second). Each record holds every
/// sample type's value at its time: heart rate, cadence, power, temperature and speed (a fix's own
/// speed first), each the sample of its type **nearest the record's time within its interval**
/// (halfway to the records either side, at most 5 s), taken as the GPX export takes the values on
/// its points, never interpolated. Records are whole seconds (FIT's `date_time`, rounded down).
///
/// A sample no record takes (one of several of a type in a record's interval: a 4 Hz power meter,
/// a strap's two beats in one second) is **not written**, and is counted in
/// ``ExportSummary/samplesNotWritten``: FIT's records hold one value of a type at a time, as a
/// device writes them, and every reader (Strava, Garmin Connect, our import) takes a record's
/// value for its time. The laps' and the session's figures are still those of every sample. Read
/// back, the values of a type stand for the time the records cover, so the mean of an import is
/// the workout's to the rounding of the fields (whole beats and watts) where each type was
/// sampled at most once a record, and close to it otherwise (the mean of a 4 Hz power meter's
/// quarter-seconds, against that of its values nearest each second). A heart rate or cadence over
/// 254, a temperature past ±127 °C cannot be held either, and is counted, as are a wheel's
/// distances beside a route (FIT's `distance` is then the time line's: the points', and the
/// wheel's where the workout counted it, which our import takes back). A recorded session's points
/// less accurate than its limit are left out, as the GPX export leaves them out: they counted for
/// nothing, FIT cannot say how accurate a point was, and an import would count them.
///
/// ## Indoors
/// The `sport` message and the session carry the activity's `sport` and a `sub_sport` from the
/// workout's ``WorkoutMetadata/isIndoor`` (unknown: indoors when it has no route): indoor cycling
/// 6, a treadmill run 1, an indoor walk 27, indoor rowing 14, and virtual activity 58 when the
/// metadata's ``WorkoutMetadata/virtualKey`` (`virtual`) is `true` (a course on a screen drove
/// the trainer); 0 outdoors (``WorkoutActivityType/fitSubSport(indoor:virtual:)``).
///
/// ## Beat-to-beat intervals
/// `QuantityType.heartbeatInterval` samples go in `hrv` messages, as Garmin's devices write
/// them: up to five intervals each (in milliseconds), those that follow one another without a
/// gap; each message carries our `beat_time` fields, the time of its first beat (where its first
/// interval ends), so our import places every beat where it was. An interval of 65.535 s or more
/// cannot be held.
///
/// ## Pauses, laps, identity
/// Every event of the workout is an `event` message where it happened, with our developer fields
/// saying exactly what it was and when (<doc:OwnFiles>): a pause or an auto-pause that stops
/// the timer is a timer stop (trigger `auto` for auto-pause), a resume that starts it a timer
/// start, so other tools see the pauses too. The session's and each lap's `total_timer_time` is
/// the time these events have the timer running (the moving time: a Garmin device stops its
/// timer on auto-pause too), so the file agrees with itself. A workout without pauses (an import of a file with
/// segments but no events) gets timer stops and starts around the breaks between its route
/// segments, which our import does not take for pauses. Laps are ``laps(of:)``'s, the session's
/// totals the workout's; the session carries the workout's id, and the milliseconds of its start
/// and end, so that importing the file into the store that holds the workout finds it there.
///
/// ## One pass
/// The header declares the size of the data, known only once it is all encoded: the data goes to
/// an anonymous temporary file as it is encoded (the route and samples read in batches: memory
/// stays flat), then the header, the data and the CRC to the output. So a write to the store
/// meanwhile cannot make the header and the data disagree.
extension WorkoutStore {
    /// The sample types a FIT `record` holds.
    private static let recordTypes: [QuantityType] = [.heartRate, .cadence, .power, .temperature, .speed]

    nonisolated(nonsending)
    func writeFIT(_ source: ExportSource, into output: inout ExportOutput, sink: ExportSink) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        guard let start = FITWorkoutFields.split(workout.start)?.seconds, let end = FITWorkoutFields.split(workout.end)?.seconds else {
            throw .exportFailed(
                workoutID: workout.id, path: output.path,
                reason: "FIT dates times from 1998-07-04 to 2126; this workout's (\(RFC3339.string(from: workout.start))) cannot be written")
        }
        var spill: SpillFile
        do throws(SpillFile.Failure) { spill = try SpillFile() } catch {
            throw .exportFailed(workoutID: workout.id, path: output.path, reason: error.description)
        }
        let types = try await sampleTypes(of: workout.id)
        var pass = FITExportPass(
            source: source, types: Self.recordTypes.filter(types.contains), beats: types.contains(.heartbeatInterval),
            distances: types.contains(.distance), start: start)
        var summary = try await pass.encode(from: self) { bytes throws(WorkoutStoreError) in
            do throws(SpillFile.Failure) { try spill.write(bytes) } catch {
                throw .exportFailed(workoutID: workout.id, path: output.path, reason: error.description)
            }
        }
        try await pass.finish(from: self, end: end)
        try pass.drain { bytes throws(WorkoutStoreError) in
            do throws(SpillFile.Failure) { try spill.write(bytes) } catch {
                throw .exportFailed(workoutID: workout.id, path: output.path, reason: error.description)
            }
        }
        // The header, now that the data's size is known; the data; the CRC of both.
        var header = FITWriter(dataSize: spill.count)
        var crc = FITCRC()
        let headerBytes = header.takeBytes()
        crc.update(headerBytes)
        output.bytes += headerBytes
        try spill.readAll(workoutID: workout.id, path: output.path, chunkSize: ExportOutput.flushThreshold) { bytes throws(WorkoutStoreError) in
            crc.update(bytes)
            output.bytes.append(contentsOf: bytes)
            try output.flushIfFull(sink)
        }
        output.bytes += [UInt8(crc.value & 0xFF), UInt8(crc.value >> 8)]
        // A wheel's distances are in the records' `distance` of a workout without a route (the time
        // line's, which counts them); beside a route they are not written (the records' distance
        // holds the metres they counted, not the samples).
        if types.contains(.distance) {
            let count = try await sampleCounts(of: workout.id)[.distance] ?? 0
            if source.route == nil { summary.samplesWritten += count } else { summary.samplesNotWritten += count }
        }
        return summary
    }
}
