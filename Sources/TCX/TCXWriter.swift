#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import GPX

/// Writes TCX (Training Center Database v2, with ActivityExtension v2) as UTF-8 bytes, a piece at
/// a time, so a document of any length is written in constant memory, in the element order the
/// schema requires.
///
/// ```swift
/// var bytes: [UInt8] = []
/// TCXWriter.appendHeader(to: &bytes)
/// TCXWriter.appendActivityStart(sport: "Running", id: start, to: &bytes)
/// TCXWriter.appendLapStart(lap, to: &bytes)            // a TCXLap with its totals
/// TCXWriter.appendTrackStart(to: &bytes)
/// for point in points { TCXWriter.appendTrackpoint(point, to: &bytes) }
/// TCXWriter.appendTrackEnd(to: &bytes)
/// TCXWriter.appendLapEnd(lap, to: &bytes)
/// TCXWriter.appendActivityEnd(creator: "my-app", to: &bytes)
/// TCXWriter.appendFooter(to: &bytes)
/// ```
///
/// Numbers are written in the shortest form that reads back as the same `Double`; times in UTC
/// with three fraction digits. A lap's required elements (`TotalTimeSeconds`, `DistanceMeters`,
/// `Calories`, `Intensity`, `TriggerMethod`) are written with 0, `Active` and `Manual` when unknown.
public enum TCXWriter {
    /// The TCX v2 namespace.
    public static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    /// The ActivityExtension v2 namespace, bound to the prefix `ax`.
    public static let activityExtensionNamespace = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"

    /// The XML declaration, the root's start tag and `<Activities>`.
    public static func appendHeader(to bytes: inout [UInt8]) {
        TextBytes.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", to: &bytes)
        bytes.append(contentsOf: "<TrainingCenterDatabase xmlns=\"\(namespace)\" xmlns:ax=\"\(activityExtensionNamespace)\">\n".utf8)
        TextBytes.append(" <Activities>\n", to: &bytes)
    }

    /// `</Activities>` and the root's end tag.
    public static func appendFooter(to bytes: inout [UInt8]) {
        TextBytes.append(" </Activities>\n</TrainingCenterDatabase>\n", to: &bytes)
    }

    /// `<Activity Sport="...">` and its `<Id>` (the time it began).
    public static func appendActivityStart(sport: String, id: Date, to bytes: inout [UInt8]) {
        TextBytes.append("  <Activity Sport=\"", to: &bytes)
        TextBytes.appendXML(sport, attribute: true, to: &bytes)
        TextBytes.append("\">\n   <Id>", to: &bytes)
        RFC3339.append(id, fractionDigits: 3, to: &bytes)
        TextBytes.append("</Id>\n", to: &bytes)
    }

    /// The activity's `<Notes>` (when given), `<Creator>` (an application: its name), its
    /// `<Extensions>` holding `extensions` (well-formed elements of other namespaces, each
    /// declaring the namespaces it uses) when there are any, and its end tag.
    public static func appendActivityEnd(notes: String? = nil, creator: String, extensions: [String] = [], to bytes: inout [UInt8]) {
        if let notes {
            TextBytes.append("   <Notes>", to: &bytes)
            TextBytes.appendXML(notes, to: &bytes)
            TextBytes.append("</Notes>\n", to: &bytes)
        }
        bytes.append(contentsOf: "   <Creator xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"Device_t\"><Name>".utf8)
        TextBytes.appendXML(creator, to: &bytes)
        TextBytes.append("</Name><UnitId>0</UnitId><ProductID>0</ProductID><Version><VersionMajor>1</VersionMajor><VersionMinor>0</VersionMinor><BuildMajor>0</BuildMajor><BuildMinor>0</BuildMinor></Version></Creator>\n", to: &bytes)
        if !extensions.isEmpty {
            TextBytes.append("   <Extensions>", to: &bytes)
            for fragment in extensions { bytes.append(contentsOf: fragment.utf8) }
            TextBytes.append("</Extensions>\n", to: &bytes)
        }
        TextBytes.append("  </Activity>\n", to: &bytes)
    }

    /// `<Lap StartTime="...">` and its totals, up to its tracks.
    public static func appendLapStart(_ lap: TCXLap, to bytes: inout [UInt8]) {
        TextBytes.append("   <Lap StartTime=\"", to: &bytes)
        RFC3339.append(lap.startTime?.date ?? Date(timeIntervalSince1970: 0), fractionDigits: 3, to: &bytes)
        TextBytes.append("\">\n", to: &bytes)
        element("TotalTimeSeconds", lap.totalTime ?? 0, indent: 4, to: &bytes)
        element("DistanceMeters", lap.distance ?? 0, indent: 4, to: &bytes)
        if let speed = lap.maximumSpeed { element("MaximumSpeed", speed, indent: 4, to: &bytes) }
        element("Calories", (lap.calories ?? 0).rounded(), indent: 4, to: &bytes)
        for (name, value) in [("AverageHeartRateBpm", lap.averageHeartRate), ("MaximumHeartRateBpm", lap.maximumHeartRate)] {
            guard let value, value >= 1, value < 256 else { continue }
            bytes.append(contentsOf: "    <\(name)><Value>\(Int(value.rounded()))</Value></\(name)>\n".utf8)
        }
        bytes.append(contentsOf: "    <Intensity>\(lap.intensity ?? "Active")</Intensity>\n".utf8)
        if let cadence = lap.cadence, cadence >= 0, cadence < 255 { element("Cadence", cadence.rounded(), indent: 4, to: &bytes) }
        bytes.append(contentsOf: "    <TriggerMethod>\(lap.triggerMethod ?? "Manual")</TriggerMethod>\n".utf8)
    }

