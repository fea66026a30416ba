import Foundation
import GPSCore

/// What this package's own GPX, TCX and FIT files carry beyond the points and samples, so that
/// importing one gives back the workout it was exported from: its id, start and end, whether
/// auto-pause decided its stops, how its distance was counted (``SensorDistance``'s source and
/// factor) and whether it was done indoors, and its events exactly (kind, time to the
/// millisecond, a lap's trigger, a marker's name).
///
/// Where a format has a standard place for a fact it goes there too (FIT timer events and laps,
/// GPX segments, TCX tracks), for other tools; the envelope is what our importers read back.
///
/// In GPX and TCX it is written as elements of our own namespace, ``namespace``, prefix `sgf`:
///
/// ```xml
/// <sgf:workout xmlns:sgf="urn:swift-gps-facade:workout:1" id="…" start="2024-05-01T10:00:00.123Z"
///     end="2024-05-01T10:42:00.000Z" autoPause="true"/>
/// <sgf:workout xmlns:sgf="urn:swift-gps-facade:workout:1" id="…" start="…" end="…" autoPause="false" distance="5012.4" energy="312"/>
/// <sgf:workout xmlns:sgf="urn:swift-gps-facade:workout:1" id="…" start="…" end="…" autoPause="true"
///     distanceSource="automatic" sensorFactor="0.9957244655581926" indoor="false"/>
/// <sgf:event xmlns:sgf="urn:swift-gps-facade:workout:1" kind="pause" time="2024-05-01T10:12:03.000Z"/>
/// <sgf:event xmlns:sgf="urn:swift-gps-facade:workout:1" kind="lap" time="…" trigger="distance"/>
/// <sgf:event xmlns:sgf="urn:swift-gps-facade:workout:1" kind="marker" time="…" name="Summit"/>
/// <sgf:segment xmlns:sgf="urn:swift-gps-facade:workout:1"/>
/// <sgf:sample xmlns:sgf="urn:swift-gps-facade:workout:1" type="heart_rate" start="…" value="131"/>
/// ```
///
/// (GPX: `workout` and the events in the `<trk>`'s `<extensions>`, before its segments; each
/// `sample` no point carries in the `<extensions>` of the point it comes with. TCX: `workout` in the
/// `<Activity>`'s `<Extensions>`; each `event` in the `<Extensions>` of the track point it comes
/// after, so an import reading the file in order meets it where it happened; `segment` on the
/// first point of each route segment after the first.) In FIT they are developer fields
/// (``FITWorkoutFields``).
struct WorkoutEnvelope: Sendable, Hashable {
    /// The namespace of our elements.
    static let namespace = "urn:swift-gps-facade:workout:1"

    /// The workout's id, start and end, and whether auto-pause decided its stops: the `workout`
    /// element, FIT's `session` developer fields.
    struct Header: Sendable, Hashable {
        var id: UUID
        var start: Date
        var end: Date
        /// Whether the workout's stops (`motion_paused` ... `motion_resumed`) were decided by its
        /// recorder's auto-pause: an importer then decides none of its own.
        var autoPause: Bool
        /// The distance of a workout without a route, which no point can give back: the one its
        /// device measured (a treadmill's foot pod, a trainer's wheel), metres.
        var distance: Double? = nil
        /// The workout's energy, kilocalories, when it has one: GPX has no place for it, and
        /// TCX's laps hold whole kilocalories (and 0 for none).
        var energy: Double? = nil
        /// How the distance was counted, when the workout's metadata says (a recorded session's:
        /// ``SensorDistance``): an import counts the file's distance the same way.
        var counting: DistanceCounting? = nil
        /// Whether it was done indoors, when known (``WorkoutMetadata/isIndoor``).
        var isIndoor: Bool? = nil
    }

    /// Where a workout's distance came from and what its sensor's distance was multiplied by:
    /// the `distanceSource` and `sensorFactor` attributes, FIT's `distance_source` and
    /// `sensor_factor` fields.
    struct DistanceCounting: Sendable, Hashable {
        var source: DistanceSource
        /// What the sensor's distance was multiplied by (its calibration against the fixes).
        var sensorFactor: Double

        /// The metadata values of a workout imported with the sensor's own samples (GPX's), which
        /// the factor multiplies (``SensorDistance``'s keys), so that the store counts its distance
        /// as the original's. (FIT's records and TCX's track points hold the distance counted, the
        /// factor in it: their imports keep the source with a factor of 1.)
        var metadataValues: [String: String] {
            SensorDistance(source: source, factor: sensorFactor).metadataValues
        }
    }

    var header: Header
    /// Every event, in order.
    var events: [WorkoutEvent]

    // MARK: - XML

    private static let declaration = " xmlns:sgf=\"\(namespace)\""

