import Foundation
import LocationCore
import LocationPublisher
import Testing

/// The payloads held to their published formats: OwnTracks' booklet (JSON, "_type=location"),
/// Home Assistant's MQTT discovery and device tracker pages, Traccar's OsmAnd page.
@Suite struct PayloadTests {
    static let fix = Location(
        latitude: 51.4778, longitude: -0.0014, altitude: 46.6, horizontalAccuracy: 4.4, verticalAccuracy: 7.6,
        speed: 13.9, course: 271.6, time: Date(timeIntervalSince1970: 1_700_000_000.75))
    static let message = PositionMessage(
        id: 7, location: fix, trigger: .timer, battery: 88, createdAt: Date(timeIntervalSince1970: 1_700_000_003.2))

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// A region's enter and leave for Home Assistant: the tracker's discovery names the state
    /// topic and the reset, an enter publishes the region's name there, a leave the reset (Home
    /// Assistant's MQTT device tracker: `state_topic`, `payload_reset`).
    @Test func homeAssistantZoneStateOfATransition() throws {
        let discovery = HomeAssistantDiscovery(objectID: "boat", deviceName: "Boat")
        let tracker = try #require(discovery.configurations().first { $0.topic.contains("/device_tracker/") })
        let configuration = try #require(try JSONSerialization.jsonObject(with: Data(tracker.payload)) as? [String: Any])
        #expect(configuration["state_topic"] as? String == "swift-gps-facade/boat/state")
        #expect(configuration["payload_reset"] as? String == "None")
        let defined = Date(timeIntervalSince1970: 1_600_000_000)
        #expect(String(decoding: discovery.state(after: RegionTransition(event: .enter, region: "harbour", regionCreatedAt: defined)), as: UTF8.self) == "harbour")
        #expect(String(decoding: discovery.state(after: RegionTransition(event: .leave, region: "harbour", regionCreatedAt: defined)), as: UTF8.self) == "None")
    }

    @Test func ownTracksLocationHasEachMemberInItsUnit() throws {
        let json = try Self.object(OwnTracksPayload(trackerID: "GP").render(Self.message))
        #expect(json["_type"] as? String == "location")
        #expect(json["lat"] as? Double == 51.4778)
        #expect(json["lon"] as? Double == -0.0014)
        // tst: whole seconds, the fix's time rounded down; created_at: the message's.
        #expect(json["tst"] as? Int == 1_700_000_000)
        #expect(json["created_at"] as? Int == 1_700_000_003)
        // Integers, metres; vel km/h (13.9 m/s = 50.04 km/h).
        #expect(json["acc"] as? Int == 4)
        #expect(json["alt"] as? Int == 47)
        #expect(json["vac"] as? Int == 8)
        #expect(json["vel"] as? Int == 50)
        #expect(json["cog"] as? Int == 272)
        #expect(json["batt"] as? Int == 88)
        #expect(json["t"] as? String == "t")
        #expect(json["tid"] as? String == "GP")
        #expect(json.count == 13)
    }

    @Test func ownTracksLeavesOutWhatIsUnknown() throws {
        let bare = PositionMessage(id: 1, time: Date(timeIntervalSince1970: 10), latitude: 1, longitude: 2, trigger: .ping)
        let json = try Self.object(OwnTracksPayload().render(bare))
        #expect(Set(json.keys) == ["_type", "lat", "lon", "tst", "t", "created_at"])
        #expect(json["t"] as? String == "p")
        let will = try Self.object(OwnTracksPayload.lastWill(connectedAt: Date(timeIntervalSince1970: 99.9)))
        #expect(will["_type"] as? String == "lwt")
        #expect(will["tst"] as? Int == 99)
        #expect(OwnTracksPayload.topic(user: "alice", device: "van") == "owntracks/alice/van")
    }

    /// `vac` is the accuracy of `alt`: a fix with a vertical accuracy and no altitude (or one that
    /// is not a number) sends neither.
    @Test func ownTracksSendsVacOnlyBesideAlt() throws {
        for altitude in [nil, Double.nan] {
            let message = PositionMessage(
                id: 1, time: Date(timeIntervalSince1970: 10), latitude: 1, longitude: 2, altitude: altitude,
                horizontalAccuracy: 5, verticalAccuracy: 9)
            let json = try Self.object(OwnTracksPayload().render(message))
            #expect(json["alt"] == nil && json["vac"] == nil, "\(json)")
            #expect(json["acc"] as? Int == 5)
        }
        let withAltitude = PositionMessage(id: 1, time: Date(timeIntervalSince1970: 10), latitude: 1, longitude: 2, altitude: 12, verticalAccuracy: 9)
        let json = try Self.object(OwnTracksPayload().render(withAltitude))
        #expect(json["alt"] as? Int == 12 && json["vac"] as? Int == 9)
    }

