import Foundation
import GPSCore
import GPX
import LocationCore
import TCX

/// TCX export: one `<Activity>` (TCX v2 with ActivityExtension v2), a `<Lap>` per lap of
/// ``laps(of:)`` with its totals (its duration as `TotalTimeSeconds`, distance, calories in
/// proportion to its duration, heart rate, cadence, and the extension's average speed and watts) and what ended it (the
/// lap's ``WorkoutLap/trigger``, as a `TriggerMethod`), and a `<Track>` per stretch of route segment
/// within the lap: a new one after each pause, as devices write them.
///
/// The track points are the FIT export's records (``RecordMoments``): one a route point the
/// workout counted (a recorded session's points less accurate than its limit are left out, as in
/// the FIT export), and one a second in which a sample was taken where there is no point (a
/// `<Trackpoint>` without a position), each holding every sensor's value nearest its time; a
/// sample no track point takes (a second of its type in one point's interval) is not written, and
/// counted. A moment with nothing TCX can hold makes no track point. Each point's `DistanceMeters` is the distance the
/// workout's time line has counted by its time (a wheel's across a tunnel too, where the workout
/// counts it), and so is a track point's without a position (the distance so far). A workout without a route (indoors) has track points without `<Position>`,
/// each with its time, its `DistanceMeters` (the time line's distance from the workout's wheel,
/// foot pod or trainer `.distance` samples) and sensor values, as a treadmill or trainer writes
/// them. What TCX cannot hold is counted in ``ExportSummary/samplesNotWritten``: temperatures,
/// beat-to-beat intervals, a wheel's distances beside a route, a heart rate outside 1-255 bpm, a
/// cadence over 254.
///
/// ## What our import reads back
/// The workout's envelope (<doc:OwnFiles>) goes in elements of the namespace
/// `urn:swift-gps-facade:workout:1` (which the schema's `Extensions` take, `processContents="lax"`):
/// `sgf:workout` (id, start, end, how the distance was counted) in the `<Activity>`'s
/// `<Extensions>`, and in the first track point's, so that an import knows from the first point
/// that the file is ours (and how to read its distances); each event as an
/// `sgf:event` in the `<Extensions>` of the track point it came after (the first point for an
/// event before it); `sgf:segment` on the first point of each route segment after the first.
/// Other tools see the pauses as the breaks between tracks.
extension WorkoutStore {
    /// The sample types a TCX track point holds.
    private static let tcxTypes: [QuantityType] = [.heartRate, .cadence, .power, .speed]

