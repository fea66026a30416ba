import Foundation
import LocationFacade

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
        ExportText.append("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="swift-gps-facade" xmlns="
            """, to: &output.bytes)
        ExportText.append(GPXExport.namespace, to: &output.bytes)
        ExportText.append("\" xmlns:gpxtpx=\"", to: &output.bytes)
        ExportText.append(GPXExport.trackPointExtensionNamespace, to: &output.bytes)
        ExportText.append("\">\n <metadata><time>", to: &output.bytes)
        RFC3339.append(workout.start, fractionDigits: 3, to: &output.bytes)
        ExportText.append("</time></metadata>\n <trk>\n  <name>", to: &output.bytes)
        ExportText.appendXML(source.name, to: &output.bytes)
        ExportText.append("</name>\n  <type>", to: &output.bytes)
        ExportText.appendXML(workout.activityType.rawValue, to: &output.bytes)
        ExportText.append("</type>\n", to: &output.bytes)

        var heartRate = SampleAligner(source.samples.heartRate)
        var cadence = SampleAligner(source.samples.cadence)
        var segment: Int?
        var points = 0
        var segments = 0
        try await forEachRoutePoint(of: workout.id, into: &output, sink: sink) { point, bytes in
            if point.segment != segment {
                if segment != nil { ExportText.append("  </trkseg>\n", to: &bytes) }
                ExportText.append("  <trkseg>\n", to: &bytes)
                segment = point.segment
                segments += 1
            }
            points += 1
            let time = point.location.time ?? point.location.receivedAt
            let seconds = time.timeIntervalSince1970
            GPXExport.appendTrackPoint(
                point.location, time: time,
                heartRate: heartRate.value(at: seconds), cadence: cadence.value(at: seconds),
                unknownExtensions: point.unknownExtensions, to: &bytes)
        }
        if segment != nil { ExportText.append("  </trkseg>\n", to: &output.bytes) }
        ExportText.append(" </trk>\n</gpx>\n", to: &output.bytes)

        let written = heartRate.matched + cadence.matched
        return ExportSummary(
            format: .gpx, points: points, segments: segments, samplesWritten: written,
            samplesNotWritten: heartRate.unmatched + cadence.unmatched + source.samples.others, bytes: 0)
    }

}

/// The pieces of a GPX 1.1 file an export writes.
enum GPXExport {
    static let namespace: StaticString = "http://www.topografix.com/GPX/1/1"
    static let trackPointExtensionNamespace: StaticString = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

    /// One `<trkpt>` on a line of its own. Heart rate and cadence are rounded to whole numbers:
    /// TrackPointExtension types them `xsd:unsignedByte`.
    static func appendTrackPoint(
        _ location: Location, time: Date, heartRate: Double?, cadence: Double?, unknownExtensions: String? = nil,
        to bytes: inout [UInt8]
    ) {
        ExportText.append("   <trkpt lat=\"", to: &bytes)
        ExportText.appendShortest(location.latitude, to: &bytes)
        ExportText.append("\" lon=\"", to: &bytes)
        ExportText.appendShortest(location.longitude, to: &bytes)
        ExportText.append("\">", to: &bytes)
        if let altitude = location.altitude, altitude.isFinite {
            ExportText.append("<ele>", to: &bytes)
            ExportText.appendShortest(altitude, to: &bytes)
            ExportText.append("</ele>", to: &bytes)
        }
        ExportText.append("<time>", to: &bytes)
        RFC3339.append(time, fractionDigits: 3, to: &bytes)
        ExportText.append("</time>", to: &bytes)
        let speed = location.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let course = location.course.flatMap { $0.isFinite && $0 >= 0 && $0 < 360 ? $0 : nil }
        let known = heartRate != nil || cadence != nil || speed != nil || course != nil
        if known || unknownExtensions != nil {
            ExportText.append("<extensions>", to: &bytes)
            if known {
                ExportText.append("<gpxtpx:TrackPointExtension>", to: &bytes)
                if let heartRate { element("gpxtpx:hr", heartRate.rounded(), to: &bytes) }
                if let cadence { element("gpxtpx:cad", cadence.rounded(), to: &bytes) }
                if let speed { element("gpxtpx:speed", speed, to: &bytes) }
                if let course { element("gpxtpx:course", course, to: &bytes) }
                ExportText.append("</gpxtpx:TrackPointExtension>", to: &bytes)
            }
            // Kept from an import as well-formed elements with their own namespace declarations.
            if let unknownExtensions { bytes.append(contentsOf: unknownExtensions.utf8) }
            ExportText.append("</extensions>", to: &bytes)
        }
        ExportText.append("</trkpt>\n", to: &bytes)
    }

    private static func element(_ name: StaticString, _ value: Double, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "<"))
        ExportText.append(name, to: &bytes)
        bytes.append(UInt8(ascii: ">"))
        ExportText.appendShortest(value, to: &bytes)
        bytes.append(contentsOf: "</".utf8)
        ExportText.append(name, to: &bytes)
        bytes.append(UInt8(ascii: ">"))
    }
}
