#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// Writes GPX 1.1 as UTF-8 bytes, a piece at a time, so a document of any length is written in
/// constant memory: the one GPX writer of the package (workout export, `locate once --format gpx`).
///
/// ```swift
/// var bytes: [UInt8] = []
/// GPXWriter.appendHeader(creator: "my-app", time: start, to: &bytes)
/// GPXWriter.appendTrackStart(name: "Morning run", type: "running", to: &bytes)
/// GPXWriter.appendSegmentStart(to: &bytes)
/// for point in points { GPXWriter.appendTrackPoint(point, to: &bytes) }
/// GPXWriter.appendSegmentEnd(to: &bytes)
/// GPXWriter.appendTrackEnd(to: &bytes)
/// GPXWriter.appendFooter(to: &bytes)
/// ```
///
/// Coordinates and numbers are written in the shortest decimal form that reads back as the same
/// `Double`, in plain notation (GPX's `xsd:decimal` has no exponent); times in UTC with three
/// fraction digits; text escaped, without the characters XML cannot hold. A track point's air
/// temperature, heart rate, cadence, speed and course go in Garmin's TrackPointExtension v2, in
/// the order its schema requires, its power in Garmin's PowerExtension v1 (`PowerInWatts`); its
/// unknown extensions are written back as they were read.
public enum GPXWriter {
    /// The GPX 1.1 namespace.
    public static let namespace = "http://www.topografix.com/GPX/1/1"
    /// Garmin's TrackPointExtension v2 namespace, bound to the prefix `gpxtpx`.
    public static let trackPointExtensionNamespace = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    /// Garmin's PowerExtension v1 namespace, bound to the prefix `pwr`.
    public static let powerExtensionNamespace = "http://www.garmin.com/xmlschemas/PowerExtension/v1"

