import Foundation
import GPSCore
import GPX
import LocationCore
import TCX

/// TCX export: one `<Activity>` (TCX v2 with ActivityExtension v2), a `<Lap>` per lap of
/// ``laps(of:)`` with its totals (active time, distance, calories in proportion to its active
/// time, heart rate, cadence, and the extension's average speed and watts) and what ended it (the
/// lap's ``WorkoutLap/trigger``, as a `TriggerMethod`), and a `<Track>` per stretch of route segment
/// within the lap (a new one after each pause, as devices write them).
///
/// Every route point and every sample TCX can hold is written, merged by time as the FIT export
/// merges them: a sample at no point's time makes a `<Trackpoint>` without a position. Each point's
/// `DistanceMeters` is the distance the workout's time line has counted at it. What TCX cannot
/// hold is counted in ``ExportSummary/samplesNotWritten``: temperature, a heart rate outside
/// 1-255 bpm, a cadence over 254.
extension WorkoutStore {
    nonisolated(nonsending)
    func writeTCX(_ source: ExportSource, into output: inout ExportOutput, sink: ExportSink) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        let types = try await sampleTypes(of: workout.id)
        var laps = try await laps(of: workout.id)
        if laps.isEmpty {
            laps = [WorkoutLap(
                index: 1, start: workout.start, end: workout.end, distance: workout.totals.distance ?? 0, elapsedTime: workout.elapsedTime,
                duration: workout.duration, movingTime: workout.movingTime)]
        }
        let timed = max(1e-9, laps.map(\.duration).reduce(0, +))
        TCXWriter.appendHeader(to: &output.bytes)
        TCXWriter.appendActivityStart(sport: workout.activityType.tcxSport, id: workout.start, to: &output.bytes)
        var feed = TimelineFeed(options: source.timelineOptions, events: source.events)
        var instants = ExportInstants(store: self, workoutID: workout.id, types: types)
        var lapIndex = -1
        var trackOpen = false
        var segment: Int?
        var lastRouteSegment: Int?
        var (points, segments, written, lost, count) = (0, 0, 0, 0, 0)
        func openLap(_ index: Int, into bytes: inout [UInt8]) {
            let lap = laps[index]
            var header = TCXLap(index: index, startTime: GPXTime(date: lap.start))
            // TCX's TotalTimeSeconds is the lap's timer time: its duration.
            header.totalTime = lap.duration
            header.distance = lap.distance
            header.calories = workout.totals.energy.map { $0 * lap.duration / timed }
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
        func closeLap(into bytes: inout [UInt8]) {
            if trackOpen { TCXWriter.appendTrackEnd(to: &bytes) }
            trackOpen = false
            var footer = TCXLap(index: lapIndex)
            let lap = laps[lapIndex]
            footer.averageSpeed = lap.movingTime > 0 ? lap.distance / lap.movingTime : nil
            footer.averageWatts = lap.samples[.power]?.average
            footer.maximumWatts = lap.samples[.power]?.maximum
            TCXWriter.appendLapEnd(footer, to: &bytes)
        }
        while let instant = try await instants.next() {
            // The lap the instant lies in: the last one begun at or before it.
            var next = max(lapIndex, 0)
            while next + 1 < laps.count, laps[next + 1].start.timeIntervalSince1970 <= instant.time { next += 1 }
            if next != lapIndex {
                if lapIndex >= 0 { closeLap(into: &output.bytes) }
                openLap(next, into: &output.bytes)
                segment = nil
            }
            var point = TCXTrackpoint(time: GPXTime(date: Date(timeIntervalSince1970: instant.time)))
            if let route = instant.point {
                // A new route segment (after a pause) is a new track; a lap's first point goes in
                // the track its first instants opened.
                if let current = segment, route.segment != current, trackOpen {
                    TCXWriter.appendTrackEnd(to: &output.bytes)
                    trackOpen = false
                }
                segment = route.segment
                if route.segment != lastRouteSegment {
                    segments += 1
                    lastRouteSegment = route.segment
                }
                feed.add(TimelinePoint(route))
                let location = route.location
                (point.latitude, point.longitude, point.altitude) = (location.latitude, location.longitude, location.altitude)
                point.distance = feed.timeline.distance
                point.speed = location.speed ?? instant.values.speed
                points += 1
            } else {
                point.speed = instant.values.speed
            }
            if !trackOpen {
                TCXWriter.appendTrackStart(to: &output.bytes)
                trackOpen = true
            }
            (point.heartRate, point.cadence, point.power) = (instant.values.heartRate, instant.values.cadence, instant.values.power)
            let fitting = TCXWriter.fits(heartRate: point.heartRate, cadence: point.cadence)
            for (value, kept) in [(point.heartRate, fitting.heartRate), (point.cadence, fitting.cadence)] where value != nil && kept == nil { lost += 1 }
            if instant.values.temperature != nil { lost += 1 }
            written += [instant.values.heartRate, instant.values.cadence, instant.values.power, instant.values.speed, instant.values.temperature]
                .compactMap { $0 }.count
            TCXWriter.appendTrackpoint(point, to: &output.bytes)
            try output.flushIfFull(sink)
            count += 1
            if count % 4_096 == 0, Task.isCancelled { throw .cancelled(operation: .export) }
        }
        if lapIndex < 0 { openLap(0, into: &output.bytes) }
        closeLap(into: &output.bytes)
        TCXWriter.appendActivityEnd(notes: workout.metadata.values["description"], creator: workout.metadata.sourceDevice ?? "swift-gps-facade", to: &output.bytes)
        TCXWriter.appendFooter(to: &output.bytes)
        return ExportSummary(format: .tcx, points: points, segments: segments, samplesWritten: written - lost, samplesNotWritten: lost, bytes: 0)
    }
}
