import Foundation
import GPSCore
import GPX
import LocationCore

/// GPX 1.1 export: one `<trk>` with one `<trkseg>` per route segment.
///
/// A workout without a route (a trainer ride, a treadmill run) is refused with
/// ``WorkoutStoreError/formatCannotHold(workoutID:format:reason:instead:)``, which says to export
/// it as FIT or TCX: a GPX track is a list of positions, and other tools would read an empty one.
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
/// is known, Garmin's TrackPointExtension v2 with `atemp`, `hr`, `cad`, `speed` and `course` in
/// the order its schema requires, and Garmin's PowerExtension v1 `PowerInWatts`. Speed and course
/// come from the fix.
///
/// ## Samples on points
/// Heart rate, cadence, power and temperature come from the samples around each point: a point
/// carries, of each type, the sample **nearest its time within its interval**, the time it
/// stands for (from halfway to the point before to halfway to the point after, at most 5 s either
/// side: `PointSampler`). So a strap read between fixes, as every real strap is, puts a heart
/// rate on every point, and the values written were measured, never interpolated. Read back,
/// each value holds for its point's interval: the mean of a round trip is the workout's mean to
/// within the rounding of whole beats. A sample no point takes (one of several in an interval,
/// one during a pause the export leaves out, one of a type GPX has no place for: speed,
/// beat-to-beat intervals, a wheel's distance) is written in our extension beside the point it
/// comes with (`sgf:sample`, see <doc:OwnFiles>): our import reads back every sample; other
/// tools see the values on the points.
///
/// ## What our import reads back
/// The `<trk>`'s `<extensions>` hold the workout's envelope (<doc:OwnFiles>): its id, start, end,
/// how its distance was counted, and every event to the millisecond (elements `sgf:workout` and
/// `sgf:event` of the namespace `urn:swift-gps-facade:workout:1`), before the segments, so that an
/// import finds the workout it came from, its pauses exactly, and a wheel's distance across a
/// tunnel as the session counted it; other tools see the pauses as the segment breaks.
extension WorkoutStore {
    nonisolated(nonsending)
    func writeGPX(_ source: ExportSource, into output: inout ExportOutput, sink: ExportSink) async throws(WorkoutStoreError) -> ExportSummary {
        let workout = source.workout
        // A GPX track is its positions: a workout without them (indoors) has nothing to hold its
        // samples but our extension, which no other tool reads; FIT and TCX hold it as devices write it.
        guard source.route != nil else {
            throw .formatCannotHold(
                workoutID: workout.id, format: .gpx, reason: "it has no route (an indoor workout), and a GPX track is a list of positions",
                instead: [.fit, .tcx])
        }
        GPXWriter.appendHeader(creator: "swift-gps-facade", time: workout.start, to: &output.bytes)
        GPXWriter.appendTrackStart(
            name: source.name, type: workout.activityType.rawValue, extensions: Self.gpxExtensions(source.envelope), to: &output.bytes)

        var writer = GPXPointWriter(samples: source.samples)
        // The points the workout counts, as its time line decides (every point of an imported
        // track; a session's points while active, and accurate): what gpxpy or an import then
        // measures is what the session measured.
        var feed = TimelineFeed(options: source.timelineOptions, events: source.events)
        feed.begin(at: workout.start.timeIntervalSince1970)  // as the store reads it back
        var held: RoutePoint?
        try await forEachRoutePoint(of: workout.id, into: &output, sink: sink) { point, bytes in
            let (fate, anchored) = feed.add(TimelinePoint(point))
            if let anchored, let waiting = held, waiting.ordinal == anchored.ordinal {
                writer.add(waiting, segment: anchored.segment, to: &bytes)
            }
            held = nil
            if fate == .counted {
                writer.add(point, segment: feed.timeline.segment, to: &bytes)
            } else {
                held = point
            }
        }
        if let anchored = feed.flushEvents(), let waiting = held, waiting.ordinal == anchored.ordinal {
            writer.add(waiting, segment: anchored.segment, to: &output.bytes)
        }
        writer.finish(to: &output.bytes)
        GPXWriter.appendTrackEnd(to: &output.bytes)
        GPXWriter.appendFooter(to: &output.bytes)

        // Every sample is in the file: on a point, or beside one in our extension.
        let written = writer.points > 0 ? source.samples.count : 0
        return ExportSummary(
            format: .gpx, points: writer.points, segments: writer.segments, samplesWritten: written,
            samplesNotWritten: source.samples.count - written, bytes: 0)
    }

