import FIT
import Foundation
import LocationCore

/// FIT export: an activity file as the FIT "Activity File" recipe lays it out (see
/// `FITActivityEncoder`), header and file CRCs, that Garmin's decoder reads without error.
///
/// Every route point and every sample FIT can hold is written (a heart rate or cadence over 254, a
/// temperature past ±127 °C cannot be, and is counted in ``ExportSummary/samplesNotWritten``):
/// the points and the samples are merged by time,
/// a sample at a point's time (within half a millisecond) goes in that point's `record`, and one
/// at a time no point has makes a `record` without a position. Records are whole seconds (FIT's
/// `date_time`), so two instants in one second make two records with the same time: every value is
/// in the file, but a reader that keeps one value a second (our FIT import among them: it keeps the
/// first sample of each type in a second and reports the others) loses the rest. Pauses (the
/// stored events; for a workout without any, such as a GPX import, each break between route
/// segments) become timer stop and start events; auto-pauses say so (timer trigger `auto`).
/// Each record's `distance` is the distance the workout's time line has counted at it. Laps
/// are ``laps(of:)``'s, the session's totals the workout's.
///
/// The header declares the size of the data, so the file is encoded twice: once to measure it,
/// once to write it, each reading the route and samples in batches: memory stays flat. Both
/// passes read one snapshot of the store (``export(_:format:to:)`` takes it), so a write meanwhile
/// cannot make them differ; where the store has no snapshot (in memory) and they do differ, the
/// export throws ``WorkoutStoreError/changedWhileExporting(workoutID:)``.
extension WorkoutStore {
    nonisolated(nonsending)
    func writeFIT(_ source: ExportSource, into output: inout ExportOutput, sink: ExportSink) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        guard FITTime.value(fromSeconds: workout.start.timeIntervalSince1970) != nil,
              FITTime.value(fromSeconds: workout.end.timeIntervalSince1970) != nil else {
            throw .exportFailed(
                workoutID: workout.id, path: output.path,
                reason: "FIT dates times from 1998-07-04 to 2126; this workout's (\(RFC3339.string(from: workout.start))) cannot be written")
        }
        let types = try await sampleTypes(of: workout.id)
        let laps = try await laps(of: workout.id)
        var measuring = ExportOutput(workoutID: workout.id, path: output.path)
        let measured = try await encodeFIT(source, types: types, laps: laps, dataSize: nil, into: &measuring) { _ in }
        return try await encodeFIT(source, types: types, laps: laps, dataSize: measured.dataSize, into: &output, sink: sink).summary
    }

    /// One pass: measuring (`dataSize` nil, the bytes thrown away) or writing.
    nonisolated(nonsending)
    private func encodeFIT(
        _ source: ExportSource, types: [QuantityType], laps: [WorkoutLap], dataSize: Int?, into output: inout ExportOutput,
        sink: ExportSink
    ) async throws(WorkoutStoreError) -> (summary: ExportSummary, dataSize: Int) {
        let workout = source.workout
        let start = FITTime.value(fromSeconds: workout.start.timeIntervalSince1970)!
        let end = FITTime.value(fromSeconds: workout.end.timeIntervalSince1970)!
        var encoder = FITActivityEncoder(dataSize: dataSize, hasRoute: source.route != nil, types: types)
        let serial = workout.id.uuid
        encoder.begin(
            start: start, serial: max(1, UInt32(serial.0) << 24 | UInt32(serial.1) << 16 | UInt32(serial.2) << 8 | UInt32(serial.3)),
            device: workout.metadata.sourceDevice ?? "swift-gps-facade")
        let events = source.events
        let synthesizesPauses = !events.contains { [.pause, .resume, .motionPaused, .motionResumed].contains($0.kind) }
        var timer = TimerState()
        var nextEvent = 0
        var feed = TimelineFeed(options: source.timelineOptions, events: events)
        var instants = ExportInstants(store: self, workoutID: workout.id, types: types)
        var figures: [QuantityType: SampleFigures] = [:]
        var (points, segments, samples, written, lost) = (0, 0, 0, 0, 0)
        var last: (segment: Int, time: UInt32)?
        var firstPosition: (latitude: Double, longitude: Double)?
        while let instant = try await instants.next() {
            let time = FITTime.value(fromSeconds: instant.time) ?? start
            // Events before the instant; a resume at its time too: the timer starts before the
            // second's first record and stops after its last, as devices write them.
            while nextEvent < events.count, events[nextEvent].time.timeIntervalSince1970 < instant.time
                || (events[nextEvent].time.timeIntervalSince1970 == instant.time && events[nextEvent].resumes) {
                timer.apply(events[nextEvent], at: FITTime.value(fromSeconds: events[nextEvent].time.timeIntervalSince1970) ?? time, to: &encoder)
                nextEvent += 1
            }
            if let point = instant.point {
                if last?.segment != point.segment {
                    segments += 1
                    if synthesizesPauses, let last {
                        encoder.timer(starts: false, at: last.time, automatic: false)
                        encoder.timer(starts: true, at: time, automatic: false)
                    }
                }
                last = (point.segment, time)
                feed.add(TimelinePoint(point))
                points += 1
                firstPosition = firstPosition ?? (point.location.latitude, point.location.longitude)
            }
            lost += encoder.record(instant, at: time, distance: instant.point == nil ? nil : feed.timeline.distance)
            for type in types {
                guard let value = instant.values[type] else { continue }
                samples += 1
                figures[type].add(QuantitySample(type: type, value: value, at: Date(timeIntervalSince1970: instant.time)))
            }
            written += 1
            if written % 4_096 == 0, Task.isCancelled { throw .cancelled(operation: .export) }
            try Self.drain(&encoder, into: &output, sink: sink)
        }
        while nextEvent < events.count {
            timer.apply(events[nextEvent], at: FITTime.value(fromSeconds: events[nextEvent].time.timeIntervalSince1970) ?? end, to: &encoder)
            nextEvent += 1
        }
        let sport = workout.activityType.fitSport
        // A workout without a route has no laps of its own; its file has one, the whole workout.
        let wholeLap = WorkoutLap(
            index: 1, start: workout.start, end: workout.end, distance: workout.totals.distance ?? 0, elapsedTime: workout.elapsedTime,
            duration: workout.duration, movingTime: workout.movingTime)
        var fileLaps = laps.isEmpty ? [wholeLap] : laps
        if laps.isEmpty { fileLaps[0].samples = figures }
        for (index, lap) in fileLaps.enumerated() {
            encoder.lap(FITActivityEncoder.Summary(
                start: FITTime.value(fromSeconds: lap.start.timeIntervalSince1970) ?? start,
                end: FITTime.value(fromSeconds: lap.end.timeIntervalSince1970) ?? end, elapsed: lap.elapsedTime,
                timer: lap.duration, distance: lap.distance, samples: lap.samples, sport: sport),
                index: index, trigger: Self.fitLapTrigger(lap, isLast: index == fileLaps.count - 1))
        }
        // The timer ran for the workout's duration: the time not paused by the user.
        let timerTime = workout.duration
        do throws(FITWriteError) {
            try encoder.end(
                FITActivityEncoder.Summary(
                    start: start, end: end, elapsed: workout.elapsedTime, timer: timerTime,
                    distance: workout.totals.distance ?? (points > 1 ? feed.timeline.distance : nil), samples: figures, sport: sport),
                laps: fileLaps.count, ascent: workout.totals.elevationGain, descent: workout.totals.elevationLoss,
                calories: workout.totals.energy, localOffset: workout.metadata.values["utc_offset_s"].flatMap { Int($0) },
                startPosition: firstPosition, timerRunning: timer.isRunning)
        } catch {
            // Both passes read one snapshot of a file store; an in-memory store has none, and a
            // write between the passes there makes them differ: an error, never a trap.
            throw .changedWhileExporting(workoutID: workout.id)
        }
        try Self.drain(&encoder, into: &output, sink: sink)
        let summary = ExportSummary(
            format: .fit, points: points, segments: segments, samplesWritten: samples - lost, samplesNotWritten: lost, bytes: 0)
        return (summary, encoder.writer.dataSize)
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

    private static func drain(_ encoder: inout FITActivityEncoder, into output: inout ExportOutput, sink: ExportSink) throws(WorkoutStoreError) {
        encoder.drain { output.bytes.append(contentsOf: $0) }
        try output.flushIfFull(sink)
    }
}

extension WorkoutEvent {
    /// Whether it ends a pause (by the user or auto-pause).
    var resumes: Bool { kind == .resume || kind == .motionResumed }
}

/// The timer as the stored pauses leave it: it stops when the workout is first paused (by the
/// user or auto-pause) and starts when neither pauses it any more.
private struct TimerState {
    var user = false
    var motion = false

    var isRunning: Bool { !user && !motion }

    mutating func apply(_ event: WorkoutEvent, at time: UInt32, to encoder: inout FITActivityEncoder) {
        let wasRunning = isRunning
        switch event.kind {
        case .pause: user = true
        case .resume: user = false
        case .motionPaused: motion = true
        case .motionResumed: motion = false
        case .lap, .marker: return
        }
        if wasRunning != isRunning {
            encoder.timer(starts: isRunning, at: time, automatic: event.kind == .motionPaused || event.kind == .motionResumed)
        }
    }
}
