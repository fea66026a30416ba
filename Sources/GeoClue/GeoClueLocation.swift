#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import LocationCore

extension Location {
    /// A fix from the properties of a GeoClue `Location` object (`GetAll` of
    /// `org.freedesktop.GeoClue2.Location`), or `nil` when they hold no position.
    ///
    /// GeoClue says "unknown" with numbers of its own: an altitude of `-DBL_MAX`, a speed or a
    /// heading of `-1`. Those become `nil`. `Accuracy` is the horizontal accuracy in metres;
    /// `Timestamp` (seconds and microseconds since 1970) the fix's time. A fix with an altitude is
    /// 3D, one without is 2D. GeoClue has no field saying a fix is simulated; `FakeGeoClue` says
    /// so in `Description` (starting "Simulated"), which sets `isSimulated`.
    public init?(geoClueProperties properties: [String: DBusValue], receivedAt: Date = Date()) {
        guard let latitude = properties["Latitude"]?.doubleValue, let longitude = properties["Longitude"]?.doubleValue,
              latitude.isFinite, longitude.isFinite
        else { return nil }
        // A speed or a heading of -1 is unknown; so is a negative accuracy, which GeoClue never gives.
        func known(_ key: String, unknownBelow limit: Double) -> Double? {
            guard let value = properties[key]?.doubleValue, value.isFinite, value > limit, value >= 0 else { return nil }
            return value
        }
        let altitude = properties["Altitude"]?.doubleValue.flatMap { $0.isFinite && $0 > -Double.greatestFiniteMagnitude ? $0 : nil }
        var time: Date?
        if let stamp = properties["Timestamp"]?.structureValue, stamp.count == 2,
           let seconds = stamp[0].doubleValue, let microseconds = stamp[1].doubleValue, seconds > 0 {
            time = Date(timeIntervalSince1970: seconds + microseconds / 1_000_000)
        }
        let description = properties["Description"]?.stringValue ?? ""
        self.init(
            latitude: latitude, longitude: longitude, altitude: altitude,
            horizontalAccuracy: known("Accuracy", unknownBelow: -1),
            speed: known("Speed", unknownBelow: -1), course: known("Heading", unknownBelow: -1), time: time,
            receivedAt: receivedAt, mode: altitude == nil ? .fix2D : .fix3D,
            isSimulated: description.hasPrefix("Simulated"))
    }
}
