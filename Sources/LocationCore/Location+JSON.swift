#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

extension Location: Codable {
    /// The stable JSON key names; see the table on ``Location``.
    public enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
        case latitude
        case longitude
        case altitude
        case ellipsoidalAltitude = "altitude_hae"
        case horizontalAccuracy = "h_accuracy"
        case verticalAccuracy = "v_accuracy"
        case speed
        case speedAccuracy = "speed_accuracy"
        case course
        case courseAccuracy = "course_accuracy"
        case climb
        case time
        case receivedAt = "received"
        case mode
        case status
        case device
        case isSimulated = "simulated"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func date(_ key: CodingKeys) throws -> Date? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let timestamp = RFC3339.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "'\(text)' is not an RFC 3339 timestamp")
            }
            return timestamp.date
        }
        self.init(
            latitude: try container.decode(Double.self, forKey: .latitude),
            longitude: try container.decode(Double.self, forKey: .longitude),
            altitude: try container.decodeIfPresent(Double.self, forKey: .altitude),
            ellipsoidalAltitude: try container.decodeIfPresent(Double.self, forKey: .ellipsoidalAltitude),
            horizontalAccuracy: try container.decodeIfPresent(Double.self, forKey: .horizontalAccuracy),
            verticalAccuracy: try container.decodeIfPresent(Double.self, forKey: .verticalAccuracy),
            speed: try container.decodeIfPresent(Double.self, forKey: .speed),
            speedAccuracy: try container.decodeIfPresent(Double.self, forKey: .speedAccuracy),
            course: try container.decodeIfPresent(Double.self, forKey: .course),
            courseAccuracy: try container.decodeIfPresent(Double.self, forKey: .courseAccuracy),
            climb: try container.decodeIfPresent(Double.self, forKey: .climb),
            time: try date(.time),
            receivedAt: try date(.receivedAt) ?? Date(timeIntervalSince1970: 0),
            mode: try container.decodeIfPresent(FixMode.self, forKey: .mode) ?? .fix2D,
            status: try container.decodeIfPresent(FixStatus.self, forKey: .status),
            device: try container.decodeIfPresent(String.self, forKey: .device),
            isSimulated: try container.decodeIfPresent(Bool.self, forKey: .isSimulated) ?? false
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encodeIfPresent(altitude, forKey: .altitude)
        try container.encodeIfPresent(ellipsoidalAltitude, forKey: .ellipsoidalAltitude)
        try container.encodeIfPresent(horizontalAccuracy, forKey: .horizontalAccuracy)
        try container.encodeIfPresent(verticalAccuracy, forKey: .verticalAccuracy)
        try container.encodeIfPresent(speed, forKey: .speed)
        try container.encodeIfPresent(speedAccuracy, forKey: .speedAccuracy)
        try container.encodeIfPresent(course, forKey: .course)
        try container.encodeIfPresent(courseAccuracy, forKey: .courseAccuracy)
        try container.encodeIfPresent(climb, forKey: .climb)
        try container.encodeIfPresent(time.map { RFC3339.string(from: $0) }, forKey: .time)
        try container.encode(RFC3339.string(from: receivedAt), forKey: .receivedAt)
        try container.encode(mode, forKey: .mode)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(device, forKey: .device)
        try container.encode(isSimulated, forKey: .isSimulated)
    }
}

extension Location {
    /// The JSON object for this fix, on one line, with the keys of ``CodingKeys`` in their declared
    /// order and absent values left out. It decodes with `JSONDecoder` to the same `Location`
    /// (times to the millisecond).
    ///
    /// This is the form `locate watch --json` prints; it is written by hand, about twenty times
    /// faster than `JSONEncoder`, because it sits on the path of every fix.
    public var jsonLine: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``jsonLine`` (without a newline) to `buffer` as UTF-8.
    public func appendJSON(to buffer: inout [UInt8]) {
        let capacity = JSONObjectWriter.capacity(deviceBytes: device?.utf8.count ?? 0)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { text in
            var writer = JSONObjectWriter(text)
            writer.number(.latitude, latitude)
            writer.number(.longitude, longitude)
            writer.number(.altitude, altitude)
            writer.number(.ellipsoidalAltitude, ellipsoidalAltitude)
            writer.number(.horizontalAccuracy, horizontalAccuracy)
            writer.number(.verticalAccuracy, verticalAccuracy)
            writer.number(.speed, speed)
            writer.number(.speedAccuracy, speedAccuracy)
            writer.number(.course, course)
            writer.number(.courseAccuracy, courseAccuracy)
            writer.number(.climb, climb)
            writer.date(.time, time)
            writer.date(.receivedAt, receivedAt)
            writer.string(.mode, mode.rawValue)
            writer.string(.status, status?.rawValue)
            writer.string(.device, device)
            writer.bool(.isSimulated, isSimulated)
            buffer.append(contentsOf: writer.finish())
        }
    }
}