    /// The lap's ActivityExtension `<LX>` (average speed and watts, when known) and end tag.
    public static func appendLapEnd(_ lap: TCXLap, to bytes: inout [UInt8]) {
        let extensions = [("AvgSpeed", lap.averageSpeed), ("AvgWatts", lap.averageWatts.map { $0.rounded() }), ("MaxWatts", lap.maximumWatts.map { $0.rounded() })]
            .compactMap { name, value in value.map { (name, $0) } }
        if !extensions.isEmpty {
            TextBytes.append("    <Extensions><ax:LX>", to: &bytes)
            for (name, value) in extensions { inline("ax:" + name, value, to: &bytes) }
            TextBytes.append("</ax:LX></Extensions>\n", to: &bytes)
        }
        TextBytes.append("   </Lap>\n", to: &bytes)
    }

    /// `<Track>`.
    public static func appendTrackStart(to bytes: inout [UInt8]) {
        TextBytes.append("    <Track>\n", to: &bytes)
    }

    /// `</Track>`.
    public static func appendTrackEnd(to bytes: inout [UInt8]) {
        TextBytes.append("    </Track>\n", to: &bytes)
    }

    /// A `<Trackpoint>` on one line: time, position, altitude, distance, heart rate, cadence, and
    /// `<Extensions>` with the ActivityExtension `<TPX>` (speed and watts) when known and the
    /// point's other ``TCXTrackpoint/extensions`` (well-formed elements of other namespaces). A
    /// heart rate or cadence TCX cannot hold (a byte: 1-255 bpm, 0-254 rpm) is left out: see
    /// ``fits(heartRate:cadence:)``.
    public static func appendTrackpoint(_ point: TCXTrackpoint, to bytes: inout [UInt8]) {
        TextBytes.append("     <Trackpoint><Time>", to: &bytes)
        RFC3339.append(point.time.date, fractionDigits: 3, to: &bytes)
        TextBytes.append("</Time>", to: &bytes)
        if let latitude = point.latitude, let longitude = point.longitude {
            TextBytes.append("<Position>", to: &bytes)
            inline("LatitudeDegrees", latitude, to: &bytes)
            inline("LongitudeDegrees", longitude, to: &bytes)
            TextBytes.append("</Position>", to: &bytes)
        }
        if let altitude = point.altitude { inline("AltitudeMeters", altitude, to: &bytes) }
        if let distance = point.distance { inline("DistanceMeters", distance, to: &bytes) }
        let (heartRate, cadence) = fits(heartRate: point.heartRate, cadence: point.cadence)
        if let heartRate { bytes.append(contentsOf: "<HeartRateBpm><Value>\(Int(heartRate))</Value></HeartRateBpm>".utf8) }
        if let cadence { inline("Cadence", cadence, to: &bytes) }
        let power = point.power.flatMap { $0 >= 0 ? $0.rounded() : nil }
        if point.speed != nil || power != nil || !point.extensions.isEmpty {
            TextBytes.append("<Extensions>", to: &bytes)
            if point.speed != nil || power != nil {
                TextBytes.append("<ax:TPX>", to: &bytes)
                if let speed = point.speed { inline("ax:Speed", speed, to: &bytes) }
                if let power { inline("ax:Watts", power, to: &bytes) }
                TextBytes.append("</ax:TPX>", to: &bytes)
            }
            for fragment in point.extensions { bytes.append(contentsOf: fragment.utf8) }
            TextBytes.append("</Extensions>", to: &bytes)
        }
        TextBytes.append("</Trackpoint>\n", to: &bytes)
    }

    /// The heart rate and cadence a `<Trackpoint>` can hold, rounded to whole numbers: TCX's
    /// schema gives them a byte (heart rate 1-255 bpm, cadence 0-254 rpm); others are `nil`.
    public static func fits(heartRate: Double?, cadence: Double?) -> (heartRate: Double?, cadence: Double?) {
        let heartRate = heartRate.map { $0.rounded() }.flatMap { (1...255).contains($0) ? $0 : nil }
        let cadence = cadence.map { $0.rounded() }.flatMap { (0...254).contains($0) ? $0 : nil }
        return (heartRate, cadence)
    }

    private static func element(_ name: String, _ value: Double, indent: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: [UInt8](repeating: 0x20, count: indent))
        inline(name, value, to: &bytes)
        bytes.append(0x0A)
    }

    private static func inline(_ name: String, _ value: Double, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "<\(name)>".utf8)
        TextBytes.appendShortest(value, to: &bytes)
        bytes.append(contentsOf: "</\(name)>".utf8)
    }
}
