import Foundation

/// bleak (PyPI), a Bluetooth LE client library that talks to BlueZ over D-Bus, in the venv
/// `scripts/install-ble-peers` makes (`.cache/ble-peers`, or the python in `BLE_PEERS_PYTHON`): a
/// client we did not write, held to the fake BlueZ.
public enum BLEPeers {
    /// The python with bleak installed, if there is one.
    public static let python = Repository.peersPython("BLE_PEERS_PYTHON", venv: "ble-peers")

    /// Whether bleak can be run.
    public static var isAvailable: Bool { python != nil }

    /// Why a test that needs bleak skipped.
    public static let missing = "bleak is not installed: run scripts/install-ble-peers"

    /// The path of a script of `scripts/peers`.
    public static func script(_ name: String) -> String {
        Repository.root.appendingPathComponent("scripts/peers/" + name).path
    }
}
