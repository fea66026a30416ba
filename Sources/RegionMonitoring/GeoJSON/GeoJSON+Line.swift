import Geometry

/// A line with what a route's GeoJSON says beside it: the positions of its LineString (or of its
/// MultiLineString, joined) with their altitudes, its name, and the named points of the same file.
public struct GeoJSONLine: Sendable, Hashable {
    /// The `name` property of the line's Feature, when it has one.
    public var name: String?
    /// The positions, in order.
    public var positions: [GeoCoordinate]
    /// Each position's altitude (its third number), nil where it has none.
    public var altitudes: [Double?]
    /// The Point features with a `name` property, in file order.
    public var points: [GeoJSONNamedPoint]

    public init(name: String? = nil, positions: [GeoCoordinate], altitudes: [Double?], points: [GeoJSONNamedPoint] = []) {
        self.name = name
        self.positions = positions
        self.altitudes = altitudes
        self.points = points
    }
}

/// A Point feature with a `name` property (and, when given, a `type` property: `water`, `left`).
public struct GeoJSONNamedPoint: Sendable, Hashable {
    public var name: String
    public var coordinate: GeoCoordinate
    public var type: String?

    public init(name: String, coordinate: GeoCoordinate, type: String? = nil) {
        self.name = name
        self.coordinate = coordinate
        self.type = type
    }
}

extension GeoJSON {
    /// The line the GeoJSON file at `path` holds, with its altitudes and named points: a
    /// LineString or MultiLineString geometry (its lines joined in order), a Feature holding one,
    /// or the first such Feature of a FeatureCollection, whose Point features with a `name` are
    /// the points.
    ///
    /// - Throws: as ``polygonalRegion(contentsOf:)``.
    public static func line(contentsOf path: String) throws(GeoJSONError) -> GeoJSONLine {
        try line(data: read(path), name: path)
    }

    /// The line in GeoJSON text `data`, as ``line(contentsOf:)`` reads a file; `name` is how
    /// errors name it.
    public static func line(data: [UInt8], name: String) throws(GeoJSONError) -> GeoJSONLine {
        let root = try parse(data, name: name)
        return try Reader(file: name).line(in: root, at: "")
    }
}

extension GeoJSON.Reader {
    func line(in value: JSONValue, at path: String) throws(GeoJSONError) -> GeoJSONLine {
        let members = try object(value, at: path)
        switch try type(of: members, at: path) {
        case "FeatureCollection":
            let featuresPath = join(path, "features")
            var found: GeoJSONLine?
            var points: [GeoJSONNamedPoint] = []
            for (index, feature) in try array(members["features"], at: featuresPath).enumerated() {
                let featurePath = "\(featuresPath)[\(index)]"
                let featureMembers = try object(feature, at: featurePath)
                guard case let .object(geometry)? = featureMembers["geometry"], case let .string(kind)? = geometry["type"] else { continue }
                if found == nil, kind == "LineString" || kind == "MultiLineString" {
                    found = try line(in: feature, at: featurePath)
                } else if kind == "Point", case let .string(pointName)? = Self.properties(featureMembers)["name"] {
                    let coordinate = try position(geometry["coordinates"] ?? .null, at: "\(featurePath).geometry.coordinates")
                    var type: String?
                    if case let .string(text)? = Self.properties(featureMembers)["type"] { type = text }
                    points.append(GeoJSONNamedPoint(name: pointName, coordinate: coordinate, type: type))
                }
            }
            guard var line = found else { throw fail(featuresPath, "the collection holds no LineString or MultiLineString.") }
            line.points += points
            return line
        case "Feature":
            guard let geometry = members["geometry"], case .object = geometry else {
                throw fail(join(path, "geometry"), "a Feature for a line needs a LineString or MultiLineString geometry.")
            }
            var line = try line(in: geometry, at: join(path, "geometry"))
            if case let .string(name)? = Self.properties(members)["name"] { line.name = name }
            return line
        case "LineString":
            let coordinatesPath = join(path, "coordinates")
            let (positions, altitudes) = try positionsWithAltitudes(members["coordinates"] ?? .null, at: coordinatesPath)
            guard positions.count >= 2 else { throw fail(coordinatesPath, "a LineString needs at least two positions.") }
            return GeoJSONLine(positions: positions, altitudes: altitudes)
        case "MultiLineString":
            let coordinatesPath = join(path, "coordinates")
            var line = GeoJSONLine(positions: [], altitudes: [])
            for (index, item) in try array(members["coordinates"], at: coordinatesPath).enumerated() {
                let (positions, altitudes) = try positionsWithAltitudes(item, at: "\(coordinatesPath)[\(index)]")
                line.positions += positions
                line.altitudes += altitudes
            }
            guard line.positions.count >= 2 else { throw fail(coordinatesPath, "a MultiLineString needs at least two positions.") }
            return line
        case let other:
            throw fail(join(path, "type"), "\"\(other)\" is not a line: expected LineString, MultiLineString, Feature or FeatureCollection.")
        }
    }

    /// The positions of an array of them, and the altitude of each (its third number, if any).
    func positionsWithAltitudes(_ value: JSONValue, at path: String) throws(GeoJSONError) -> ([GeoCoordinate], [Double?]) {
        var positions: [GeoCoordinate] = []
        var altitudes: [Double?] = []
        for (index, item) in try array(value, at: path).enumerated() {
            positions.append(try position(item, at: "\(path)[\(index)]"))
            if case let .array(numbers) = item, numbers.count >= 3, case let .number(altitude) = numbers[2] {
                altitudes.append(altitude)
            } else {
                altitudes.append(nil)
            }
        }
        return (positions, altitudes)
    }

    static func properties(_ members: [String: JSONValue]) -> [String: JSONValue] {
        if case let .object(properties)? = members["properties"] { return properties }
        return [:]
    }
}