    nonisolated(nonsending)
    func writeTCX(_ source: ExportSource, into output: inout ExportOutput, sink: ExportSink) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        let counts = try await sampleCounts(of: workout.id)
        let types = Self.tcxTypes.filter { counts[$0] != nil }
        let distances = counts[.distance] != nil
        var laps = try await laps(of: workout.id)
        if laps.isEmpty {
            laps = [WorkoutLap(
                index: 1, start: workout.start, end: workout.end, distance: workout.totals.distance ?? 0, elapsedTime: workout.elapsedTime,
                duration: workout.duration, movingTime: workout.movingTime)]
        }
        let envelope = source.envelope
        TCXWriter.appendHeader(to: &output.bytes)
        TCXWriter.appendActivityStart(sport: workout.activityType.tcxSport, id: workout.start, to: &output.bytes)
        var writer = TCXTrackWriter(laps: laps, energy: workout.totals.energy, envelope: envelope)
        var feed = TimelineFeed(options: source.timelineOptions, events: source.events)
        feed.begin(at: workout.start.timeIntervalSince1970)  // as the store reads it back
        // The track points are the FIT export's records: one a fix, and one a second with a
        // sample where there is no fix, each with every sensor's value nearest its time.
        let momentTypes = types + (distances && source.route == nil ? [.distance] : [])
        var moments = RecordMoments(store: self, workoutID: workout.id, types: momentTypes, options: source.timelineOptions)
        var distanceCursor = distances ? SampleCursor(store: self, workoutID: workout.id, type: .distance) : nil
        var (points, segments, written, lost, count) = (0, 0, 0, 0, 0)
        var lastRouteSegment: Int?
        while let moment = try await moments.next() {
            let instant = moment.instant
            var point = TCXTrackpoint(time: GPXTime(date: Date(timeIntervalSince1970: instant.time)))
            (point.heartRate, point.cadence, point.power) = (instant.values.heartRate, instant.values.cadence, instant.values.power)
            let fitting = TCXWriter.fits(heartRate: point.heartRate, cadence: point.cadence)
            for (value, kept) in [(point.heartRate, fitting.heartRate), (point.cadence, fitting.cadence)] where value != nil && kept == nil { lost += 1 }
            written += [instant.values.heartRate, instant.values.cadence, instant.values.power, instant.values.speed].compactMap { $0 }.count
            var segment: Int?
            if let route = instant.point {
                segment = route.segment
                if route.segment != lastRouteSegment {
                    segments += 1
                    lastRouteSegment = route.segment
                }
                if distanceCursor != nil { try await feed.addDistances(from: &distanceCursor!, endingBefore: instant.time) }
                feed.add(TimelinePoint(route))
                let location = route.location
                (point.latitude, point.longitude, point.altitude) = (location.latitude, location.longitude, location.altitude)
                point.distance = try await feed.recordDistance(
                    at: instant.time, through: moment.through, from: &distanceCursor, hasRoute: true, afterFirstPoint: true)
                point.speed = location.speed ?? instant.values.speed
                // A fix's own speed is the track point's: a wheel's speed beside it is not written.
                if location.speed != nil, instant.values.speed != nil { lost += 1 }
                points += 1
            } else {
                point.speed = instant.values.speed
                // The distance so far: a route's (its points' and a wheel's), or a workout's without
                // a route from its wheel's, foot pod's or trainer's distances.
                point.distance = try await feed.recordDistance(
                    at: instant.time, through: moment.through, from: &distanceCursor, hasRoute: source.route != nil, afterFirstPoint: points > 0)
                // A moment with nothing TCX holds (a heart rate over 255 alone) makes no track point.
                guard fitting.heartRate != nil || fitting.cadence != nil || point.power != nil || point.speed != nil else { continue }
            }
            writer.add(point, segment: segment, to: &output.bytes)
            try output.flushIfFull(sink)
            count += 1
            if count % 4_096 == 0, Task.isCancelled { throw .cancelled(operation: .export) }
        }
        writer.finish(to: &output.bytes)
        TCXWriter.appendActivityEnd(
            notes: workout.metadata.values["description"], creator: workout.metadata.sourceDevice ?? "swift-gps-facade",
            extensions: [Self.xmlText { WorkoutEnvelope.appendHeader(envelope.header, to: &$0) }], to: &output.bytes)
        TCXWriter.appendFooter(to: &output.bytes)
        // A workout without a route has its distances in its track points' DistanceMeters.
        let held = Self.tcxTypes + (source.route == nil ? [.distance] : [])
        let unheld = counts.filter { !held.contains($0.key) }.map(\.value).reduce(0, +)
            + types.map { moments.notWritten[$0] ?? 0 }.reduce(0, +)
        let distancesWritten = source.route == nil ? counts[.distance] ?? 0 : 0
        return ExportSummary(
            format: .tcx, points: points, segments: segments, samplesWritten: written - lost + distancesWritten,
            samplesNotWritten: lost + unheld, bytes: 0)
    }

    /// The text `body` writes.
    static func xmlText(_ body: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        body(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Writes the laps, tracks and track points of a TCX export, one track point behind: the events
/// after a point go in its extensions, so it is written once the next point's time is known.
private struct TCXTrackWriter {
    private let laps: [WorkoutLap]
    private let energy: Double?
    /// The laps' durations (timer time), which share out the workout's energy.
    private let timed: Double
    private let envelope: WorkoutEnvelope
    private var nextEvent = 0
    private var lapIndex = -1
    private var trackOpen = false
    /// The route segment of the track open, if it has points.
    private var segment: Int?
    /// The route segment of the last point written (for `sgf:segment` marks).
    private var lastSegment: Int?
    private var pending: TCXTrackpoint?
    private var first = true

    init(laps: [WorkoutLap], energy: Double?, envelope: WorkoutEnvelope) {
        self.laps = laps
        self.energy = energy
        timed = max(1e-9, laps.map(\.duration).reduce(0, +))
        self.envelope = envelope
    }

    /// Takes the next track point (`segment`: its route segment, `nil` without a position).
    mutating func add(_ point: TCXTrackpoint, segment: Int?, to bytes: inout [UInt8]) {
        let time = point.time.date.timeIntervalSince1970
        // The lap the point lies in: the last one begun at or before it.
        var next = max(lapIndex, 0)
        while next + 1 < laps.count, laps[next + 1].start.timeIntervalSince1970 <= time { next += 1 }
        var point = point
        if let segment {
            if lastSegment != nil, segment != lastSegment {
                point.extensions.append(WorkoutStore.xmlText(WorkoutEnvelope.appendSegmentStart))
            }
            lastSegment = segment
        }
        if next != lapIndex || (segment != nil && self.segment != nil && segment != self.segment) {
            flush(before: time, to: &bytes)
            if next != lapIndex {
                if lapIndex >= 0 { closeLap(to: &bytes) }
                openLap(next, to: &bytes)
            } else if trackOpen {
                // A new route segment (after a pause) is a new track.
                TCXWriter.appendTrackEnd(to: &bytes)
                trackOpen = false
            }
            self.segment = nil
        }
        if let segment { self.segment = segment }
        flush(before: time, to: &bytes)
        if !trackOpen {
            TCXWriter.appendTrackStart(to: &bytes)
            trackOpen = true
        }
        pending = point
    }

    /// Writes the last point (with the events after it) and closes the last lap.
    mutating func finish(to bytes: inout [UInt8]) {
        flush(before: .infinity, to: &bytes)
        if lapIndex < 0 { openLap(0, to: &bytes) }
        closeLap(to: &bytes)
    }

    /// Writes the point held, with the header (the first point) and the events before `time`.
    private mutating func flush(before time: Double, to bytes: inout [UInt8]) {
        guard var point = pending else { return }
        pending = nil
        if first {
            point.extensions.insert(WorkoutStore.xmlText { WorkoutEnvelope.appendHeader(envelope.header, to: &$0) }, at: 0)
            first = false
        }
        let events = envelope.events
        while nextEvent < events.count, events[nextEvent].time.timeIntervalSince1970 < time {
            point.extensions.append(WorkoutStore.xmlText { WorkoutEnvelope.appendEvent(events[nextEvent], to: &$0) })
            nextEvent += 1
        }
        TCXWriter.appendTrackpoint(point, to: &bytes)
    }

    private mutating func openLap(_ index: Int, to bytes: inout [UInt8]) {
        let lap = laps[index]
        var header = TCXLap(index: index, startTime: GPXTime(date: lap.start))
        // TCX's TotalTimeSeconds is the lap's timer time: its duration.
        header.totalTime = lap.duration
        header.distance = lap.distance
        header.calories = energy.map { $0 * lap.duration / timed }
        header.averageHeartRate = lap.samples[.heartRate]?.average
        header.maximumHeartRate = lap.samples[.heartRate]?.maximum
        header.cadence = lap.samples[.cadence]?.average
        header.averageSpeed = lap.movingTime > 0 ? lap.distance / lap.movingTime : nil
        header.averageWatts = lap.samples[.power]?.average
        header.maximumWatts = lap.samples[.power]?.maximum
        header.triggerMethod = switch lap.trigger {
        case .distance: "Distance"
        case .time: "Time"
        default: "Manual"
        }
        TCXWriter.appendLapStart(header, to: &bytes)
        lapIndex = index
    }

    private mutating func closeLap(to bytes: inout [UInt8]) {
        if trackOpen { TCXWriter.appendTrackEnd(to: &bytes) }
        trackOpen = false
        var footer = TCXLap(index: lapIndex)
        let lap = laps[lapIndex]
        footer.averageSpeed = lap.movingTime > 0 ? lap.distance / lap.movingTime : nil
        footer.averageWatts = lap.samples[.power]?.average
        footer.maximumWatts = lap.samples[.power]?.maximum
        TCXWriter.appendLapEnd(footer, to: &bytes)
    }
}
