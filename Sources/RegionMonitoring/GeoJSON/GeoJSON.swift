#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore

/// Regions read from GeoJSON (RFC 7946): JSON as RFC 8259 has it (checked strictly, so that a file
/// read here is one other tools read too), decoded with `JSONDecoder`.
///
/// An area is a Polygon or MultiPolygon geometry, a Feature holding one, or a FeatureCollection
/// (the union of its features' areas). A path (for a corridor) is a LineString, or a Feature or the
/// first Feature of a FeatureCollection holding one. Positions are `[longitude, latitude]` (an
/// altitude after them is ignored).
///
/// ```swift
/// let park = try GeoJSON.polygonalRegion(contentsOf: "park.geojson")
/// ```
public enum GeoJSON {
    /// The area the GeoJSON file at `path` describes.
    ///
    /// - Throws: ``GeoJSONError/cannotRead(file:reason:)`` when it cannot be read,
    ///   ``GeoJSONError/invalid(file:path:reason:)`` naming the member that is wrong otherwise.
    public static func polygonalRegion(contentsOf path: String) throws(GeoJSONError) -> PolygonalRegion {
        try polygonalRegion(data: read(path), name: path)
    }

    /// The area GeoJSON text `data` describes; `name` is how errors name it.
    public static func polygonalRegion(data: [UInt8], name: String) throws(GeoJSONError) -> PolygonalRegion {
        let root = try parse(data, name: name)
        var reader = Reader(file: name)
        let polygons = try reader.polygons(in: root, at: "")
        do {
            return try PolygonalRegion(polygons)
        } catch {
            throw .invalid(file: name, path: "", reason: error.reason)
        }
    }

    /// The path (positions in order) of the LineString the GeoJSON file at `path` holds.
    ///
    /// - Throws: as ``polygonalRegion(contentsOf:)``.
    public static func lineString(contentsOf path: String) throws(GeoJSONError) -> [GeoCoordinate] {
        try lineString(data: read(path), name: path)
    }

    /// The path of the LineString in GeoJSON text `data`; `name` is how errors name it.
    public static func lineString(data: [UInt8], name: String) throws(GeoJSONError) -> [GeoCoordinate] {
        let root = try parse(data, name: name)
        var reader = Reader(file: name)
        return try reader.lineString(in: root, at: "")
    }

