import FIT
import Foundation
import LocationCore

/// FIT export: an activity file as the FIT "Activity File" recipe lays it out (see
/// `FITActivityEncoder`), header and file CRCs, that Garmin's decoder reads without error.
///
/// ## Records
/// A `record` is written where there is something to record: at each route point (its position,
/// altitude, speed and the distance the workout's time line has counted at it, with the samples
/// taken at its time, within half a millisecond), and at each time no point has where a heart
/// rate, cadence, power, temperature or speed was taken. Records are whole seconds (FIT's
/// `date_time`), so two instants in one second make two records with the same time: every value
/// is in the file, but a reader that keeps one value a second (our FIT import among them: it keeps
/// the first sample of each type in a second and reports the others) loses the rest. A heart rate
/// or cadence over 254, a temperature past ±127 °C cannot be held, and is counted in
/// ``ExportSummary/samplesNotWritten``, as are a wheel's distances (FIT's `distance` is the time
/// line's). A recorded session's points less accurate than its limit are left out, as the GPX
/// export leaves them out: they counted for nothing, FIT cannot say how accurate a point was, and
/// an import would count them.
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
/// start, so other tools see the pauses too. A workout without pauses (an import of a file with
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
            source: source, types: Self.recordTypes.filter(types.contains), beats: types.contains(.heartbeatInterval), start: start)
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
        // A wheel's distances have no place (FIT's `distance` is the time line's).
        if types.contains(.distance) { summary.samplesNotWritten += try await sampleCounts(of: workout.id)[.distance] ?? 0 }
        return summary
    }
}

/// The one pass of a FIT export over a workout: its records, events and `hrv` messages in time
/// order, then its laps, session and activity.
struct FITExportPass {
    let source: ExportSource
    let types: [QuantityType]
    /// Whether the workout has beat-to-beat intervals.
    let beats: Bool
    let start: UInt32
    private(set) var encoder: FITActivityEncoder
    private var timer = TimerState()
    private var nextEvent = 0
    private var feed: TimelineFeed
    private var figures: [QuantityType: SampleFigures] = [:]
    private var lapFigures: LapSampleFigures
    /// The workout's training figures, over the samples as written.
    private var training: TrainingFigures
    private let averaging: SampleAveraging
    private var beatGroup = BeatGroup()
    private var firstPosition: (latitude: Double, longitude: Double)?
    private var points = 0
    /// Beat-to-beat intervals read.
    private var beatCount = 0

    init(source: ExportSource, types: [QuantityType], beats: Bool, start: UInt32) {
        self.source = source
        self.types = types
        self.beats = beats
        self.start = start
        encoder = FITActivityEncoder(hasRoute: source.route != nil, types: types)
        feed = TimelineFeed(options: source.timelineOptions, events: source.events)
        let profile = TrainingProfile(source.workout.metadata) ?? TrainingProfile()
        averaging = SampleAveraging(source.workout.metadata)
        lapFigures = LapSampleFigures(events: source.events, profile: profile, averaging: averaging)
        training = TrainingFigures(profile: profile, start: source.workout.start)
        // The time line begins at the workout's start, as the store reads it back (laps(of:)).
        feed.begin(at: source.workout.start.timeIntervalSince1970)
        lapFigures.begin(at: source.workout.start.timeIntervalSince1970)
    }

