import Foundation
import LocationCore
import GPSCore

/// GeoJSON export (RFC 7946): a `FeatureCollection` holding one `Feature`.
///
/// Its geometry is a `MultiLineString` with one line per route segment, of `[lon, lat, ele]`
/// positions (`[lon, lat]` where the altitude is unknown), numbers in the shortest form that
/// reads back as the same `Double`. Its properties are `id`, `name`, `activity`, `start`, `end`
/// (RFC 3339, UTC, milliseconds), `distance_m` (the workout's total, else measured along the
/// route), `duration_s`, `elevation_gain_m` (`null` when unknown), and arrays aligned with the
/// coordinates, one array per line, as togeojson and Strava exports write them: `coordTimes`
/// (times), and, when the workout has such samples, `heartRates` and `cadences` (`null` at points
/// without one).
///
/// Each aligned array is a pass over the route, so memory stays flat: a route read two to four
/// times. A route is never changed once attached, so the passes see the same points.
extension WorkoutStore {
    nonisolated(nonsending)
    func writeGeoJSON(_ source: ExportSource, into output: inout ExportOutput, sink: ExportSink) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        TextBytes.append(#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"MultiLineString","coordinates":"#, to: &output.bytes)
        var distance = 0.0
        var previous: RoutePoint?
        let (points, segments) = try await writeSegmentedArray(of: workout.id, into: &output, sink: sink) { point, bytes in
            let location = point.location
            bytes.append(UInt8(ascii: "["))
            TextBytes.appendShortest(location.longitude, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            TextBytes.appendShortest(location.latitude, to: &bytes)
            if let altitude = location.altitude, altitude.isFinite {
                bytes.append(UInt8(ascii: ","))
                TextBytes.appendShortest(altitude, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
            if let previous, previous.segment == point.segment {
                distance += previous.location.distance(to: location)
            }
            previous = point
        }

        TextBytes.append("},\n\"properties\":{\"id\":", to: &output.bytes)
        TextBytes.appendJSONString(workout.id.uuidString, to: &output.bytes)
        TextBytes.append(",\"name\":", to: &output.bytes)
        TextBytes.appendJSONString(source.name, to: &output.bytes)
        TextBytes.append(",\"activity\":", to: &output.bytes)
        TextBytes.appendJSONString(workout.activityType.rawValue, to: &output.bytes)
        TextBytes.append(",\"start\":", to: &output.bytes)
        TextBytes.appendJSONString(RFC3339.string(from: workout.start, fractionDigits: 3), to: &output.bytes)
        TextBytes.append(",\"end\":", to: &output.bytes)
        TextBytes.appendJSONString(RFC3339.string(from: workout.end, fractionDigits: 3), to: &output.bytes)
        TextBytes.append(",\"distance_m\":", to: &output.bytes)
        TextBytes.appendJSONNumber(workout.totals.distance ?? distance, to: &output.bytes)
        TextBytes.append(",\"duration_s\":", to: &output.bytes)
        TextBytes.appendJSONNumber(workout.duration, to: &output.bytes)
        TextBytes.append(",\"elevation_gain_m\":", to: &output.bytes)
        TextBytes.appendJSONNumber(workout.totals.elevationGain, to: &output.bytes)

        TextBytes.append(",\n\"coordTimes\":", to: &output.bytes)
        _ = try await writeSegmentedArray(of: workout.id, into: &output, sink: sink) { point, bytes in
            bytes.append(UInt8(ascii: "\""))
            RFC3339.append(point.location.time ?? point.location.receivedAt, fractionDigits: 3, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        var written = 0
        for (key, type) in [("heartRates", QuantityType.heartRate), ("cadences", .cadence)] {
            var aligner = SampleAligner(source.samples[type].map { ($0.start, $0.value) })
            if aligner.isEmpty { continue }
            TextBytes.append(",\n", to: &output.bytes)
            TextBytes.appendJSONString(key, to: &output.bytes)
            output.bytes.append(UInt8(ascii: ":"))
            _ = try await writeSegmentedArray(of: workout.id, into: &output, sink: sink) { point, bytes in
                let time = point.location.time ?? point.location.receivedAt
                TextBytes.appendJSONNumber(aligner.value(at: time.timeIntervalSince1970), to: &bytes)
            }
            written += aligner.matched
        }
        let notWritten = source.samples.count - written
        TextBytes.append("}}]}\n", to: &output.bytes)
        return ExportSummary(
            format: .geojson, points: points, segments: segments, samplesWritten: written,
            samplesNotWritten: notWritten, bytes: 0)
    }

    /// Writes one JSON array per segment inside an outer array (`[[a,b],[c]]`), `element` writing
    /// each point's item. Returns the points and segments seen.
    nonisolated(nonsending)
    private func writeSegmentedArray(
        of workoutID: UUID, into output: inout ExportOutput, sink: ExportSink,
        element: (RoutePoint, inout [UInt8]) -> Void
    ) async throws(WorkoutStoreError) -> (points: Int, segments: Int) {
        output.bytes.append(UInt8(ascii: "["))
        var segment: Int?
        var points = 0
        var segments = 0
        try await forEachRoutePoint(of: workoutID, into: &output, sink: sink) { point, bytes in
            if point.segment != segment {
                if segment != nil { bytes.append(contentsOf: "],\n".utf8) }
                bytes.append(UInt8(ascii: "["))
                segment = point.segment
                segments += 1
            } else {
                bytes.append(UInt8(ascii: ","))
            }
            points += 1
            element(point, &bytes)
        }
        if segment != nil { output.bytes.append(UInt8(ascii: "]")) }
        output.bytes.append(UInt8(ascii: "]"))
        return (points, segments)
    }
}