    /// The XML declaration, the `<gpx>` start tag (GPX 1.1, TrackPointExtension v2 and
    /// PowerExtension v1 namespaces) and, with a `time`, a `<metadata>` holding it.
    public static func appendHeader(creator: String, time: Date? = nil, to bytes: inout [UInt8]) {
        TextBytes.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"", to: &bytes)
        TextBytes.appendXML(creator, attribute: true, to: &bytes)
        bytes.append(contentsOf: "\" xmlns=\"\(namespace)\" xmlns:gpxtpx=\"\(trackPointExtensionNamespace)\"".utf8)
        bytes.append(contentsOf: " xmlns:pwr=\"\(powerExtensionNamespace)\">\n".utf8)
        if let time {
            TextBytes.append(" <metadata><time>", to: &bytes)
            RFC3339.append(time, fractionDigits: 3, to: &bytes)
            TextBytes.append("</time></metadata>\n", to: &bytes)
        }
    }

    /// `</gpx>`.
    public static func appendFooter(to bytes: inout [UInt8]) {
        TextBytes.append("</gpx>\n", to: &bytes)
    }

    /// `<trk>`, with `<name>` and `<type>` when given, and `<extensions>` holding `extensions`
    /// (well-formed elements, each declaring the namespaces it uses) when there are any.
    public static func appendTrackStart(name: String?, type: String?, extensions: [String] = [], to bytes: inout [UInt8]) {
        TextBytes.append(" <trk>\n", to: &bytes)
        if let name {
            TextBytes.append("  <name>", to: &bytes)
            TextBytes.appendXML(name, to: &bytes)
            TextBytes.append("</name>\n", to: &bytes)
        }
        if let type {
            TextBytes.append("  <type>", to: &bytes)
            TextBytes.appendXML(type, to: &bytes)
            TextBytes.append("</type>\n", to: &bytes)
        }
        if !extensions.isEmpty {
            TextBytes.append("  <extensions>\n", to: &bytes)
            for fragment in extensions {
                TextBytes.append("   ", to: &bytes)
                bytes.append(contentsOf: fragment.utf8)
                bytes.append(UInt8(ascii: "\n"))
            }
            TextBytes.append("  </extensions>\n", to: &bytes)
        }
    }

    /// `</trk>`.
    public static func appendTrackEnd(to bytes: inout [UInt8]) {
        TextBytes.append(" </trk>\n", to: &bytes)
    }

    /// `<trkseg>`.
    public static func appendSegmentStart(to bytes: inout [UInt8]) {
        TextBytes.append("  <trkseg>\n", to: &bytes)
    }

    /// `</trkseg>`.
    public static func appendSegmentEnd(to bytes: inout [UInt8]) {
        TextBytes.append("  </trkseg>\n", to: &bytes)
    }

    /// One `<trkpt>` on a line of its own: position, `<ele>`, `<time>`, and the extensions.
    /// Heart rate and cadence are rounded to whole numbers (TrackPointExtension types them
    /// `xsd:unsignedByte`), power too (PowerExtension's `xsd:unsignedShort`); a speed or course out
    /// of its range is left out.
    public static func appendTrackPoint(_ point: GPXPoint, to bytes: inout [UInt8]) {
        TextBytes.append("   <trkpt", to: &bytes)
        appendPosition(point, to: &bytes)
        if let elevation = point.elevation, elevation.isFinite {
            TextBytes.append("<ele>", to: &bytes)
            TextBytes.appendShortest(elevation, to: &bytes)
            TextBytes.append("</ele>", to: &bytes)
        }
        if let time = point.time {
            TextBytes.append("<time>", to: &bytes)
            RFC3339.append(time.date, fractionDigits: 3, to: &bytes)
            TextBytes.append("</time>", to: &bytes)
        }
        let heartRate = point.heartRate.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let cadence = point.cadence.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let speed = point.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let course = point.course.flatMap { $0.isFinite && $0 >= 0 && $0 < 360 ? $0 : nil }
        let temperature = point.airTemperature.flatMap { $0.isFinite ? $0 : nil }
        let power = point.power.flatMap { $0.isFinite && $0 >= 0 && $0.rounded() <= 65_535 ? $0.rounded() : nil }
        let known = heartRate != nil || cadence != nil || speed != nil || course != nil || temperature != nil
        if known || power != nil || !point.unknownExtensions.isEmpty {
            TextBytes.append("<extensions>", to: &bytes)
            if known {
                TextBytes.append("<gpxtpx:TrackPointExtension>", to: &bytes)
                if let temperature { element("gpxtpx:atemp", temperature, to: &bytes) }
                if let heartRate { element("gpxtpx:hr", heartRate.rounded(), to: &bytes) }
                if let cadence { element("gpxtpx:cad", cadence.rounded(), to: &bytes) }
                if let speed { element("gpxtpx:speed", speed, to: &bytes) }
                if let course { element("gpxtpx:course", course, to: &bytes) }
                TextBytes.append("</gpxtpx:TrackPointExtension>", to: &bytes)
            }
            if let power { element("pwr:PowerInWatts", power, to: &bytes) }
            // Kept from a read as well-formed elements with their own namespace declarations.
            for fragment in point.unknownExtensions { bytes.append(contentsOf: fragment.utf8) }
            TextBytes.append("</extensions>", to: &bytes)
        }
        TextBytes.append("</trkpt>\n", to: &bytes)
    }

    /// `<rte>`, with `<name>` and `<type>` when given: its `<rtept>`s follow
    /// (``appendRoutePoint(_:to:)``), then ``appendRouteEnd(to:)``. GPX 1.1 puts routes after the
    /// waypoints and before the tracks.
    public static func appendRouteStart(name: String?, type: String? = nil, to bytes: inout [UInt8]) {
        TextBytes.append(" <rte>\n", to: &bytes)
        for (element, value) in [("name", name), ("type", type)] {
            guard let value else { continue }
            bytes.append(contentsOf: "  <\(element)>".utf8)
            TextBytes.appendXML(value, to: &bytes)
            bytes.append(contentsOf: "</\(element)>\n".utf8)
        }
    }

    /// One `<rtept>` on a line of its own: position, `<ele>`, `<time>` and `<name>` where known.
    public static func appendRoutePoint(_ point: GPXPoint, to bytes: inout [UInt8]) {
        TextBytes.append("  <rtept", to: &bytes)
        appendPosition(point, to: &bytes)
        if let elevation = point.elevation, elevation.isFinite {
            TextBytes.append("<ele>", to: &bytes)
            TextBytes.appendShortest(elevation, to: &bytes)
            TextBytes.append("</ele>", to: &bytes)
        }
        if let time = point.time {
            TextBytes.append("<time>", to: &bytes)
            RFC3339.append(time.date, fractionDigits: 3, to: &bytes)
            TextBytes.append("</time>", to: &bytes)
        }
        if let name = point.name {
            TextBytes.append("<name>", to: &bytes)
            TextBytes.appendXML(name, to: &bytes)
            TextBytes.append("</name>", to: &bytes)
        }
        TextBytes.append("</rtept>\n", to: &bytes)
    }

    /// `</rte>`.
    public static func appendRouteEnd(to bytes: inout [UInt8]) {
        TextBytes.append(" </rte>\n", to: &bytes)
    }

    /// One `<wpt>`: position, `<ele>`, `<time>`, `<name>`, `<src>` (`source`), `<type>` and `<fix>`
    /// where known, in the order GPX 1.1's schema requires.
    public static func appendWaypoint(_ point: GPXPoint, source: String? = nil, to bytes: inout [UInt8]) {
        TextBytes.append(" <wpt", to: &bytes)
        appendPosition(point, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        if let elevation = point.elevation, elevation.isFinite {
            TextBytes.append("  <ele>", to: &bytes)
            TextBytes.appendShortest(elevation, to: &bytes)
            TextBytes.append("</ele>\n", to: &bytes)
        }
        if let time = point.time {
            TextBytes.append("  <time>", to: &bytes)
            RFC3339.append(time.date, fractionDigits: 3, to: &bytes)
            TextBytes.append("</time>\n", to: &bytes)
        }
        for (name, value) in [("name", point.name), ("src", source), ("type", point.type), ("fix", point.fix)] {
            guard let value else { continue }
            bytes.append(contentsOf: "  <\(name)>".utf8)
            TextBytes.appendXML(value, to: &bytes)
            bytes.append(contentsOf: "</\(name)>\n".utf8)
        }
        TextBytes.append(" </wpt>\n", to: &bytes)
    }

    private static func appendPosition(_ point: GPXPoint, to bytes: inout [UInt8]) {
        TextBytes.append(" lat=\"", to: &bytes)
        TextBytes.appendShortest(point.latitude, to: &bytes)
        TextBytes.append("\" lon=\"", to: &bytes)
        TextBytes.appendShortest(point.longitude, to: &bytes)
        TextBytes.append("\">", to: &bytes)
    }

    private static func element(_ name: StaticString, _ value: Double, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "<"))
        TextBytes.append(name, to: &bytes)
        bytes.append(UInt8(ascii: ">"))
        TextBytes.appendShortest(value, to: &bytes)
        bytes.append(contentsOf: "</".utf8)
        TextBytes.append(name, to: &bytes)
        bytes.append(UInt8(ascii: ">"))
    }
}