    /// Encodes the records, events and `hrv` messages, handing the bytes to `spill` as they come.
    mutating func encode(
        from store: WorkoutStore, spill: (UnsafeRawBufferPointer) throws(WorkoutStoreError) -> Void
    ) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        let serial = workout.id.uuid
        encoder.begin(
            start: start, startMilliseconds: FITWorkoutFields.split(workout.start)?.milliseconds ?? 0, serial: max(1, UInt32(serial.0) << 24 | UInt32(serial.1) << 16 | UInt32(serial.2) << 8 | UInt32(serial.3)),
            device: workout.metadata.sourceDevice ?? "swift-gps-facade", beats: beats)
        let events = source.events
        let synthesizesPauses = !events.contains { [.pause, .resume, .motionPaused, .motionResumed].contains($0.kind) }
        var instants = ExportInstants(store: store, workoutID: workout.id, types: types, options: source.timelineOptions)
        var beatCursor = beats ? SampleCursor(store: store, workoutID: workout.id, type: .heartbeatInterval) : nil
        var (segments, samples, lost, written) = (0, 0, 0, 0)
        beatCount = 0
        var last: (segment: Int, time: UInt32)?
        while let instant = try await instants.next() {
            let time = FITTime.value(fromSeconds: instant.time) ?? start
            // Events before the instant; a resume at its time too: the timer starts before the
            // second's first record and stops after its last, as devices write them.
            while nextEvent < events.count, events[nextEvent].time.timeIntervalSince1970 < instant.time
                || (events[nextEvent].time.timeIntervalSince1970 == instant.time && events[nextEvent].resumes) {
                writeEvent(events[nextEvent])
                nextEvent += 1
            }
            if beatCursor != nil { lost += try await writeBeats(&beatCursor!, through: instant.time) }
            var newSegment: Int?
            if let point = instant.point {
                if last?.segment != point.segment {
                    segments += 1
                    if let last {
                        newSegment = point.segment
                        if synthesizesPauses {
                            encoder.timer(starts: false, at: last.time, automatic: false)
                            encoder.timer(starts: true, at: time, automatic: false)
                        }
                    }
                }
                last = (point.segment, time)
                feed.add(TimelinePoint(point))
                points += 1
                firstPosition = firstPosition ?? (point.location.latitude, point.location.longitude)
            }
            lost += encoder.record(instant, at: time, distance: instant.point == nil ? nil : feed.timeline.distance, segment: newSegment)
            for type in types {
                guard let value = instant.values[type] else { continue }
                samples += 1
                let sample = QuantitySample(type: type, value: value, at: Date(timeIntervalSince1970: instant.time))
                figures[type].add(sample, averaging: averaging)
                lapFigures.add(sample)
                training.add(sample)
            }
            written += 1
            if written % 4_096 == 0, Task.isCancelled { throw .cancelled(operation: .export) }
            if encoder.writer.bytes.count >= ExportOutput.flushThreshold { try encoder.drain(spill) }
        }
        if beatCursor != nil { lost += try await writeBeats(&beatCursor!, through: .infinity) }
        lost += flushBeats()
        while nextEvent < events.count {
            writeEvent(events[nextEvent])
            nextEvent += 1
        }
        return ExportSummary(
            format: .fit, points: points, segments: segments, samplesWritten: samples + beatCount - lost, samplesNotWritten: lost, bytes: 0)
    }

    /// Hands the bytes encoded so far to `body`.
    mutating func drain(_ body: (UnsafeRawBufferPointer) throws(WorkoutStoreError) -> Void) throws(WorkoutStoreError) {
        try encoder.drain(body)
    }

    /// An event of the workout, telling the timer's change, if any.
    private mutating func writeEvent(_ event: WorkoutEvent) {
        training.apply(event)
        lapFigures.apply(event)
        for type in figures.keys { figures[type]?.apply(event) }
        encoder.event(event, timer: timer.apply(event))
    }

    /// Gathers the beat-to-beat intervals that end by `time` into `hrv` messages; returns how
    /// many intervals cannot be held.
    private mutating func writeBeats(_ cursor: inout SampleCursor, through time: Double) async throws(WorkoutStoreError) -> Int {
        var lost = 0
        while let beat = try await cursor.head(), beat.end <= time {
            cursor.advance()
            beatCount += 1
            if !beatGroup.add(beat) {
                lost += flushBeats()
                _ = beatGroup.add(beat)
            }
        }
        return lost
    }

    private mutating func flushBeats() -> Int {
        guard let first = beatGroup.firstBeat else { return 0 }
        defer { beatGroup = BeatGroup() }
        return encoder.hrv(beatGroup.intervals, firstBeat: Date(timeIntervalSince1970: first))
    }

    /// The laps (the time line's, as ``WorkoutStore/laps(of:)`` gives them, without reading the
    /// workout again: ``LapSampleFigures``), the timer's last stop, the session and the activity.
    mutating func finish(from store: WorkoutStore, end: UInt32) async throws(WorkoutStoreError) {
        let workout = source.workout
        var laps = feed.finish(at: workout.end.timeIntervalSince1970).laps
        training.finish(at: workout.end)
        lapFigures.finish(at: workout.end.timeIntervalSince1970)
        var lapTraining: [TrainingSummary?] = Array(repeating: nil, count: laps.count)
        if lapFigures.matches(laps) {
            for index in laps.indices {
                laps[index].samples = lapFigures.figures[index]
                laps[index].heartRateAverage = laps[index].samples[.heartRate]?.average
                lapTraining[index] = lapFigures.training[index].summary
            }
        } else {
            laps = try await store.laps(of: workout.id)
        }
        let sport = workout.activityType.fitSport
        // A workout without a route has no laps of its own; its file has one, the whole workout.
        let wholeLap = WorkoutLap(
            index: 1, start: workout.start, end: workout.end, distance: workout.totals.distance ?? 0, elapsedTime: workout.elapsedTime,
            duration: workout.duration, movingTime: workout.movingTime)
        var fileLaps = laps.isEmpty ? [wholeLap] : laps
        if laps.isEmpty {
            fileLaps[0].samples = figures
            lapTraining = [training.summary]
        }
        for (index, lap) in fileLaps.enumerated() {
            encoder.lap(FITActivityEncoder.Summary(
                start: FITWorkoutFields.split(lap.start)?.seconds ?? start, end: FITWorkoutFields.split(lap.end)?.seconds ?? end,
                elapsed: lap.elapsedTime, timer: lap.duration, distance: lap.distance, samples: lap.samples, sport: sport,
                training: lapTraining.indices.contains(index) ? lapTraining[index] : nil),
                index: index, trigger: Self.fitLapTrigger(lap, isLast: index == fileLaps.count - 1))
        }
        // The timer ran for the workout's duration: the time not paused by the user.
        let timerTime = workout.duration
        encoder.end(
            FITActivityEncoder.Summary(
                start: start, end: end, elapsed: workout.elapsedTime, timer: timerTime,
                distance: workout.totals.distance ?? (points > 1 ? feed.timeline.distance : nil), samples: figures, sport: sport,
                training: training.summary),
            header: source.envelope.header, laps: fileLaps.count, ascent: workout.totals.elevationGain,
            descent: workout.totals.elevationLoss, calories: workout.totals.energy,
            localOffset: workout.metadata.values["utc_offset_s"].flatMap { Int($0) }, startPosition: firstPosition,
            timerRunning: timer.isRunning)
    }

    /// FIT's `lap_trigger` of a lap: its own (0 manual, 1 time, 2 distance), 7 (session end) for
    /// the last lap the workout's end ended, 0 for one ended by a lap event without a trigger.
    private static func fitLapTrigger(_ lap: WorkoutLap, isLast: Bool) -> UInt8 {
        switch lap.trigger {
        case .time: 1
        case .distance: 2
        case .manual: 0
        case nil: isLast ? 7 : 0
        }
    }
}

