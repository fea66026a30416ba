import FIT
import Foundation

/// The one pass of a FIT export over a workout: its records (``RecordMoments``), events and `hrv`
/// messages in time order, then its laps, session and activity. ``WorkoutStore`` documents the
/// file it writes (`writeFIT`).
struct FITExportPass {
    let source: ExportSource
    /// The sample types the records' fields hold.
    let types: [QuantityType]
    /// Whether the workout has beat-to-beat intervals.
    let beats: Bool
    /// Whether it has a wheel's, a foot pod's or a trainer's distances.
    let distances: Bool
    let start: UInt32
    private(set) var encoder: FITActivityEncoder
    private var timer = TimerState()
    private var spans = TimerSpans()
    private var nextEvent = 0
    private var feed: TimelineFeed
    /// The figures of each type's samples, by `QuantityType.hashKey` (an array: a dictionary
    /// hashed the type's name for each of a million samples).
    private var figuresByType = [SampleFigures?](repeating: nil, count: QuantityType.allCases.count)
    private var lapFigures: LapSampleFigures
    /// The workout's training figures, over every sample.
    private var training: TrainingFigures
    private let averaging: SampleAveraging
    private var beatGroup = BeatGroup()
    private var firstPosition: (latitude: Double, longitude: Double)?
    private var points = 0
    /// Beat-to-beat intervals read.
    private var beatCount = 0

    init(source: ExportSource, types: [QuantityType], beats: Bool, distances: Bool, start: UInt32) {
        self.source = source
        self.types = types
        self.beats = beats
        self.distances = distances
        self.start = start
        encoder = FITActivityEncoder(hasRoute: source.route != nil, types: types, distances: distances)
        feed = TimelineFeed(options: source.timelineOptions, events: source.events)
        let profile = TrainingProfile(source.workout.metadata) ?? TrainingProfile()
        averaging = SampleAveraging(source.workout.metadata)
        lapFigures = LapSampleFigures(events: source.events, profile: profile, averaging: averaging)
        training = TrainingFigures(profile: profile, start: source.workout.start)
        // The time line begins at the workout's start, as the store reads it back (laps(of:)).
        feed.begin(at: source.workout.start.timeIntervalSince1970)
        lapFigures.begin(at: source.workout.start.timeIntervalSince1970)
    }

    /// Whether the file says the workout was done indoors: its metadata's ``WorkoutMetadata/isIndoor``,
    /// else whether it has no route.
    var isIndoor: Bool { source.workout.metadata.isIndoor ?? (source.route == nil) }

