import Foundation
import GPSCore
import GPX
import LocationCore

/// GPX 1.1 export: one `<trk>` with one `<trkseg>` per route segment.
///
/// A recorded session's export holds the points the session counted, one `<trkseg>` per stretch
/// between pauses: the points seen while paused (by the user, or auto-paused: the drift of a
/// receiver at rest) and those less accurate than its limit are left out, though the store keeps
/// them (``WorkoutStore/routePoints(of:batchSize:)`` and the GeoJSON export give every point).
/// So gpxpy, gpsbabel or this package's import measure the distance and elevation the session
/// measured, and importing the export again finds the session's workout (its external id is the
/// fingerprint of these points). An imported or chain-saved workout's export holds every point.
///
/// Each `<trkpt>` has `lat` and `lon` in the shortest decimal form that reads back as the same
/// `Double` (so a stored coordinate survives the round trip exactly), `<ele>` (altitude above mean
/// sea level, the same way) when known, `<time>` in UTC with three fraction digits, and, when any
/// is known, Garmin's TrackPointExtension v2 with `hr`, `cad`, `speed` and `course` in the order
/// its schema requires. Heart rate and cadence come from the samples (see ``WorkoutStore``'s
/// export notes); speed and course from the fix.
extension WorkoutStore {
    nonisolated(nonsending)
    func writeGPX(_ source: ExportSource, into output: inout ExportOutput, sink: ExportSink) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        GPXWriter.appendHeader(creator: "swift-gps-facade", time: workout.start, to: &output.bytes)
        GPXWriter.appendTrackStart(name: source.name, type: workout.activityType.rawValue, to: &output.bytes)

        var heartRate = SampleAligner(source.samples.heartRate)
        var cadence = SampleAligner(source.samples.cadence)
        var segment: Int?
        var points = 0
        var segments = 0
        func write(_ point: RoutePoint, segment index: Int, to bytes: inout [UInt8]) {
            if index != segment {
                if segment != nil { GPXWriter.appendSegmentEnd(to: &bytes) }
                GPXWriter.appendSegmentStart(to: &bytes)
                segment = index
                segments += 1
            }
            points += 1
            let time = point.location.time ?? point.location.receivedAt
            let seconds = time.timeIntervalSince1970
            let location = point.location
            GPXWriter.appendTrackPoint(GPXPoint(
                latitude: location.latitude, longitude: location.longitude, elevation: location.altitude,
                time: GPXTime(date: time), speed: location.speed, course: location.course,
                heartRate: heartRate.value(at: seconds), cadence: cadence.value(at: seconds),
                unknownExtensions: point.unknownExtensions.map { [$0] } ?? []), to: &bytes)
        }
        // The points the workout counts, as its time line decides (every point of an imported
        // track; a session's points while active, and accurate): what gpxpy or an import then
        // measures is what the session measured.
        var feed = TimelineFeed(options: source.timelineOptions, events: source.events)
        var held: RoutePoint?
        try await forEachRoutePoint(of: workout.id, into: &output, sink: sink) { point, bytes in
            let (fate, anchored) = feed.add(TimelinePoint(point))
            if let anchored, let waiting = held, waiting.ordinal == anchored.ordinal {
                write(waiting, segment: anchored.segment, to: &bytes)
            }
            held = nil
            if fate == .counted {
                write(point, segment: feed.timeline.segment, to: &bytes)
            } else {
                held = point
            }
        }
        if let anchored = feed.flushEvents(), let waiting = held, waiting.ordinal == anchored.ordinal {
            write(waiting, segment: anchored.segment, to: &output.bytes)
        }
        if segment != nil { GPXWriter.appendSegmentEnd(to: &output.bytes) }
        GPXWriter.appendTrackEnd(to: &output.bytes)
        GPXWriter.appendFooter(to: &output.bytes)

        let written = heartRate.matched + cadence.matched
        return ExportSummary(
            format: .gpx, points: points, segments: segments, samplesWritten: written,
            samplesNotWritten: heartRate.unmatched + cadence.unmatched + source.samples.others, bytes: 0)
    }
}