    /// The tree of `data`, which must be JSON as RFC 8259 has it. Checked by the package's strict
    /// scanner first: `JSONDecoder` takes trailing commas (`[...,[10.0,53.5],]]`), control
    /// characters in strings and lone surrogates, which Python's `json` and other tools refuse, so
    /// a file we read would not be read by them; and it says only that the data is not valid JSON,
    /// where the scanner names what is wrong and its line and column.
    static func parse(_ data: [UInt8], name: String) throws(GeoJSONError) -> JSONValue {
        if let syntax = JSONScan.syntaxError(in: data) {
            throw .invalid(file: name, path: "", reason: "it is not JSON: \(syntax).")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(data))
        } catch {
            // JSON, but not what `JSONDecoder` reads: a number past a Double's range (1e400).
            throw .invalid(file: name, path: "", reason: "it cannot be read: \(error)")
        }
    }

    /// The bytes of the file at `path`.
    static func read(_ path: String) throws(GeoJSONError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotRead(file: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(file: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    /// Walks the tree, keeping the path of what it reads for errors.
    struct Reader {
        let file: String

        func fail(_ path: String, _ reason: String) -> GeoJSONError {
            .invalid(file: file, path: path, reason: reason)
        }

        func object(_ value: JSONValue, at path: String) throws(GeoJSONError) -> [String: JSONValue] {
            guard case let .object(members) = value else { throw fail(path, "expected an object, found \(value.kind).") }
            return members
        }

        func array(_ value: JSONValue?, at path: String) throws(GeoJSONError) -> [JSONValue] {
            guard let value else { throw fail(path, "the member is missing.") }
            guard case let .array(items) = value else { throw fail(path, "expected an array, found \(value.kind).") }
            return items
        }

        func type(of members: [String: JSONValue], at path: String) throws(GeoJSONError) -> String {
            guard case let .string(type)? = members["type"] else {
                throw fail(join(path, "type"), "a GeoJSON object needs a \"type\" string.")
            }
            return type
        }

        func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

        mutating func polygons(in value: JSONValue, at path: String) throws(GeoJSONError) -> [GeoPolygon] {
            let members = try object(value, at: path)
            switch try type(of: members, at: path) {
            case "FeatureCollection":
                let featuresPath = join(path, "features")
                var polygons: [GeoPolygon] = []
                for (index, feature) in try array(members["features"], at: featuresPath).enumerated() {
                    // A collection may hold points and lines beside its areas (labels, a route):
                    // only its areas make the region.
                    let featurePath = "\(featuresPath)[\(index)]"
                    if case let .object(featureMembers) = feature, !Self.holdsArea(featureMembers["geometry"]) { continue }
                    polygons += try self.polygons(in: feature, at: featurePath)
                }
                guard !polygons.isEmpty else { throw fail(featuresPath, "the collection holds no Polygon or MultiPolygon.") }
                return polygons
            case "Feature":
                guard let geometry = members["geometry"], case .object = geometry else {
                    throw fail(join(path, "geometry"), "a Feature for an area needs a Polygon or MultiPolygon geometry.")
                }
                return try polygons(in: geometry, at: join(path, "geometry"))
            case "Polygon":
                let coordinatesPath = join(path, "coordinates")
                return [try polygon(members["coordinates"], at: coordinatesPath)]
            case "MultiPolygon":
                let coordinatesPath = join(path, "coordinates")
                var polygons: [GeoPolygon] = []
                for (index, item) in try array(members["coordinates"], at: coordinatesPath).enumerated() {
                    polygons.append(try polygon(item, at: "\(coordinatesPath)[\(index)]"))
                }
                guard !polygons.isEmpty else { throw fail(coordinatesPath, "a MultiPolygon needs at least one polygon.") }
                return polygons
            case let other:
                throw fail(join(path, "type"), "\"\(other)\" is not an area: expected Polygon, MultiPolygon, Feature or FeatureCollection.")
            }
        }

        static func holdsArea(_ geometry: JSONValue?) -> Bool {
            guard case let .object(members)? = geometry, case let .string(type)? = members["type"] else {
                return geometry != nil && !(geometry.map { if case .null = $0 { true } else { false } } ?? true)
            }
            return !["Point", "MultiPoint", "LineString", "MultiLineString"].contains(type)
        }

        func polygon(_ value: JSONValue?, at path: String) throws(GeoJSONError) -> GeoPolygon {
            let rings = try array(value, at: path)
            guard !rings.isEmpty else { throw fail(path, "a Polygon needs an exterior ring.") }
            var parsed: [[GeoCoordinate]] = []
            for (index, ring) in rings.enumerated() {
                let ringPath = "\(path)[\(index)]"
                let positions = try positions(ring, at: ringPath)
                guard positions.count >= 4 else {
                    throw fail(ringPath, "a linear ring needs at least four positions, the last the same as the first (RFC 7946 §3.1.6); it has \(positions.count).")
                }
                if let first = positions.first, let last = positions.last, first != last {
                    throw fail(ringPath, "the ring is not closed: its last position, \(Self.text(last)) (\(ringPath)[\(positions.count - 1)]), differs from its first, \(Self.text(first)); a linear ring ends where it starts (RFC 7946 §3.1.6).")
                }
                parsed.append(positions)
            }
            do {
                return try GeoPolygon(exterior: parsed[0], holes: Array(parsed.dropFirst()))
            } catch {
                throw fail(path, error.reason)
            }
        }

        /// A position as GeoJSON writes it: `[longitude, latitude]`.
        static func text(_ position: GeoCoordinate) -> String {
            "[\(position.longitude), \(position.latitude)]"
        }

        func positions(_ value: JSONValue, at path: String) throws(GeoJSONError) -> [GeoCoordinate] {
            var result: [GeoCoordinate] = []
            for (index, item) in try array(value, at: path).enumerated() {
                result.append(try position(item, at: "\(path)[\(index)]"))
            }
            return result
        }

        func position(_ value: JSONValue, at path: String) throws(GeoJSONError) -> GeoCoordinate {
            let numbers = try array(value, at: path)
            guard numbers.count >= 2, case let .number(longitude) = numbers[0], case let .number(latitude) = numbers[1] else {
                throw fail(path, "a position is an array of two or three numbers, [longitude, latitude].")
            }
            let point = GeoCoordinate(latitude: latitude, longitude: longitude)
            guard point.isValid else {
                throw fail(path, "[\(longitude), \(latitude)] is not a position on the Earth (longitude first, within ±180; latitude within ±90).")
            }
            return point
        }

        mutating func lineString(in value: JSONValue, at path: String) throws(GeoJSONError) -> [GeoCoordinate] {
            let members = try object(value, at: path)
            switch try type(of: members, at: path) {
            case "FeatureCollection":
                let featuresPath = join(path, "features")
                for (index, feature) in try array(members["features"], at: featuresPath).enumerated() {
                    let featurePath = "\(featuresPath)[\(index)]"
                    let featureMembers = try object(feature, at: featurePath)
                    if case let .object(geometry)? = featureMembers["geometry"], case .string("LineString")? = geometry["type"] {
                        return try lineString(in: feature, at: featurePath)
                    }
                }
                throw fail(featuresPath, "the collection holds no LineString.")
            case "Feature":
                guard let geometry = members["geometry"], case .object = geometry else {
                    throw fail(join(path, "geometry"), "a Feature for a path needs a LineString geometry.")
                }
                return try lineString(in: geometry, at: join(path, "geometry"))
            case "LineString":
                let coordinatesPath = join(path, "coordinates")
                let points = try positions(members["coordinates"] ?? .null, at: coordinatesPath)
                guard points.count >= 2 else { throw fail(coordinatesPath, "a LineString needs at least two positions.") }
                return points
            case let other:
                throw fail(join(path, "type"), "\"\(other)\" is not a path: expected LineString, Feature or FeatureCollection.")
            }
        }
    }
}
