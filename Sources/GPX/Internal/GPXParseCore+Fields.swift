// Turning the text of a leaf element into a field of the metadata, the track or route, or the
// point being read.
//
// The invalid-value policy: a point's position, elevation and time define it, so an unparsable
// or out-of-range one skips the whole point; any other value (hdop, sat, speed, heart rate...) that
// cannot be parsed is dropped alone and the point is kept. Either way the summary reports it with
// its line and column, and strict mode fails instead. An empty element (`<ele></ele>`) is read as
// absent, not as invalid. `<fix>` is kept as written, even outside the standard's five values.

import GPSCore

extension GPXParseCore {
    func finishField() {
        let current = field
        field = .none
        text.withUnsafeBufferPointer { bytes in
            read(current, from: bytes)
        }
    }

    private func read(_ field: Field, from bytes: UnsafeBufferPointer<UInt8>) {
        switch field {
        case .none: break
        case .metadataName: metadata.name = Self.trimmedString(bytes)
        case .metadataDescription: metadata.description = Self.trimmedString(bytes)
        case .metadataAuthor: metadata.author = Self.trimmedString(bytes)
        case .metadataKeywords: metadata.keywords = Self.trimmedString(bytes)
        case .metadataTime:
            if let time = time(bytes, what: "metadata time", dropsPoint: false) { metadata.time = time }
        case .pathName: path.name = Self.trimmedString(bytes)
        case .pathComment: path.comment = Self.trimmedString(bytes)
        case .pathDescription: path.description = Self.trimmedString(bytes)
        case .pathSource: path.source = Self.trimmedString(bytes)
        case .pathType: path.type = Self.trimmedString(bytes)
        case .pathNumber:
            if GPXScalars.trimmed(bytes).isEmpty { return }
            if let number = GPXScalars.integer(bytes) { path.number = number } else {
                invalid("number \(Self.quoted(bytes)) is not an integer; the value was dropped", dropsPoint: false)
            }
        case .elevation: point.elevation = double(bytes, what: "elevation", dropsPoint: true) ?? point.elevation
        case .time: point.time = time(bytes, what: "time", dropsPoint: true) ?? point.time
        case .pointName: point.name = Self.trimmedString(bytes)
        case .pointComment: point.comment = Self.trimmedString(bytes)
        case .pointDescription: point.description = Self.trimmedString(bytes)
        case .symbol: point.symbol = Self.trimmedString(bytes)
        case .pointType: point.type = Self.trimmedString(bytes)
        case .fix: point.fix = Self.trimmedString(bytes)
        case .satellites:
            if GPXScalars.trimmed(bytes).isEmpty { return }
            if let count = GPXScalars.integer(bytes), count >= 0 { point.satellites = count } else {
                invalid("sat \(Self.quoted(bytes)) is not a count; the value was dropped", dropsPoint: false)
            }
        case .hdop: point.hdop = double(bytes, what: "hdop") ?? point.hdop
        case .vdop: point.vdop = double(bytes, what: "vdop") ?? point.vdop
        case .pdop: point.pdop = double(bytes, what: "pdop") ?? point.pdop
        case .speed: point.speed = double(bytes, what: "speed") ?? point.speed
        case .course: point.course = double(bytes, what: "course") ?? point.course
        case .heartRate: point.heartRate = double(bytes, what: "heart rate") ?? point.heartRate
        case .cadence: point.cadence = double(bytes, what: "cadence") ?? point.cadence
        case .power: point.power = double(bytes, what: "power") ?? point.power
        case .airTemperature: point.airTemperature = double(bytes, what: "temperature") ?? point.airTemperature
        case .waterTemperature:
            point.waterTemperature = double(bytes, what: "water temperature") ?? point.waterTemperature
        case .depth: point.depth = double(bytes, what: "depth") ?? point.depth
        case .distance: point.distance = double(bytes, what: "distance") ?? point.distance
        }
    }

    /// A number, or nil when empty (silently) or invalid (reported).
    @inline(__always)
    private func double(_ bytes: UnsafeBufferPointer<UInt8>, what: String, dropsPoint: Bool = false) -> Double? {
        if let value = GPXScalars.double(bytes) { return value }
        if GPXScalars.trimmed(bytes).isEmpty { return nil }
        let consequence = dropsPoint ? "" : "; the value was dropped"
        invalid("\(what) \(Self.quoted(bytes)) is not a number\(consequence)", dropsPoint: dropsPoint)
        return nil
    }

    private func time(_ bytes: UnsafeBufferPointer<UInt8>, what: String, dropsPoint: Bool) -> GPXTime? {
        if let value = GPXScalars.time(bytes) {
            if RFC3339.supportedRange.contains(value.date) { return value }
            let consequence = dropsPoint ? "" : "; the value was dropped"
            invalid("\(what) \(Self.quoted(bytes)) is outside \(RFC3339.supportedRangeDescription)\(consequence)", dropsPoint: dropsPoint)
            return nil
        }
        if GPXScalars.trimmed(bytes).isEmpty { return nil }
        let consequence = dropsPoint ? "" : "; the value was dropped"
        invalid("\(what) \(Self.quoted(bytes)) is not an RFC 3339 date-time\(consequence)", dropsPoint: dropsPoint)
        return nil
    }
}
