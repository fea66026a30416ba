import Foundation
import Geometry
import TestSupport

/// A folder of a test's own, removed when the test is done with it.
final class Folder: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "course-files-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)  // a folder left in /tmp is no test's failure
    }

    /// Writes `text` to `name` in the folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func file(_ name: String) -> String { path + "/" + name }
}

/// Garmin's FIT decoder run on course files by `scripts/peers/fit_course_peer.py`.
enum CoursePeer {
    struct Course: Decodable {
        var name: String?
        var sport: Double?
        var capabilities: Double?
    }

    /// What Garmin's decoder read in one file.
    struct Reading: Decodable {
        var file: String
        var fileTypes: [Double?]
        var course: Course?
        var records: Int
        var recordDistances: [Double?]
        /// `[type, name, distance, latitude, longitude, timestamp]`.
        var coursePoints: [[Value?]]
        var errors: [String]
        var integrity: Bool

        enum CodingKeys: String, CodingKey {
            case file, course, records, errors, integrity
            case fileTypes = "file_types"
            case recordDistances = "record_distances"
            case coursePoints = "course_points"
        }
    }

    /// A number or a text in the peer's JSON.
    enum Value: Decodable, Equatable {
        case number(Double)
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) { self = .number(number) } else { self = .text(try container.decode(String.self)) }
        }

        var number: Double? { if case let .number(value) = self { value } else { nil } }
        var text: String? { if case let .text(value) = self { value } else { nil } }
    }

    static func read(_ paths: [String]) async throws -> [String: Reading] {
        guard let python = FITPeers.python else { throw FITPeers.PeerError(description: FITPeers.missing) }
        let result = try await Command.run(python, [Repository.root.appendingPathComponent("scripts/peers/fit_course_peer.py").path] + paths)
        guard result.status == 0 else { throw FITPeers.PeerError(description: "fit_course_peer.py exited with \(result.status): \(result.error)") }
        var readings: [String: Reading] = [:]
        for line in result.output.split(separator: UInt8(ascii: "\n")) {
            let reading = try JSONDecoder().decode(Reading.self, from: Data(line))
            readings[reading.file] = reading
        }
        return readings
    }
}

/// Positions drawn from `start`, a leg at a time (bearing, metres), a position every `step` metres.
func drawn(from start: GeoCoordinate, legs: [(bearing: Double, length: Double)], step: Double = 5) -> [GeoCoordinate] {
    var positions = [start]
    for leg in legs {
        let from = positions[positions.count - 1]
        let steps = Int((leg.length / step).rounded())
        for index in 1...steps { positions.append(from.destination(bearing: leg.bearing, distance: Double(index) * step)) }
    }
    return positions
}

/// A GPX document of `positions` as a track (or a route), with `waypoints` (name, position, type).
func gpxText(
    _ positions: [GeoCoordinate], route: Bool = false, name: String = "Loop", elevations: [Double]? = nil,
    waypoints: [(name: String, at: GeoCoordinate, type: String?)] = []
) -> String {
    var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    text += #"<gpx version="1.1" creator="tests" xmlns="http://www.topografix.com/GPX/1/1">"# + "\n"
    for waypoint in waypoints {
        text += #" <wpt lat="\#(waypoint.at.latitude)" lon="\#(waypoint.at.longitude)"><name>\#(waypoint.name)</name>"#
        if let type = waypoint.type { text += "<type>\(type)</type>" }
        text += "</wpt>\n"
    }
    let (open, close, point) = route ? ("<rte>", "</rte>", "rtept") : ("<trk>", "</trk>", "trkpt")
    text += " \(open)<name>\(name)</name>\(route ? "" : "<trkseg>")\n"
    for (index, position) in positions.enumerated() {
        let ele = elevations.map { "<ele>\($0[index])</ele>" } ?? ""
        text += #"  <\#(point) lat="\#(position.latitude)" lon="\#(position.longitude)">\#(ele)</\#(point)>"# + "\n"
    }
    text += " \(route ? "" : "</trkseg>")\(close)\n</gpx>\n"
    return text
}
