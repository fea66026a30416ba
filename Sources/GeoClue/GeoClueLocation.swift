#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import LocationCore

/// The properties of a GeoClue `Location` object (`org.freedesktop.GeoClue2.Location`), as
/// GeoClue gives them, read straight from its answer to `GetAll`: each one `nil` when absent.
///
/// ```swift
/// let properties = try await bus.properties(
///     GeoClueLocationProperties.self, of: GeoClueNames.location, at: locationPath, on: GeoClueNames.service)
/// let fix = Location(geoClue: properties)
/// ```
public struct GeoClueLocationProperties: DBusKeyedDecodable, Hashable {
    /// `Latitude`, in degrees.
    public var latitude: Double?
    /// `Longitude`, in degrees.
    public var longitude: Double?
    /// `Accuracy`: the horizontal accuracy in metres.
    public var accuracy: Double?
    /// `Altitude` in metres; GeoClue's unknown is `-DBL_MAX`.
    public var altitude: Double?
    /// `Speed` in metres per second; GeoClue's unknown is -1.
    public var speed: Double?
    /// `Heading` in degrees from north; GeoClue's unknown is -1.
    public var heading: Double?
    /// `Description`: where the position came from, in words.
    public var description: String?
    /// `Timestamp`: when the position was measured (seconds and microseconds since 1970).
    public var timestamp: Date?

    /// Properties with nothing in them yet.
    public init() {}

    /// Reads the property `key` from `value`; others are passed over.
    public mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        switch key {
        case "Latitude": latitude = try value.decode()
        case "Longitude": longitude = try value.decode()
        case "Accuracy": accuracy = try value.decode()
        case "Altitude": altitude = try value.decode()
        case "Speed": speed = try value.decode()
        case "Heading": heading = try value.decode()
        case "Description": description = try value.decode()
        case "Timestamp":
            // (tt): seconds and microseconds; (0, 0) when GeoClue has no time.
            let (seconds, microseconds) = try value.decodeStructure { (fields: inout DBusDecoder) throws(DBusDecodingError) in
                (try fields.decode(UInt64.self), try fields.decode(UInt64.self))
            }
            timestamp = seconds > 0 ? Date(timeIntervalSince1970: Double(seconds) + Double(microseconds) / 1_000_000) : nil
        default: break
        }
    }
}

extension Location {
    /// A fix from the properties of a GeoClue `Location` object, or `nil` when they hold no
    /// position.
    ///
    /// GeoClue says "unknown" with numbers of its own: an altitude of `-DBL_MAX`, a speed or a
    /// heading of `-1`. Those become `nil`. `Accuracy` is the horizontal accuracy in metres;
    /// `Timestamp` the fix's time. A fix with an altitude is 3D, one without is 2D. GeoClue has no
    /// field saying a fix is simulated; `FakeGeoClue` says so in `Description` (starting
    /// "Simulated"), which sets `isSimulated`.
    public init?(geoClue properties: GeoClueLocationProperties, receivedAt: Date = Date()) {
        guard let latitude = properties.latitude, let longitude = properties.longitude, latitude.isFinite, longitude.isFinite else { return nil }
        // A speed or a heading of -1 is unknown; so is a negative accuracy, which GeoClue never gives.
        func known(_ value: Double?) -> Double? {
            guard let value, value.isFinite, value >= 0 else { return nil }
            return value
        }
        let altitude = properties.altitude.flatMap { $0.isFinite && $0 > -Double.greatestFiniteMagnitude ? $0 : nil }
        self.init(
            latitude: latitude, longitude: longitude, altitude: altitude, horizontalAccuracy: known(properties.accuracy),
            speed: known(properties.speed), course: known(properties.heading), time: properties.timestamp, receivedAt: receivedAt,
            mode: altitude == nil ? .fix2D : .fix3D, isSimulated: properties.description?.hasPrefix("Simulated") == true)
    }

    /// A fix from the properties of a GeoClue `Location` object as values (`GetAll` of
    /// `org.freedesktop.GeoClue2.Location`), or `nil` when they hold no position or are not of
    /// GeoClue's types; as ``init(geoClue:receivedAt:)``.
    public init?(geoClueProperties properties: [String: DBusValue], receivedAt: Date = Date()) {
        guard let read = try? DBusValue.variantDictionary(properties).decode(GeoClueLocationProperties.self) else { return nil }  // not GeoClue's: nil, as said
        self.init(geoClue: read, receivedAt: receivedAt)
    }
}
