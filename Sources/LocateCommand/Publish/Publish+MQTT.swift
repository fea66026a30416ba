import ArgumentParser
import CommandSupport
import LocationPublisher

extension Publish {
    /// The MQTT destination --to names (to come with MQTTDestination).
    func mqttDestination(_ target: PublishTarget, login: HTTPLogin?) throws -> any PublishDestination {
        Output.error("locate publish: MQTT is not built yet.")
        throw ExitCode(.unavailable)
    }
}