extension Location.CodingKeys {
    /// `"key":` as the JSON line writes it: a literal, appended without touching a reference count
    /// (an array per key, read from a table, was retained and released for each of them).
    /// `LocationJSONTests` checks each against `stringValue`.
    var jsonPrefix: StaticString {
        switch self {
        case .latitude: #""latitude":"#
        case .longitude: #""longitude":"#
        case .altitude: #""altitude":"#
        case .ellipsoidalAltitude: #""altitude_hae":"#
        case .horizontalAccuracy: #""h_accuracy":"#
        case .verticalAccuracy: #""v_accuracy":"#
        case .speed: #""speed":"#
        case .speedAccuracy: #""speed_accuracy":"#
        case .course: #""course":"#
        case .courseAccuracy: #""course_accuracy":"#
        case .climb: #""climb":"#
        case .time: #""time":"#
        case .receivedAt: #""received":"#
        case .mode: #""mode":"#
        case .status: #""status":"#
        case .device: #""device":"#
        case .isSimulated: #""simulated":"#
        }
    }
}

/// Writes one flat JSON object with `Location`'s keys into memory set aside for it (on the stack),
/// for the hot path of `jsonLine`: the caller appends the line to its array at once. Appending
/// each key, number and string to the array instead cost a check of the array's uniqueness and
/// capacity and a call to copy a few bytes, thirty times a line.
///
/// It is the `TextOutputStream` that `Double.write(to:)` writes its digits to (through
/// `_writeASCII(_:)`, from a buffer of its own on the stack): no `String` is made for a number.
private struct JSONObjectWriter: TextOutputStream {
    private let text: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    private var first = true

    /// Room for any line whose device path has `deviceBytes` UTF-8 bytes. The rest is at most 610
    /// bytes: braces and commas 18, keys 190, eleven numbers of at most 24 characters
    /// (`-1.7976931348623157e+308`), two quoted times of at most 50, mode and status 31, and
    /// `false`. A device byte takes at most 6 (`\u001f`), plus 2 quotes. Every write checks it too.
    static func capacity(deviceBytes: Int) -> Int {
        640 + 6 * deviceBytes
    }

    init(_ text: UnsafeMutableBufferPointer<UInt8>) {
        self.text = text
        put(UInt8(ascii: "{"))
    }

    /// Closes the object; returns the line.
    mutating func finish() -> UnsafeBufferPointer<UInt8> {
        put(UInt8(ascii: "}"))
        return UnsafeBufferPointer(rebasing: text[..<count])
    }

    mutating func number(_ key: Location.CodingKeys, _ value: Double?) {
        guard let value, value.isFinite else { return }
        self.key(key)
        value.write(to: &self)
    }

    mutating func date(_ key: Location.CodingKeys, _ value: Date?) {
        guard let value else { return }
        self.key(key)
        put(UInt8(ascii: "\""))
        RFC3339.withText(of: value) { put($0) }
        put(UInt8(ascii: "\""))
    }

    mutating func bool(_ key: Location.CodingKeys, _ value: Bool) {
        self.key(key)
        put(value ? "true" : "false")
    }

    mutating func string(_ key: Location.CodingKeys, _ value: String?) {
        guard let value else { return }
        self.key(key)
        var text = value
        let written = text.withUTF8 { utf8 in
            guard !utf8.contains(where: TextBytes.needsJSONEscape) else { return false }
            put(UInt8(ascii: "\""))
            put(utf8)
            put(UInt8(ascii: "\""))
            return true
        }
        if !written {  // rare; TextBytes has the one JSON escaper
            var escaped: [UInt8] = []
            TextBytes.appendJSONString(value, to: &escaped)
            escaped.withUnsafeBufferPointer { put($0) }
        }
    }

    private mutating func key(_ key: Location.CodingKeys) {
        if !first { put(UInt8(ascii: ",")) }
        first = false
        put(key.jsonPrefix)
    }

    // MARK: Writing bytes (inlined: each is a few instructions, called thirty times a line)

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        precondition(count < text.count, "JSONObjectWriter.capacity is too small")
        text[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= text.count - count, "JSONObjectWriter.capacity is too small")
        guard let source = bytes.baseAddress else { return }
        (text.baseAddress! + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    private mutating func put(_ literal: StaticString) {
        literal.withUTF8Buffer { put($0) }
    }

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { put($0) }
    }

    /// What `Double.write(to:)` hands its digits to.
    mutating func _writeASCII(_ bytes: UnsafeBufferPointer<UInt8>) {
        put(bytes)
    }
}
