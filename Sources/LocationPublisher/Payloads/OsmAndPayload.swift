/// The OsmAnd protocol Traccar reads: a position as query (or form) parameters, one HTTP request
/// each (<https://www.traccar.org/osmand/>).
///
/// | parameter | what | from |
/// |---|---|---|
/// | `id` | the device's unique identifier, as registered in Traccar (mandatory) | ``deviceID`` |
/// | `lat`, `lon` | WGS84 degrees | ``PositionMessage/latitude``, ``PositionMessage/longitude`` |
/// | `timestamp` | the fix's UNIX time, whole seconds | ``PositionMessage/time`` |
/// | `speed` | knots: Traccar's OsmAnd decoder reads the speed in knots by default | ``PositionMessage/speed`` ÷ 0.514444 |
/// | `bearing` | course, degrees | ``PositionMessage/course`` |
/// | `altitude` | metres | ``PositionMessage/altitude`` |
/// | `accuracy` | horizontal accuracy, metres | ``PositionMessage/horizontalAccuracy`` |
/// | `batt` | battery level, percent | ``PositionMessage/battery`` |
///
/// Unknown values are left out; Traccar takes a request with only `id`, `lat`, `lon` and `timestamp`.
///
/// ```swift
/// let query = OsmAndPayload(deviceID: "van-7").query(message)   // "id=van-7&lat=51.4779&lon=0&timestamp=..."
/// ```
public struct OsmAndPayload: Sendable, Hashable {
    /// Traccar's device identifier (`id`).
    public var deviceID: String

    /// A renderer for the device `deviceID`.
    public init(deviceID: String) {
        self.deviceID = deviceID
    }

    /// One knot in metres per second (1852 m per hour).
    static let metresPerSecondPerKnot = 1852.0 / 3600.0

    /// The parameters, in the order the table lists them, values as text (not percent-encoded).
    public func parameters(_ message: PositionMessage) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = [
            ("id", deviceID),
            ("lat", Self.number(message.latitude)),
            ("lon", Self.number(message.longitude)),
            ("timestamp", String(OwnTracksPayload.unixSeconds(message.time))),
        ]
        if let speed = message.speed, speed.isFinite { items.append(("speed", Self.number(speed / Self.metresPerSecondPerKnot))) }
        if let course = message.course, course.isFinite { items.append(("bearing", Self.number(course))) }
        if let altitude = message.altitude, altitude.isFinite { items.append(("altitude", Self.number(altitude))) }
        if let accuracy = message.horizontalAccuracy, accuracy.isFinite { items.append(("accuracy", Self.number(accuracy))) }
        if let battery = message.battery { items.append(("batt", String(battery))) }
        return items
    }

    /// The parameters as a query string (`application/x-www-form-urlencoded`: the form body of a
    /// POST, or what follows `?` in a URL), each name and value percent-encoded.
    public func query(_ message: PositionMessage) -> String {
        parameters(message).map { Self.formEncoded($0.name) + "=" + Self.formEncoded($0.value) }.joined(separator: "&")
    }

    /// `value` with up to 7 decimals (about a centimetre of latitude), trailing zeros trimmed.
    static func number(_ value: Double) -> String {
        var bytes: [UInt8] = []
        TextBytes.appendFixed(value, decimals: 7, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-encodes all but RFC 3986's unreserved characters.
    static func formEncoded(_ text: String) -> String {
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import GPSCore
