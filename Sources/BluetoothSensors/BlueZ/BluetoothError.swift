/// What went wrong with Bluetooth, with what a user needs to act on it.
public enum BluetoothError: Error, Sendable, Hashable, CustomStringConvertible {
    /// BlueZ (`org.bluez`) is not on `bus`, or there is no such bus.
    case bluezUnavailable(bus: String, reason: String)
    /// BlueZ runs, but has no Bluetooth adapter.
    case noAdapter(bus: String)
    /// The adapter is powered off.
    case adapterOff(adapter: String)
    /// No device with this address is known to BlueZ, or came within range during a scan.
    case deviceNotFound(address: String)
    /// BlueZ could not connect to the device, or lost it: `reason` is BlueZ's answer.
    case connectionFailed(address: String, reason: String)
    /// The device offers none of the services a workout reads.
    case noWorkoutService(address: String, services: [String])

    public var description: String {
        switch self {
        case let .bluezUnavailable(bus, reason):
            "BlueZ (org.bluez) is not available on \(bus): \(reason). Is bluetoothd running (systemctl status bluetooth)?"
        case let .noAdapter(bus):
            "BlueZ on \(bus) has no Bluetooth adapter. Is one plugged in, and not blocked (rfkill list)?"
        case let .adapterOff(adapter):
            "The Bluetooth adapter \(adapter) is powered off. Turn it on (bluetoothctl power on)."
        case let .deviceNotFound(address):
            "No Bluetooth device \(address) is in range or known to BlueZ. Is it awake (a strap worn, pedals turned) and not connected to another receiver?"
        case let .connectionFailed(address, reason):
            "Could not connect to the Bluetooth device \(address): \(reason)."
        case let .noWorkoutService(address, services):
            "The Bluetooth device \(address) offers no heart rate, speed and cadence, power, running speed and cadence or fitness machine service (it offers: \(services.isEmpty ? "none" : services.joined(separator: ", ")))."
        }
    }
}
