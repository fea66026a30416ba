import BluetoothSensors
import DBus
import GPSCore

/// A device of a ``FakeBlueZ``: a heart-rate strap, a speed and cadence sensor, a power meter
/// (or several in one), whose notifications the test sends, and which can drop its connection,
/// send malformed values, and run out of battery.
public final class FakeBluetoothDevice: Sendable {
    /// What the device measures: the GATT service it has for it.
    public enum Sensor: Sendable, Hashable, CaseIterable {
        /// Heart Rate service (`0x180D`): Heart Rate Measurement, Body Sensor Location (chest).
        case heartRate
        /// Cycling Speed and Cadence service (`0x1816`): CSC Measurement.
        case speedAndCadence
        /// Cycling Power service (`0x1818`): Cycling Power Measurement.
        case power

        var serviceUUID: String {
            switch self {
            case .heartRate: BluetoothUUID.heartRateService
            case .speedAndCadence: BluetoothUUID.cyclingSpeedAndCadenceService
            case .power: BluetoothUUID.cyclingPowerService
            }
        }

        var measurementUUID: String {
            switch self {
            case .heartRate: BluetoothUUID.heartRateMeasurement
            case .speedAndCadence: BluetoothUUID.cscMeasurement
            case .power: BluetoothUUID.cyclingPowerMeasurement
            }
        }
    }

    /// Its Bluetooth address.
    public let address: String
    /// The name it advertises.
    public let name: String
    /// What it measures.
    public let sensors: [Sensor]
    /// Whether BlueZ knows it before any scan (paired, or seen before); otherwise it appears when
    /// a scan starts.
    public let knownBeforeScan: Bool
    /// Its object path.
    public let path: String

    struct State {
        var bluez: FakeBlueZ?
        var device: DBusExportedInterface?
        var battery: DBusExportedInterface?
        var batteryPercent: Int?
        /// Its GATT objects, while connected: services, then characteristics.
        var gatt: [DBusExportedInterface] = []
        /// The measurement characteristics by UUID, while connected.
        var characteristics: [String: DBusExportedInterface] = [:]
        /// Whether a client has notifications on, by characteristic UUID.
        var notifying: Set<String> = []
        var connections = 0
        /// Whether it refuses connections (its battery is empty, or it is out of range).
        var unreachable = false
        var sent = 0
    }

    let state: ObservedState<State>

    /// A device at `address`, advertising `name`, measuring `sensors`, with a battery at
    /// `batteryPercent` (`nil`: no battery service).
    public init(address: String, name: String, sensors: [Sensor], batteryPercent: Int? = 90, knownBeforeScan: Bool = true) {
        self.address = address.uppercased()
        self.name = name
        self.sensors = sensors
        self.knownBeforeScan = knownBeforeScan
        path = FakeBlueZ.adapterPath + "/dev_" + address.uppercased().replacingOccurrences(of: ":", with: "_")
        state = ObservedState(State(batteryPercent: batteryPercent))
    }

    /// How many times a client has connected to it.
    public var connections: Int { state.withLock { $0.connections } }
    /// Whether it is connected now.
    public var isConnected: Bool { state.withLock { $0.device?.value(of: "Connected")?.boolValue ?? false } }
    /// How many notifications it has sent.
    public var sentNotifications: Int { state.withLock { $0.sent } }

    /// Whether a client has notifications on for what `sensor` measures.
    public func isNotifying(_ sensor: Sensor) -> Bool {
        state.withLock { $0.notifying.contains(sensor.measurementUUID) }
    }

    /// Returns once it has sent `count` notifications in all (at once if it has), or when the
    /// task is cancelled: for a test, the event it waits for, where it polled ``sentNotifications``.
    package func waitUntil(sentNotifications count: Int) async {
        await state.waitUntil { $0.sent >= count }
    }

    /// Returns once a client has connected to it `count` times in all and has notifications on
    /// for what `sensor` measures (at once if so), or when the task is cancelled: for a test.
    package func waitUntil(connections count: Int = 1, notifying sensor: Sensor) async {
        let uuid = sensor.measurementUUID
        await state.waitUntil { $0.connections >= count && $0.notifying.contains(uuid) }
    }

    // MARK: - Sending

    /// Sends `bytes` as a notification of the measurement of `sensor`, as they are (malformed
    /// ones too). Returns whether a client had notifications on.
    @discardableResult
    public func send(_ bytes: [UInt8], as sensor: Sensor) -> Bool {
        let characteristic = state.withLock { state -> DBusExportedInterface? in
            guard state.notifying.contains(sensor.measurementUUID) else { return nil }
            state.sent += 1
            return state.characteristics[sensor.measurementUUID]
        }
        guard let characteristic else { return false }
        // The same value twice is still two notifications: BlueZ signals each one.
        try? characteristic.announce(.bytes(bytes), for: "Value")
        return true
    }

    /// Sends a heart-rate measurement.
    @discardableResult
    public func send(_ measurement: HeartRateMeasurement) -> Bool {
        send(measurement.bytes, as: .heartRate)
    }

    /// Sends a speed and cadence measurement.
    @discardableResult
    public func send(_ measurement: CSCMeasurement) -> Bool {
        send(measurement.bytes, as: .speedAndCadence)
    }

    /// Sends a power measurement.
    @discardableResult
    public func send(_ measurement: CyclingPowerMeasurement) -> Bool {
        send(measurement.bytes, as: .power)
    }

    // MARK: - Faults

    /// Drops the connection, as a device going out of range does: its GATT objects go, then
    /// `ServicesResolved` and `Connected` become false. With `reachable` false it then refuses
    /// to connect again until ``comeBack()``.
    public func disconnect(reachable: Bool = true) {
        let (device, gatt) = state.withLock { state -> (DBusExportedInterface?, [DBusExportedInterface]) in
            state.unreachable = !reachable
            defer {
                state.gatt = []
                state.characteristics = [:]
                state.notifying = []
            }
            return (state.device, state.gatt)
        }
        for object in gatt.reversed() { object.remove(announcing: true) }
        try? device?.setValue(false, for: "ServicesResolved")
        try? device?.setValue(false, for: "Connected")
    }

    /// Lets it be connected again after ``disconnect(reachable:)`` with `reachable` false.
    public func comeBack() {
        state.withLock { $0.unreachable = false }
    }

    /// Sets its battery's charge; at 0 it stops, as an empty battery does: it disconnects and
    /// refuses connections until charged.
    public func setBattery(_ percent: Int) {
        let battery = state.withLock { state in
            state.batteryPercent = percent
            return state.battery
        }
        try? battery?.setValue(.byte(UInt8(clamping: percent)), for: "Percentage")
        if percent <= 0 {
            disconnect(reachable: false)
        } else {
            comeBack()
        }
    }
}
