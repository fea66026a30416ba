import Foundation
import LocationCore
import LocationFacade
import LocationPublisher
import PublisherSimulators
import RegionMonitoring
import Testing

// The examples of LocationPublisher, as printed in its `///` comments and DocC catalog, in
// functions that give them what they name. ReadmeTests checks that each example is here; the
// tests below run those that need nothing outside the process.

// LocationPublisher/PublishDestination.swift
struct PrintingDestination: PublishDestination {
    var name: String { "stdout" }
    func deliver(_ message: PositionMessage) async throws {
        print(String(decoding: OwnTracksPayload().render(message), as: UTF8.self))
    }
}

enum PublisherExamples {
    // LocationPublisher/PositionMessage.swift
    static func message(_ fix: Location) -> [UInt8] {
        let message = PositionMessage(id: 1, location: fix, trigger: .timer)
        let json = OwnTracksPayload(trackerID: "GP").render(message)
        return json
    }

    // LocationPublisher/Payloads/OwnTracksPayload.swift
    @ExampleValues static func trackerIDs() -> [Any] {
        OwnTracksPayload.defaultTrackerID(forDevice: "van-5")   // "n5"
        OwnTracksPayload.defaultTrackerID(forDevice: "x-")      // "x"
    }

    // LocationPublisher/Payloads/OwnTracksPayload.swift
    static func ownTracks() -> (OwnTracksPayload, String) {
        let payload = OwnTracksPayload(trackerID: "GP")
        let topic = OwnTracksPayload.topic(user: "alice", device: "van")   // "owntracks/alice/van"
        return (payload, topic)
    }

    // LocationPublisher/Payloads/OsmAndPayload.swift
    static func osmAnd(_ message: PositionMessage) -> String {
        let query = OsmAndPayload(deviceID: "van-7").query(message)   // "id=van-7&lat=51.4779&lon=0&timestamp=..."
        return query
    }

    // LocationPublisher/Payloads/HomeAssistantDiscovery.swift
    static func homeAssistant() {
        let discovery = HomeAssistantDiscovery(objectID: "van7", deviceName: "Van 7")
        for announcement in discovery.configurations() { print(announcement.topic) }
    }

    // LocationPublisher/Outbox/Outbox.swift
    static func outbox(_ fix: Location) throws {
        let outbox = try Outbox(path: Outbox.defaultPath())   // $XDG_STATE_HOME/swift-gps-facade/outbox.sqlite
        let message = try outbox.append(fix, for: ["mqtt://broker.example"])
        // ... once the broker acknowledged it:
        try outbox.remove(message.id, for: "mqtt://broker.example")
    }

    // LocationPublisher/Publisher/PublishFilter.swift
    static func filter() -> PublishFilter {
        var filter = PublishFilter(minimumInterval: .seconds(30), minimumDistance: 50)
        filter.maximumAccuracy = 100          // drop fixes worse than ±100 m
        filter.stationaryInterval = .seconds(15 * 60)
        return filter
    }

    // LocationPublisher/Publisher/LocationPublisher.swift, LocationPublisher.docc
    static func publisher(client: GPSDClient, broker: MQTTDestination) async throws {
        let outbox = try Outbox(path: "/var/lib/tracker/outbox.sqlite")
        let publisher = LocationPublisher(source: client, outbox: outbox, destinations: [broker])
        let running = Task { await publisher.run() }
        // ... when the source ends (a replay's end, SIGTERM):
        let status = await publisher.drain(timeout: .seconds(30))
        await running.value
        print(status.queued == 0 ? "all delivered" : "\(status.queued) kept for the next run")
    }

    // LocationPublisher/Publisher/LocationPublisher.swift
    static func statusUpdates(_ publisher: LocationPublisher) async {
        for await status in publisher.statusUpdates() where status.queued == 0 {
            break   // everything delivered
        }
    }