extension WorkoutEvent {
    /// Whether it ends a pause (by the user or auto-pause).
    var resumes: Bool { kind == .resume || kind == .motionResumed }
}

/// Beat-to-beat intervals that follow one another without a gap (each beginning within a
/// millisecond of where the one before ended), up to an `hrv` message's five.
private struct BeatGroup {
    private(set) var intervals: [Double] = []
    /// When the first interval ends: its beat.
    private(set) var firstBeat: Double?
    private var lastEnd: Double?

    /// Adds an interval; `false` when it does not follow on (or the group is full): write the group, then add it again.
    mutating func add(_ beat: SampleCursor.Sample) -> Bool {
        if let lastEnd {
            guard intervals.count < FITWorkoutFields.hrvValues, abs(beat.start - lastEnd) <= 0.001 else { return false }
        } else {
            firstBeat = beat.end
        }
        intervals.append(beat.value)
        lastEnd = beat.end
        return true
    }
}

/// The timer as the stored pauses leave it: it stops when the workout is first paused (by the
/// user or auto-pause) and starts when neither pauses it any more.
private struct TimerState {
    var user = false
    var motion = false

    var isRunning: Bool { !user && !motion }

    /// Takes an event; returns how it changes the timer (starts or stops, by auto-pause or not), if it does.
    mutating func apply(_ event: WorkoutEvent) -> (starts: Bool, automatic: Bool)? {
        let wasRunning = isRunning
        switch event.kind {
        case .pause: user = true
        case .resume: user = false
        case .motionPaused: motion = true
        case .motionResumed: motion = false
        case .lap, .marker: return nil
        }
        guard wasRunning != isRunning else { return nil }
        return (isRunning, event.kind == .motionPaused || event.kind == .motionResumed)
    }
}
