import Foundation

/// paho-mqtt (PyPI), the Eclipse MQTT client library for Python, in the venv
/// `scripts/install-mqtt-peers` makes (`.cache/mqtt-peers`, or the python in `MQTT_PEERS_PYTHON`):
/// a client we did not write, reading what the publisher sends.
public enum MQTTPeers {
    /// The python with paho-mqtt installed, if there is one.
    public static let python = Repository.peersPython("MQTT_PEERS_PYTHON", venv: "mqtt-peers")

    /// Whether paho-mqtt can be run.
    public static var isAvailable: Bool { python != nil }

    /// Why a test that needs paho-mqtt skipped.
    public static let missing = "paho-mqtt is not installed: run scripts/install-mqtt-peers"

    /// The subscriber script (`scripts/peers/paho_subscribe.py`).
    public static var subscriber: String {
        Repository.root.appendingPathComponent("scripts/peers/paho_subscribe.py").path
    }
}
