#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import Logging

/// An MQTT broker as a ``PublishDestination``, through libmosquitto (the Eclipse reference C
/// client): MQTT 3.1.1 or 5, QoS 1 (``deliver(_:)`` returns on the PUBACK), TLS, user name and
/// password, keepalive, OwnTracks' last will, a persistent session, and reconnection with a backoff.
///
/// ```swift
/// var configuration = MQTTDestination.Configuration.ownTracks(host: "broker.example", user: "alice", device: "van")
/// configuration.username = "alice"
/// configuration.password = password          // read from a file, never from the command line
/// let broker = try MQTTDestination(configuration)
/// ```
///
/// The client connects at once, on a thread of its own, and keeps reconnecting (1 s, doubling,
/// at most 60 s by default: real time, as it waits on a network) until ``close()``. While it is not
/// connected ``deliver(_:)`` throws at once, so that the publisher's outbox keeps the position.
/// Many destinations in one process are many clients, each with its thread: 200 into one broker
/// are tested.
public final class MQTTDestination: PublishDestination {
    /// MQTT's protocol version.
    public enum ProtocolVersion: String, Sendable, Hashable, CaseIterable {
        case v311 = "3.1.1"
        case v5 = "5"
    }

    /// TLS to the broker: whom to trust, and the client's own certificate when the broker asks for one.
    public struct TLS: Sendable, Hashable {
        /// A PEM file of the certificate authorities to trust.
        public var caFile: String?
        /// A folder of them (hashed, as `openssl rehash` makes).
        public var caPath: String?
        /// The client's certificate (PEM), for a broker that requires one.
        public var certificateFile: String?
        /// The client certificate's private key (PEM, unencrypted).
        public var keyFile: String?
        /// Whether the broker's certificate must name the host connected to. Turn it off only for tests.
        public var verifiesHostname: Bool

        /// TLS trusting `caFile` (or `caPath`); at least one is needed.
        public init(caFile: String? = nil, caPath: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, verifiesHostname: Bool = true) {
            self.caFile = caFile
            self.caPath = caPath
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.verifiesHostname = verifiesHostname
        }
    }

    /// What is published, and where.
    public enum Format: Sendable, Hashable {
        /// OwnTracks' `_type: location` JSON on the configuration's topic.
        case ownTracks(OwnTracksPayload)
        /// Home Assistant: the discovery's configurations (retained) after each connection, then
        /// the attributes of each position on its attributes topic.
        case homeAssistant(HomeAssistantDiscovery)
    }

    /// Everything about the connection.
    public struct Configuration: Sendable, Hashable {
        public var host: String
        /// 1883, or 8883 with TLS, unless given.
        public var port: Int
        public var protocolVersion: ProtocolVersion
        /// The client id. A persistent session is the broker's memory of this id: keep it stable.
        public var clientID: String
        /// `false` (the default) asks the broker to keep the session (MQTT 3.1.1's clean session
        /// false; MQTT 5's clean start false with ``sessionExpiry``).
        public var cleanSession: Bool
        /// How long an MQTT 5 broker keeps the session after the connection ends.
        public var sessionExpiry: Duration
        /// The broker login (separate from OwnTracks' user in the topic).
        public var username: String?
        public var password: String?
        /// The keepalive: the broker drops a client silent for 1.5 times this.
        public var keepAlive: Duration
        public var tls: TLS?
        /// The topic of the positions (OwnTracks: `owntracks/USER/DEVICE`).
        public var topic: String
        public var format: Format
        /// Whether positions are published retained (a new subscriber gets the last one at once),
        /// as OwnTracks' apps do by default.
        public var retain: Bool
        /// The last will, published (QoS 1) by the broker on ``topic`` if the client vanishes:
        /// OwnTracks' `_type: lwt` by default for ``Format/ownTracks(_:)``; `nil` for none.
        public var lastWill: [UInt8]?
        /// The backoff between connection attempts (real time).
        public var reconnect: Backoff
        /// How long to wait for a PUBACK before the delivery counts as failed (and the position
        /// is sent again).
        public var acknowledgementTimeout: Duration

        /// A connection to `host` publishing `format` to `topic`.
        public init(host: String, port: Int? = nil, clientID: String, topic: String, format: Format, tls: TLS? = nil) {
            self.host = host
            self.port = port ?? (tls == nil ? 1883 : 8883)
            self.protocolVersion = .v311
            self.clientID = clientID
            self.cleanSession = false
            self.sessionExpiry = .seconds(7 * 24 * 3600)
            self.keepAlive = .seconds(60)
            self.tls = tls
            self.topic = topic
            self.format = format
            self.retain = false
            if case .ownTracks = format {
                self.lastWill = OwnTracksPayload.lastWill(connectedAt: Date())
            }
            self.reconnect = Backoff()
            self.acknowledgementTimeout = .seconds(30)
        }

        /// OwnTracks over MQTT: topic `owntracks/USER/DEVICE`, client id `USER-DEVICE`, retained
        /// positions and the `lwt` will, as OwnTracks' apps publish.
        public static func ownTracks(
            host: String, port: Int? = nil, user: String, device: String, trackerID: String? = nil, tls: TLS? = nil
        ) -> Configuration {
            var configuration = Configuration(
                host: host, port: port, clientID: "swift-gps-facade-\(user)-\(device)",
                topic: OwnTracksPayload.topic(user: user, device: device),
                format: .ownTracks(OwnTracksPayload(trackerID: trackerID ?? OwnTracksPayload.defaultTrackerID(forDevice: device))), tls: tls)
            configuration.retain = true
            return configuration
        }
    }