    /// The default `tid` is made of letters and digits only: a fleet's `van-5` is `n5`, not `-5`.
    /// One letter or digit gives a one-character id; none keeps the name's last two characters.
    @Test(arguments: [
        ("van-5", "n5"), ("boat_12", "12"), ("van", "an"), ("VAN 7", "N7"), ("Bö-t", "öt"), ("x-", "x"), ("7", "7"), ("--", "--"), ("", ""),
    ])
    func defaultTrackerIDIsTheLastTwoLettersOrDigits(device: String, expected: String) {
        #expect(OwnTracksPayload.defaultTrackerID(forDevice: device) == expected)
    }

    @Test func osmAndParametersAreTraccars() {
        let payload = OsmAndPayload(deviceID: "van 7")
        let names = payload.parameters(Self.message).map(\.name)
        #expect(names == ["id", "lat", "lon", "timestamp", "speed", "bearing", "altitude", "accuracy", "batt"])
        let query = payload.query(Self.message)
        #expect(query.hasPrefix("id=van%207&lat=51.4778&lon=-0.0014&timestamp=1700000000&speed=27.0194"))
        #expect(query.contains("&bearing=271.6&altitude=46.6&accuracy=4.4&batt=88"))
    }

    @Test func homeAssistantAnnouncesATrackerAndTwoSensors() throws {
        let discovery = HomeAssistantDiscovery(objectID: "van 7", deviceName: "Van 7")
        let announcements = discovery.configurations()
        #expect(announcements.map(\.topic) == [
            "homeassistant/device_tracker/van_7/location/config",
            "homeassistant/sensor/van_7/speed/config",
            "homeassistant/sensor/van_7/altitude/config",
        ])
        let tracker = try Self.object(announcements[0].payload)
        #expect(tracker["json_attributes_topic"] as? String == "swift-gps-facade/van_7/attributes")
        #expect(tracker["source_type"] as? String == "gps")
        #expect(tracker["unique_id"] as? String == "van_7_location")
        let device = try #require(tracker["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["swift-gps-facade_van_7"])
        let speed = try Self.object(announcements[1].payload)
        #expect(speed["state_topic"] as? String == discovery.attributesTopic)
        #expect(speed["device_class"] as? String == "speed")
        #expect(speed["unit_of_measurement"] as? String == "m/s")
        let attributes = try Self.object(discovery.attributes(Self.message))
        #expect(attributes["latitude"] as? Double == 51.4778)
        #expect(attributes["longitude"] as? Double == -0.0014)
        #expect(attributes["gps_accuracy"] as? Double == 4.4)
        #expect(attributes["speed"] as? Double == 13.9)
        #expect(attributes["altitude"] as? Double == 46.6)
        #expect(attributes["course"] as? Double == 271.6)
    }

    /// Home Assistant's attributes carry what the fix has and nothing it does not: no
    /// `gps_accuracy` of 0 for a fix without one (the device tracker takes it as optional), no
    /// speed, altitude or course it did not report; and the sensors reading them say `None`
    /// (unknown) for a position without them rather than keep their last value.
    @Test func homeAssistantLeavesOutWhatTheFixDoesNotHave() throws {
        let discovery = HomeAssistantDiscovery(objectID: "boat", deviceName: "Boat")
        let bare = PositionMessage(id: 1, time: Date(timeIntervalSince1970: 10), latitude: 50.15, longitude: -5.07)
        let attributes = try Self.object(discovery.attributes(bare))
        #expect(Set(attributes.keys) == ["latitude", "longitude", "time"], "\(attributes)")
        let moving = PositionMessage(
            id: 2, time: Date(timeIntervalSince1970: 11), latitude: 50.15, longitude: -5.07, horizontalAccuracy: .nan, speed: 2.5, course: 190)
        let some = try Self.object(discovery.attributes(moving))
        #expect(Set(some.keys) == ["latitude", "longitude", "speed", "course", "time"], "\(some)")
        #expect(some["speed"] as? Double == 2.5 && some["course"] as? Double == 190)
        for announcement in discovery.configurations().dropFirst() {
            let template = try Self.object(announcement.payload)["value_template"] as? String
            #expect(template?.hasSuffix("| default(None) }}") == true, "\(announcement.topic): \(template ?? "none")")
        }
    }
}
