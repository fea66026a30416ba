import Foundation
import LocationCore
import LocationPublisher
import SimulatorsCore
import Testing
import TestSupport

/// The publisher against a real mosquitto, read by `mosquitto_sub`: clients we did not write on
/// both sides of our MQTT code.
@Suite(.tags(.childProcess), .enabled(if: PrivateMosquitto.isAvailable, "mosquitto is not installed (scripts/install-deps)"),
       .timeLimit(.minutes(1)))
struct MQTTBrokerTests {
    /// Quick reconnection: a restarted broker is found again within tens of milliseconds.
    static func configuration(_ broker: PrivateMosquitto, user: String = "alice", device: String = "van") -> MQTTDestination.Configuration {
        var configuration = MQTTDestination.Configuration.ownTracks(host: "127.0.0.1", port: Int(broker.port), user: user, device: device)
        configuration.reconnect = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
        configuration.retain = false
        return configuration
    }

    static let quick = LocationPublisher.Configuration(backoff: Backoff(initial: .milliseconds(10), maximum: .milliseconds(100)))

    @Test func everyFixOfAReplayArrivesOnceInOrder() async throws {
        let broker = try await PrivateMosquitto()
        let subscriber = try await broker.subscribe("owntracks/#")
        let destination = try MQTTDestination(Self.configuration(broker))
        let clock = VirtualClock()
        let fixes = track(30)
        let (source, started) = replay(fixes, on: clock)
        let publisher = LocationPublisher(source: source, outbox: try .inMemory(), destinations: [destination], configuration: Self.quick)
        let running = Task { await publisher.run() }
        await started()
        // One fix a second, each delivered before the next comes, as a live 1 Hz source is.
        for step in 0..<30 {
            await clock.advance(by: step == 0 ? .zero : .seconds(1))
            await publisher.waitForStatus { $0.sent > step }
        }
        #expect(await subscriber.waitFor { arrivalOrder($0).count == 30 })
        let expected = fixes.map { Int($0.time!.timeIntervalSince1970) }
        #expect(arrivalOrder(subscriber.messages) == expected)
        let end = await publisher.drain(timeout: .seconds(30))
        await running.value
        #expect(end.queued == 0)
        #expect(end.sent == 30)
        #expect(end.lastError == nil)
        await destination.close()
        await broker.stop()
        // Each payload is OwnTracks' location, on the OwnTracks topic.
        for message in subscriber.messages {
            #expect(message.topic == "owntracks/alice/van")
        }
    }
}