    /// `mqtt://HOST:PORT` or `mqtts://HOST:PORT` (no credentials).
    public let name: String
    /// The configuration it was made with.
    public let configuration: Configuration
    private let client: MosquittoClient

    /// Makes the client and starts connecting (in the background).
    ///
    /// - Throws: ``PublishError/tlsFailure(destination:problem:)`` when the TLS files cannot be
    ///   used (libmosquitto checks they can be read), ``PublishError/unreachable(destination:reason:)``
    ///   when libmosquitto cannot make the client.
    public init(_ configuration: Configuration, logger: Logger = Logger(label: "swift-gps-facade.mqtt")) throws(PublishError) {
        self.configuration = configuration
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        name = "\(configuration.tls == nil ? "mqtt" : "mqtts")://\(host):\(configuration.port)"
        var onConnect: [(topic: String, payload: [UInt8], retain: Bool)] = []
        if case let .homeAssistant(discovery) = configuration.format {
            onConnect = discovery.configurations().map { ($0.topic, $0.payload, true) }
        }
        let seconds = { (duration: Duration) in Int32(clamping: duration.components.seconds) }
        client = try MosquittoClient(
            settings: MosquittoClient.Settings(
                name: name, host: configuration.host, port: Int32(clamping: configuration.port), clientID: configuration.clientID,
                cleanSession: configuration.cleanSession, protocolVersion: configuration.protocolVersion,
                sessionExpiry: UInt32(clamping: configuration.sessionExpiry.components.seconds),
                keepAlive: max(5, seconds(configuration.keepAlive)), username: configuration.username, password: configuration.password,
                tls: configuration.tls, will: configuration.lastWill.map { (configuration.topic, $0, false) },
                onConnect: onConnect, reconnect: configuration.reconnect,
                acknowledgementTimeout: configuration.acknowledgementTimeout),
            logger: logger)
    }

    deinit {
        client.stop()
    }

    /// Whether the client is connected to the broker now.
    public var isConnected: Bool {
        client.link == .connected
    }

    /// The reason the client is not connected, when it is not (after its first attempt).
    public var connectionError: PublishError? {
        if case let .down(error) = client.link { return error }
        return nil
    }

    /// Publishes `message` (QoS 1) and returns on the broker's PUBACK.
    ///
    /// Waits for the first connection attempt to end; after it, throws at once while the client
    /// is not connected.
    ///
    /// - Throws: ``PublishError``: `unreachable` (not connected, connection lost before the
    ///   PUBACK, no PUBACK in ``Configuration/acknowledgementTimeout``), `refusedCredentials`,
    ///   `tlsFailure`, or `rejected` (an MQTT 5 PUBACK with a failure reason code).
    public func deliver(_ message: PositionMessage) async throws {
        let (topic, payload, retain) = outgoing(message)
        try await client.publish(topic: topic, payload: payload, retain: retain)
    }

    /// Publishes `messages` (QoS 1) in their order, up to 20 in flight at once (libmosquitto's
    /// window, as `mosquitto_pub -l`), waking the client's thread once, and returns when the broker
    /// acknowledged them all or the client gave up (each result as ``deliver(_:)`` would throw).
    public func deliver(contentsOf messages: [PositionMessage]) async -> [Result<Void, any Error>] {
        await client.publish(messages.map(outgoing))
    }

    /// The newest position published retained: an older one (a backlog after an outage, sent
    /// after the newest) is not retained, so that the broker keeps the newest for new subscribers.
    private let newestRetained = Locked<Date?>(nil)

    /// Where `message` goes, as what, and whether retained. A position: the configuration's topic
    /// (Home Assistant: the attributes topic), retained when ``Configuration/retain`` says so and
    /// it is not older than one already retained. A transition: OwnTracks' `/event` topic under
    /// the configuration's, or Home Assistant's state topic (retained, as a state is), never
    /// OwnTracks' location topic.
    private func outgoing(_ message: PositionMessage) -> (topic: String, payload: [UInt8], retain: Bool) {
        switch (configuration.format, message.transition) {
        case let (.ownTracks(payload), transition?):
            return (configuration.topic + "/event", payload.renderTransition(message, transition), false)
        case let (.homeAssistant(discovery), transition?):
            return (discovery.stateTopic, discovery.state(after: transition), configuration.retain)
        case let (.ownTracks(payload), nil):
            return (configuration.topic, payload.render(message), retains(message))
        case let (.homeAssistant(discovery), nil):
            return (discovery.attributesTopic, discovery.attributes(message), retains(message))
        }
    }

    private func retains(_ message: PositionMessage) -> Bool {
        guard configuration.retain else { return false }
        return newestRetained.withLock { newest in
            guard newest.map({ message.time >= $0 }) ?? true else { return false }
            newest = message.time
            return true
        }
    }

    /// Disconnects cleanly (the broker does not publish the will) and returns once the client is gone.
    public func close() async {
        client.stop()
        await client.waitUntilClosed()
    }
}
