import Foundation
import GPX

/// What a read delivered: the events in order and the summary.
public struct GPXRead {
    public var events: [GPXEvent] = []
    public var summary: GPXReadSummary

    public var waypoints: [GPXPoint] { events.compactMap { if case .waypoint(let p) = $0 { p } else { nil } } }
    public var routePoints: [GPXPoint] { events.compactMap { if case .routePoint(let p) = $0 { p } else { nil } } }
    public var trackPoints: [GPXPoint] { events.compactMap { if case .trackPoint(let p) = $0 { p } else { nil } } }
    public var metadata: GPXMetadata? { events.lazy.compactMap { if case .metadata(let m) = $0 { m } else { nil } }.first }

    /// Reads `fixtures/gpx/NAME`.
    public static func fixture(_ name: String, options: GPXReadOptions = GPXReadOptions()) throws -> GPXRead {
        try file(Repository.fixture("gpx/" + name).path, options: options)
    }

    public static func file(_ path: String, options: GPXReadOptions = GPXReadOptions()) throws -> GPXRead {
        var events: [GPXEvent] = []
        let summary = try GPXReader(options: options).read(fileAt: path) { events.append($0) }
        return GPXRead(events: events, summary: summary)
    }

    public static func text(_ xml: String, name: String = "test.gpx", options: GPXReadOptions = GPXReadOptions()) throws
        -> GPXRead
    {
        var events: [GPXEvent] = []
        let summary = try GPXReader(options: options).read(data: Data(xml.utf8), name: name) { events.append($0) }
        return GPXRead(events: events, summary: summary)
    }
}

/// 1970 seconds as a Date.
public func epoch(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
