import ArgumentParser
import CommandSupport
import LocationPublisher
import Logging

extension Publish {
    /// The MQTT destination --to names: OwnTracks on owntracks/USER/DEVICE (retained, with the
    /// `lwt` will), or Home Assistant's discovery for USER_DEVICE; QoS 1, a persistent session.
    func mqttDestination(_ target: PublishTarget, login: HTTPLogin?) throws -> any PublishDestination {
        // mqtts:// trusts --ca-file, else the system's certificates (Debian's hashed folder).
        let tls = target.scheme == .mqtts
            ? MQTTDestination.TLS(caFile: caFile, caPath: caFile == nil ? "/etc/ssl/certs" : nil)
            : nil
        var configuration: MQTTDestination.Configuration
        switch format {
        case .homeassistant:
            let discovery = HomeAssistantDiscovery(objectID: "\(user)_\(device)", deviceName: device)
            configuration = MQTTDestination.Configuration(
                host: target.host, port: target.port, clientID: "swift-gps-facade-\(user)-\(device)",
                topic: discovery.attributesTopic, format: .homeAssistant(discovery), tls: tls)
            configuration.retain = true
        case .owntracks, .osmand:
            configuration = .ownTracks(host: target.host, port: target.port, user: user, device: device, trackerID: trackerID, tls: tls)
        }
        configuration.reconnect = reconnect.backoff
        configuration.username = login?.user
        configuration.password = login.flatMap { $0.password.isEmpty ? nil : $0.password }
        var logger = Logger(label: "swift-gps-facade.mqtt")
        logger.logLevel = .error  // the session reports what the client's warnings say
        do {
            return try MQTTDestination(configuration, logger: logger)
        } catch {
            Output.error("locate publish: \(error).")
            if case .tlsFailure = error { throw ExitCode(.noInput) }
            throw ExitCode(.unavailable)
        }
    }
}
