import GPSCore

/// Home Assistant's MQTT discovery for a device that publishes its position: a `device_tracker`
/// whose position comes from a JSON attributes topic, with a speed and an altitude sensor reading
/// the same topic, so that a Home Assistant user sees the device, on the map, with no YAML.
///
/// The configurations (``configurations()``) are published retained, once per connection, to
/// `<discoveryPrefix>/<component>/<objectID>/<entity>/config` (Home Assistant's discovery topic,
/// <https://www.home-assistant.io/integrations/mqtt/#discovery-topic>); then each position is
/// published to ``attributesTopic`` as rendered by ``attributes(_:)``.
///
/// - The tracker: `source_type` `gps`, `json_attributes_topic`. Home Assistant's MQTT device
///   tracker page (<https://www.home-assistant.io/integrations/device_tracker.mqtt/>) documents
///   `latitude`, `longitude` and an optional `gps_accuracy` (metres) in that topic's JSON as the
///   position; every other member becomes an attribute of the tracker as it is. So `gps_accuracy`
///   is sent only when the fix has one, and `altitude`, `speed` and `course` ride as attributes.
/// - The sensors: `device_class` `speed` (`m/s`) and `distance` (`m`) reading `value_json.speed`
///   and `value_json.altitude` of the same topic, `None` when the position has none: Home
///   Assistant's MQTT sensor ignores an empty value (its last reading would stay, for a fix that
///   has none) and makes `None` unknown (<https://www.home-assistant.io/integrations/sensor.mqtt/>).
///
/// ```swift
/// let discovery = HomeAssistantDiscovery(objectID: "van7", deviceName: "Van 7")
/// for announcement in discovery.configurations() { print(announcement.topic) }
/// ```
public struct HomeAssistantDiscovery: Sendable, Hashable {
    /// One retained configuration message.
    public struct Announcement: Sendable, Hashable {
        /// The discovery topic.
        public var topic: String
        /// The configuration, JSON.
        public var payload: [UInt8]
    }

    /// Home Assistant's discovery prefix (`homeassistant` unless its MQTT integration was told otherwise).
    public var discoveryPrefix: String
    /// The device's id in topics and unique ids: letters, digits, `_` and `-` (others become `_`).
    public var objectID: String
    /// The name Home Assistant shows.
    public var deviceName: String
    /// Where the positions go: `swift-gps-facade/<objectID>/attributes` unless given.
    public var attributesTopic: String

    /// A discovery for the device `objectID`, named `deviceName` in Home Assistant.
    public init(objectID: String, deviceName: String, discoveryPrefix: String = "homeassistant", attributesTopic: String? = nil) {
        let cleaned = String(objectID.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
        self.objectID = cleaned.isEmpty ? "device" : cleaned
        self.deviceName = deviceName
        self.discoveryPrefix = discoveryPrefix
        self.attributesTopic = attributesTopic ?? "swift-gps-facade/\(self.objectID)/attributes"
    }

    /// The tracker's, the speed sensor's and the altitude sensor's configurations, to publish retained.
    public func configurations() -> [Announcement] {
        [
            announcement(component: "device_tracker", entity: "location", members: [
                ("name", .string("Location")),
                ("source_type", .string("gps")),
                ("json_attributes_topic", .string(attributesTopic)),
                // A region's enter names the zone; a leave resets it to what Home Assistant's own
                // zones make of the position (see stateTopic).
                ("state_topic", .string(stateTopic)),
                ("payload_reset", .string(Self.payloadReset)),
            ]),
            announcement(component: "sensor", entity: "speed", members: [
                ("name", .string("Speed")),
                ("state_topic", .string(attributesTopic)),
                ("value_template", .string("{{ value_json.speed | default(None) }}")),
                ("device_class", .string("speed")),
                ("unit_of_measurement", .string("m/s")),
                ("state_class", .string("measurement")),
            ]),
            announcement(component: "sensor", entity: "altitude", members: [
                ("name", .string("Altitude")),
                ("state_topic", .string(attributesTopic)),
                ("value_template", .string("{{ value_json.altitude | default(None) }}")),
                ("device_class", .string("distance")),
                ("unit_of_measurement", .string("m")),
                ("state_class", .string("measurement")),
            ]),
        ]
    }

    /// The position for ``attributesTopic``: `latitude`, `longitude`, and, when the fix has them,
    /// `gps_accuracy` (metres, the horizontal accuracy), `altitude` (m), `speed` (m/s), `course`
    /// (degrees clockwise from true north), `battery_level` (percent); then `time` (RFC 3339). What
    /// the fix does not have is left out, never sent as 0.
    public func attributes(_ message: PositionMessage) -> [UInt8] {
        var bytes: [UInt8] = []
        TextBytes.append(#"{"latitude":"#, to: &bytes)
        TextBytes.appendJSONNumber(message.latitude, to: &bytes)
        TextBytes.append(#","longitude":"#, to: &bytes)
        TextBytes.appendJSONNumber(message.longitude, to: &bytes)
        // `gps_accuracy` is optional for Home Assistant's MQTT device tracker (its page, above): a
        // fix without an accuracy leaves it out rather than claim a perfect 0 m.
        let members = [
            ("gps_accuracy", message.horizontalAccuracy), ("altitude", message.altitude), ("speed", message.speed), ("course", message.course),
        ]
        for (name, value) in members {
            guard let value, value.isFinite else { continue }
            TextBytes.append(",", to: &bytes)
            TextBytes.appendJSONString(name, to: &bytes)
            TextBytes.append(":", to: &bytes)
            TextBytes.appendJSONNumber(value, to: &bytes)
        }
        if let battery = message.battery {
            TextBytes.append(#","battery_level":"#, to: &bytes)
            bytes.append(contentsOf: String(battery).utf8)
        }
        TextBytes.append(#","time":"#, to: &bytes)
        TextBytes.appendJSONString(RFC3339.string(from: message.time, fractionDigits: 0), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private enum Value {
        case string(String)
    }

    private func announcement(component: String, entity: String, members: [(String, Value)]) -> Announcement {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        let all = members + [
            ("unique_id", .string("\(objectID)_\(entity)")),
            ("object_id", .string("\(objectID)_\(entity)")),
        ]
        for (index, (name, value)) in all.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            TextBytes.appendJSONString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            switch value {
            case let .string(text): TextBytes.appendJSONString(text, to: &bytes)
            }
        }
        TextBytes.append(#","device":{"identifiers":["#, to: &bytes)
        TextBytes.appendJSONString("swift-gps-facade_\(objectID)", to: &bytes)
        TextBytes.append(#"],"name":"#, to: &bytes)
        TextBytes.appendJSONString(deviceName, to: &bytes)
        TextBytes.append(#","manufacturer":"swift-gps-facade"}}"#, to: &bytes)
        return Announcement(topic: "\(discoveryPrefix)/\(component)/\(objectID)/\(entity)/config", payload: bytes)
    }
}