    /// `<sgf:workout …/>`: the header.
    static func appendHeader(_ header: Header, to bytes: inout [UInt8]) {
        TextBytes.append("<sgf:workout", to: &bytes)
        bytes.append(contentsOf: declaration.utf8)
        bytes.append(contentsOf: " id=\"\(header.id.uuidString)\" start=\"".utf8)
        RFC3339.append(header.start, fractionDigits: 3, to: &bytes)
        TextBytes.append("\" end=\"", to: &bytes)
        RFC3339.append(header.end, fractionDigits: 3, to: &bytes)
        bytes.append(contentsOf: "\" autoPause=\"\(header.autoPause)\"".utf8)
        if let distance = header.distance, distance.isFinite {
            TextBytes.append(" distance=\"", to: &bytes)
            TextBytes.appendShortest(distance, to: &bytes)
            TextBytes.append("\"", to: &bytes)
        }
        if let energy = header.energy, energy.isFinite {
            TextBytes.append(" energy=\"", to: &bytes)
            TextBytes.appendShortest(energy, to: &bytes)
            TextBytes.append("\"", to: &bytes)
        }
        if let counting = header.counting, counting.sensorFactor.isFinite {
            bytes.append(contentsOf: " distanceSource=\"\(counting.source.rawValue)\" sensorFactor=\"".utf8)
            // The shortest decimal that reads back as the same factor: the import counts with it again.
            TextBytes.appendShortest(counting.sensorFactor, to: &bytes)
            TextBytes.append("\"", to: &bytes)
        }
        if let indoor = header.isIndoor { bytes.append(contentsOf: " indoor=\"\(indoor)\"".utf8) }
        TextBytes.append("/>", to: &bytes)
    }

    /// `<sgf:event …/>`: one event.
    static func appendEvent(_ event: WorkoutEvent, to bytes: inout [UInt8]) {
        TextBytes.append("<sgf:event", to: &bytes)
        bytes.append(contentsOf: declaration.utf8)
        bytes.append(contentsOf: " kind=\"\(event.kind.rawValue)\" time=\"".utf8)
        RFC3339.append(event.time, fractionDigits: 3, to: &bytes)
        TextBytes.append("\"", to: &bytes)
        if let trigger = event.trigger { bytes.append(contentsOf: " trigger=\"\(trigger.rawValue)\"".utf8) }
        if let name = event.name {
            TextBytes.append(" name=\"", to: &bytes)
            TextBytes.appendXML(name, attribute: true, to: &bytes)
            TextBytes.append("\"", to: &bytes)
        }
        TextBytes.append("/>", to: &bytes)
    }

    /// `<sgf:sample …/>`: a sample no point of a GPX export carries (its end only when it is
    /// not its start).
    static func appendSample(_ type: QuantityType, _ sample: ExportSource.Sample, to bytes: inout [UInt8]) {
        TextBytes.append("<sgf:sample", to: &bytes)
        bytes.append(contentsOf: declaration.utf8)
        bytes.append(contentsOf: " type=\"\(type.rawValue)\" start=\"".utf8)
        RFC3339.append(Date(timeIntervalSince1970: sample.start), fractionDigits: 3, to: &bytes)
        if sample.end != sample.start {
            TextBytes.append("\" end=\"", to: &bytes)
            RFC3339.append(Date(timeIntervalSince1970: sample.end), fractionDigits: 3, to: &bytes)
        }
        TextBytes.append("\" value=\"", to: &bytes)
        TextBytes.appendShortest(sample.value, to: &bytes)
        TextBytes.append("\"/>", to: &bytes)
    }

    /// `<sgf:segment/>`: the point it is on begins a route segment.
    static func appendSegmentStart(to bytes: inout [UInt8]) {
        TextBytes.append("<sgf:segment", to: &bytes)
        bytes.append(contentsOf: declaration.utf8)
        TextBytes.append("/>", to: &bytes)
    }

    /// Times in our files are written to the millisecond: the time an event is read back at.
    static func written(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

extension ExportSource {
    /// The envelope of the workout exported.
    var envelope: WorkoutEnvelope {
        let autoPause = autoPaused || events.contains { $0.kind == .motionPaused || $0.kind == .motionResumed }
        let counting = SensorDistance(workout.metadata).map { WorkoutEnvelope.DistanceCounting(source: $0.source, sensorFactor: $0.factor) }
        return WorkoutEnvelope(
            header: WorkoutEnvelope.Header(
                id: workout.id, start: workout.start, end: workout.end, autoPause: autoPause,
                distance: (route?.pointCount ?? 0) < 2 ? workout.totals.distance : nil, energy: workout.totals.energy,
                counting: counting, isIndoor: workout.metadata.isIndoor),
            events: events)
    }
}
