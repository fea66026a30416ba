// Element names and namespaces, recognised without making Strings. libxml2 interns every name
// and namespace URI in its per-parse dictionary, so the same name always arrives at the same
// address during a parse: each distinct pointer is classified once (by its bytes) and then found
// in a small direct-mapped cache.

/// The namespaces the reader knows. Extensions are recognised by namespace URI, never by prefix.
enum GPXNamespace: UInt8 {
    /// No namespace (a GPX file without `xmlns`).
    case none
    case gpx10
    case gpx11
    /// Garmin TrackPointExtension v1 or v2 (also the misspelt `.../xmlschemes/...` seen in the wild).
    case trackPointExtension
    /// Garmin GpxExtensions v3 (its `TrackPointExtension` carries `Temperature` and `Depth`).
    case garminGPXExtensions
    /// ClueTrust gpxdata.
    case gpxdata
    /// Garmin PowerExtension v1.
    case powerExtension
    case other

    /// Elements of GPX itself: GPX 1.0, 1.1, or no namespace.
    var isGPX: Bool { rawValue <= GPXNamespace.gpx11.rawValue }

    static let uris: [(String, GPXNamespace)] = [
        ("http://www.topografix.com/GPX/1/1", .gpx11),
        ("http://www.topografix.com/GPX/1/0", .gpx10),
        ("http://www.garmin.com/xmlschemas/TrackPointExtension/v1", .trackPointExtension),
        ("http://www.garmin.com/xmlschemas/TrackPointExtension/v2", .trackPointExtension),
        ("http://www.garmin.com/xmlschemes/TrackPointExtension/v1", .trackPointExtension),
        ("http://www.garmin.com/xmlschemes/TrackPointExtension/v2", .trackPointExtension),
        ("http://www.garmin.com/xmlschemas/GpxExtensions/v3", .garminGPXExtensions),
        ("http://www.cluetrust.com/XML/GPXDATA/1/0", .gpxdata),
        ("http://www.cluetrust.com/Schemas/", .gpxdata),
        ("http://www.garmin.com/xmlschemas/PowerExtension/v1", .powerExtension),
    ]

    /// Classifies a NUL-terminated URI by its bytes.
    static func classify(_ uri: UnsafePointer<UInt8>?) -> GPXNamespace {
        guard let uri, uri.pointee != 0 else { return .none }
        let text = String(cString: uri)
        return uris.first { $0.0 == text }?.1 ?? .other
    }
}

/// The local names the reader acts on (GPX's own and the known extensions'); everything else is
/// `.other`.
enum GPXName: UInt8 {
    case other
    case gpx, metadata, wpt, rte, rtept, trk, trkseg, trkpt, extensions
    case name, desc, cmt, src, type, number, author, time, keywords, sym
    case ele, hdop, vdop, pdop, sat, fix, speed, course
    // Extensions.
    case trackPointExtension, hr, cad, atemp, wtemp, depth
    case cadence, temp, distance, powerInWatts, power, heartrate, temperature, capitalDepth

    static let table: [String: GPXName] = [
        "gpx": .gpx, "metadata": .metadata, "wpt": .wpt, "rte": .rte, "rtept": .rtept, "trk": .trk,
        "trkseg": .trkseg, "trkpt": .trkpt, "extensions": .extensions, "name": .name, "desc": .desc,
        "cmt": .cmt, "src": .src, "type": .type, "number": .number, "author": .author, "time": .time,
        "keywords": .keywords, "sym": .sym, "ele": .ele, "hdop": .hdop, "vdop": .vdop, "pdop": .pdop,
        "sat": .sat, "fix": .fix, "speed": .speed, "course": .course,
        "TrackPointExtension": .trackPointExtension, "hr": .hr, "cad": .cad, "atemp": .atemp,
        "wtemp": .wtemp, "depth": .depth, "cadence": .cadence, "temp": .temp, "distance": .distance,
        "PowerInWatts": .powerInWatts, "power": .power, "heartrate": .heartrate,
        "Temperature": .temperature, "Depth": .capitalDepth,
    ]

    static func classify(_ localname: UnsafePointer<UInt8>) -> GPXName {
        table[String(cString: localname)] ?? .other
    }
}

/// A direct-mapped cache from an interned name's address to what it was classified as.
struct InternedNameCache<Value> {
    private var keys: [UnsafeRawPointer?]
    private var values: [Value]
    private let classify: (UnsafePointer<UInt8>?) -> Value

    init(placeholder: Value, classify: @escaping (UnsafePointer<UInt8>?) -> Value) {
        keys = Array(repeating: nil, count: 256)
        values = Array(repeating: placeholder, count: 256)
        self.classify = classify
    }

    @inline(__always)
    mutating func lookup(_ name: UnsafePointer<UInt8>?) -> Value {
        guard let name else { return classify(nil) }
        let key = UnsafeRawPointer(name)
        let slot = Int(truncatingIfNeeded: UInt(bitPattern: key) >> 3) & 255
        if keys[slot] == key { return values[slot] }
        let value = classify(name)
        keys[slot] = key
        values[slot] = value
        return value
    }
}