    // LocationPublisher/MQTT/MQTTDestination.swift
    static func mqtt(password: String) throws -> MQTTDestination {
        var configuration = MQTTDestination.Configuration.ownTracks(host: "broker.example", user: "alice", device: "van")
        configuration.username = "alice"
        configuration.password = password          // read from a file, never from the command line
        let broker = try MQTTDestination(configuration)
        return broker
    }
}

@Suite struct PublisherExampleTests {
    static let fix = Location(latitude: 51.4779, longitude: 0, horizontalAccuracy: 3, time: Date(timeIntervalSince1970: 1_700_000_000))

    @Test func thePayloadExamplesSayWhatTheyPrint() throws {
        let json = try JSONSerialization.jsonObject(with: Data(PublisherExamples.message(Self.fix))) as? [String: Any]
        #expect(json?["tid"] as? String == "GP")
        #expect(PublisherExamples.ownTracks().1 == "owntracks/alice/van")
        #expect(PublisherExamples.trackerIDs().compactMap { $0 as? String } == ["n5", "x"])
        #expect(PublisherExamples.osmAnd(PositionMessage(id: 1, location: Self.fix)).hasPrefix("id=van-7&lat=51.4779&lon=0&timestamp=1700000000"))
        #expect(PublisherExamples.filter().maximumAccuracy == 100)
    }
}

// One source, many listeners: LocationCore/LocationManager+Sharing.swift,
// LocationPublisher/Publisher/LocationPublisher.swift, RegionMonitoring/Monitor/RegionMonitor+Source.swift,
// LocationPublisher/PositionMessage.swift
enum SharingExamples {
    static func shared(outbox: Outbox, broker: any PublishDestination, home: GeoCoordinate) throws {
        let manager = LocationManager(source: GPSDClient())
        let publisher = LocationPublisher(manager: manager, outbox: outbox, destinations: [broker])
        let monitor = manager.monitor()            // RegionMonitoring: follows the same source
        try monitor.add(.circle(center: home, radius: 100), identifier: "home")
        _ = publisher
    }

    static func publisherOnAManager(outbox: Outbox, broker: any PublishDestination) {
        let manager = LocationManager(source: GPSDClient())
        let publisher = LocationPublisher(manager: manager, outbox: outbox, destinations: [broker])
        let monitor = manager.monitor()     // the same fixes, from the same gpsd connection
        _ = (publisher, monitor)
    }

    static func monitorOfAManager() async throws {
        let manager = LocationManager(source: GPSDClient())
        let monitor = manager.monitor()
        try monitor.add(.circle(center: GeoCoordinate(latitude: 51.4779, longitude: -0.0015), radius: 100), identifier: "observatory")
        for await event in monitor.events { print(event.identifier, event.kind) }
    }

    static func transitions(monitor: RegionMonitor, publisher: LocationPublisher, started: Date) async {
        for await event in monitor.events where event.kind == .enter || event.kind == .exit {
            guard let fix = event.location else { continue }
            publisher.publish(RegionTransition(event: event.kind == .enter ? .enter : .leave, region: event.identifier,
                                               regionCreatedAt: started), at: fix, time: event.date)
        }
    }
}

// PublisherSimulators/RecordingDestination.swift, PublisherSimulators/PrivateMosquitto.swift
enum PublisherSimulatorsExamples {
    static func recording(replay: any LocationSource, fixes: [Location]) throws {
        let destination = RecordingDestination()
        let publisher = LocationPublisher(source: replay, outbox: try .inMemory(), destinations: [destination])
        // ... run and drain, then:
        #expect(destination.delivered.map(\.time) == fixes.compactMap(\.time))
        _ = publisher
    }

    static func broker() async throws {
        let broker = try await PrivateMosquitto()
        let subscriber = try await broker.subscribe("owntracks/#")
        let destination = try MQTTDestination(.ownTracks(host: "127.0.0.1", port: Int(broker.port), user: "alice", device: "van"))
        // ... publish, then:
        _ = await subscriber.waitFor { $0.count == 3 }
        await broker.stop()
        _ = destination
    }
}