    /// Encodes the records, events and `hrv` messages, handing the bytes to `spill` as they come.
    mutating func encode(
        from store: WorkoutStore, spill: (UnsafeRawBufferPointer) throws(WorkoutStoreError) -> Void
    ) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        let serial = workout.id.uuid
        encoder.begin(
            start: start, startMilliseconds: FITWorkoutFields.split(workout.start)?.milliseconds ?? 0, serial: max(1, UInt32(serial.0) << 24 | UInt32(serial.1) << 16 | UInt32(serial.2) << 8 | UInt32(serial.3)),
            device: workout.metadata.sourceDevice ?? "swift-gps-facade", beats: beats,
            sport: workout.activityType.fitSport, subSport: workout.activityType.fitSubSport(indoor: isIndoor, virtual: workout.metadata.isVirtual),
            counting: source.envelope.header.counting, indoor: workout.metadata.isIndoor)
        spans.start(at: workout.start.timeIntervalSince1970)
        let events = source.events
        let synthesizesPauses = !events.contains { [.pause, .resume, .motionPaused, .motionResumed].contains($0.kind) }
        // A workout without a route takes its records' times from its distances too (a trainer's).
        let momentTypes = types + (distances && source.route == nil ? [.distance] : [])
        var moments = RecordMoments(store: store, workoutID: workout.id, types: momentTypes, options: source.timelineOptions)
        var beatCursor = beats ? SampleCursor(store: store, workoutID: workout.id, type: .heartbeatInterval) : nil
        var distanceCursor = distances ? SampleCursor(store: store, workoutID: workout.id, type: .distance) : nil
        var (segments, held, lost, written) = (0, 0, 0, 0)
        beatCount = 0
        var last: (segment: Int, time: Double)?
        while let moment = try await moments.next() {
            let instant = moment.instant
            let time = FITTime.value(fromSeconds: instant.time) ?? start
            // Events before the record; a resume at its time too: the timer starts before the
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
                            timer(starts: false, at: last.time)
                            timer(starts: true, at: instant.time)
                        }
                    }
                }
                last = (point.segment, instant.time)
                if distanceCursor != nil { try await feed.addDistances(from: &distanceCursor!, endingBefore: instant.time) }
                feed.add(TimelinePoint(point))
                points += 1
                firstPosition = firstPosition ?? (point.location.latitude, point.location.longitude)
            }
            let distance = try await feed.recordDistance(
                at: instant.time, through: moment.through, from: &distanceCursor, hasRoute: source.route != nil, afterFirstPoint: points > 0)
            lost += encoder.record(instant, at: time, distance: distance, segment: newSegment)
            for type in types where instant.values[type] != nil { held += 1 }
            // A fix's own speed is the record's: a wheel's speed beside it is not written.
            if instant.point?.location.speed != nil, instant.values.speed != nil { lost += 1 }
            for sample in moments.samples {
                figuresByType[sample.type.hashKey].add(sample, averaging: averaging)
                lapFigures.add(sample)
                training.add(sample)
            }
            written += 1
            if written % 4_096 == 0, Task.isCancelled { throw .cancelled(operation: .export) }
            if encoder.writer.bytes.count >= ExportOutput.flushThreshold { try encoder.drain(spill) }
        }
        if beatCursor != nil { lost += try await writeBeats(&beatCursor!, through: .infinity) }
        lost += flushBeats()
        if distanceCursor != nil { try await feed.addDistances(from: &distanceCursor!, endingBefore: .infinity, including: true) }
        while nextEvent < events.count {
            writeEvent(events[nextEvent])
            nextEvent += 1
        }
        let unheld = types.map { moments.notWritten[$0] ?? 0 }.reduce(0, +)
        return ExportSummary(
            format: .fit, points: points, segments: segments, samplesWritten: held + beatCount - lost,
            samplesNotWritten: unheld + lost, bytes: 0)
    }

    /// Hands the bytes encoded so far to `body`.
    mutating func drain(_ body: (UnsafeRawBufferPointer) throws(WorkoutStoreError) -> Void) throws(WorkoutStoreError) {
        try encoder.drain(body)
    }

    /// An event of the workout, telling the timer's change, if any.
    private mutating func writeEvent(_ event: WorkoutEvent) {
        training.apply(event)
        lapFigures.apply(event)
        for index in figuresByType.indices { figuresByType[index]?.apply(event) }
        let change = timer.apply(event)
        if let change {
            let time = event.time.timeIntervalSince1970
            if change.starts { spans.start(at: time) } else { spans.stop(at: time) }
        }
        encoder.event(event, timer: change)
    }

    /// A timer start or stop of no event of the workout's: around a break between route segments
    /// of a workout without pauses.
    private mutating func timer(starts: Bool, at time: Double) {
        if starts { spans.start(at: time) } else { spans.stop(at: time) }
        encoder.timer(starts: starts, at: FITTime.value(fromSeconds: time) ?? start, automatic: false)
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
    ///
    /// The timer time of the session and of each lap (`total_timer_time`) is the time the file's
    /// timer events have the timer running: it stops at each pause and at each auto-pause (as a
    /// Garmin device stops its timer on auto-pause), so it is the workout's moving time, and a
    /// tool that reads the events finds the totals the file states. (Writing the duration, the
    /// time not paused by the user, beside timer stops for the auto-pauses made a file that
    /// disagreed with itself; writing no timer events for auto-pauses would hide the stops from
    /// every other tool.) Our import reads the workout's events from our fields, not from these
    /// totals, so its duration and moving time come back as they were.
    mutating func finish(from store: WorkoutStore, end: UInt32) async throws(WorkoutStoreError) {
        let workout = source.workout
        var figures: [QuantityType: SampleFigures] = [:]
        for type in QuantityType.allCases { figures[type] = figuresByType[type.hashKey] }
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
        let subSport = workout.activityType.fitSubSport(indoor: isIndoor, virtual: workout.metadata.isVirtual)
        // A workout without a route has no laps of its own; its file has one, the whole workout.
        let wholeLap = WorkoutLap(
            index: 1, start: workout.start, end: workout.end, distance: workout.totals.distance ?? 0, elapsedTime: workout.elapsedTime,
            duration: workout.duration, movingTime: workout.movingTime)
        var fileLaps = laps.isEmpty ? [wholeLap] : laps
        if laps.isEmpty {
            fileLaps[0].samples = figures
            lapTraining = [training.summary]
        }
        spans.stop(at: workout.end.timeIntervalSince1970)
        let timers = spans.running(in: fileLaps.map { ($0.start.timeIntervalSince1970, $0.end.timeIntervalSince1970) })
        for (index, lap) in fileLaps.enumerated() {
            encoder.lap(FITActivityEncoder.Summary(
                start: FITWorkoutFields.split(lap.start)?.seconds ?? start, end: FITWorkoutFields.split(lap.end)?.seconds ?? end,
                elapsed: lap.elapsedTime, timer: timers[index], distance: lap.distance, samples: lap.samples, sport: sport,
                subSport: subSport, training: lapTraining.indices.contains(index) ? lapTraining[index] : nil),
                index: index, trigger: Self.fitLapTrigger(lap, isLast: index == fileLaps.count - 1))
        }
        let timerTime = spans.running(in: [(workout.start.timeIntervalSince1970, workout.end.timeIntervalSince1970)])[0]
        encoder.end(
            FITActivityEncoder.Summary(
                start: start, end: end, elapsed: workout.elapsedTime, timer: timerTime,
                distance: workout.totals.distance ?? (points > 1 || distances ? feed.timeline.distance : nil), samples: figures,
                sport: sport, subSport: subSport, training: training.summary),
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
