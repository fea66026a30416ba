import Foundation
import GPSCore
import GPX
import LocationFacade
import GPSCore

/// GPX 1.1 export: one `<trk>` with one `<trkseg>` per route segment.
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
        try await forEachRoutePoint(of: workout.id, into: &output, sink: sink) { point, bytes in
            if point.segment != segment {
                if segment != nil { GPXWriter.appendSegmentEnd(to: &bytes) }
                GPXWriter.appendSegmentStart(to: &bytes)
                segment = point.segment
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
        if segment != nil { GPXWriter.appendSegmentEnd(to: &output.bytes) }
        GPXWriter.appendTrackEnd(to: &output.bytes)
        GPXWriter.appendFooter(to: &output.bytes)

        let written = heartRate.matched + cadence.matched
        return ExportSummary(
            format: .gpx, points: points, segments: segments, samplesWritten: written,
            samplesNotWritten: heartRate.unmatched + cadence.unmatched + source.samples.others, bytes: 0)
    }
}