    /// The envelope as the `<trk>`'s extension elements: the header, then each event.
    static func gpxExtensions(_ envelope: WorkoutEnvelope) -> [String] {
        var bytes: [UInt8] = []
        WorkoutEnvelope.appendHeader(envelope.header, to: &bytes)
        var fragments = [String(decoding: bytes, as: UTF8.self)]
        for event in envelope.events {
            bytes.removeAll(keepingCapacity: true)
            WorkoutEnvelope.appendEvent(event, to: &bytes)
            fragments.append(String(decoding: bytes, as: UTF8.self))
        }
        return fragments
    }
}

/// Writes the `<trkpt>`s of a GPX export one point behind: a point's samples are chosen once the
/// point after it is known (its interval ends halfway to it).
private struct GPXPointWriter {
    /// Heart rate, cadence, power, temperature (on the points), then the other types the workout has.
    private(set) var samplers: [PointSampler]
    private var pending: (point: RoutePoint, segment: Int)?
    private var previousTime: Double?
    private var segment: Int?
    private(set) var points = 0
    private(set) var segments = 0

    /// The types a `<trkpt>` carries, in the order of ``samplers``.
    static let onPoints: [QuantityType] = [.heartRate, .cadence, .power, .temperature]

    init(samples: ExportSource.Samples) {
        samplers = Self.onPoints.map { PointSampler(type: $0, samples: samples[$0], onPoints: true) }
            + QuantityType.allCases.filter { !Self.onPoints.contains($0) && !samples[$0].isEmpty }
                .map { PointSampler(type: $0, samples: samples[$0], onPoints: false) }
    }

    /// Takes the next point to write, in `segment`, and writes the one before it.
    mutating func add(_ point: RoutePoint, segment: Int, to bytes: inout [UInt8]) {
        if let pending { write(pending.point, segment: pending.segment, next: Self.time(of: point), to: &bytes) }
        pending = (point, segment)
    }

    /// Writes the last point and closes the last segment.
    mutating func finish(to bytes: inout [UInt8]) {
        if let pending { write(pending.point, segment: pending.segment, next: nil, to: &bytes) }
        pending = nil
        if segment != nil { GPXWriter.appendSegmentEnd(to: &bytes) }
    }

    private static func time(of point: RoutePoint) -> Double {
        (point.location.time ?? point.location.receivedAt).timeIntervalSince1970
    }

    private mutating func write(_ point: RoutePoint, segment index: Int, next: Double?, to bytes: inout [UInt8]) {
        if index != segment {
            if segment != nil { GPXWriter.appendSegmentEnd(to: &bytes) }
            GPXWriter.appendSegmentStart(to: &bytes)
            segment = index
            segments += 1
        }
        points += 1
        let time = Self.time(of: point)
        let (from, to) = PointSampler.interval(at: time, previous: previousTime, next: next)
        previousTime = time
        var values = [Double?](repeating: nil, count: samplers.count)
        var extensions = point.unknownExtensions.map { [$0] } ?? []
        var extras: [PointSampler.Sample] = []
        for index in samplers.indices {
            extras.removeAll(keepingCapacity: true)
            values[index] = samplers[index].take(at: time, from: from, to: to, isLast: next == nil, extras: &extras)?.value
            for extra in extras {
                var text: [UInt8] = []
                WorkoutEnvelope.appendSample(samplers[index].type, extra, to: &text)
                extensions.append(String(decoding: text, as: UTF8.self))
            }
        }
        let location = point.location
        GPXWriter.appendTrackPoint(GPXPoint(
            latitude: location.latitude, longitude: location.longitude, elevation: location.altitude,
            time: GPXTime(date: point.location.time ?? point.location.receivedAt), speed: location.speed, course: location.course,
            heartRate: values[0], cadence: values[1], power: values[2], airTemperature: values[3],
            unknownExtensions: extensions), to: &bytes)
    }
}
