import BluetoothSensors
import DBus
import GPSCore

/// A device of a ``FakeBlueZ``: a heart-rate strap, a speed and cadence sensor, a power meter, a
/// foot pod, a treadmill or a smart trainer (or several in one), whose notifications the test
/// sends, and which can drop its connection, send malformed values, and run out of battery. A
/// treadmill or a trainer has a ``FakeFitnessMachine`` behind its Fitness Machine service, which
/// answers its control point and rides on a clock (``run(every:clock:)``).
public final class FakeBluetoothDevice: Sendable {
    /// What the device measures: the GATT service it has for it.
    public enum Sensor: Sendable, Hashable, CaseIterable {
        /// Heart Rate service (`0x180D`): Heart Rate Measurement, Body Sensor Location (chest).
        case heartRate
        /// Cycling Speed and Cadence service (`0x1816`): CSC Measurement.
        case speedAndCadence
        /// Cycling Power service (`0x1818`): Cycling Power Measurement.
        case power
        /// Running Speed and Cadence service (`0x1814`), a foot pod: RSC Measurement, RSC Feature.
        case runningSpeedAndCadence
        /// Fitness Machine service (`0x1826`) of a treadmill: Treadmill Data, Feature, Supported
        /// Speed and Inclination Ranges, Training Status, Fitness Machine Status, Control Point.
        case treadmill
        /// Fitness Machine service (`0x1826`) of a smart trainer: Indoor Bike Data, Feature, Supported
        /// Power and Resistance Level Ranges, Training Status, Fitness Machine Status, Control Point.
        case indoorBike

        var serviceUUID: String {
            switch self {
            case .heartRate: BluetoothUUID.heartRateService
            case .speedAndCadence: BluetoothUUID.cyclingSpeedAndCadenceService
            case .power: BluetoothUUID.cyclingPowerService
            case .runningSpeedAndCadence: BluetoothUUID.rscService
            case .treadmill, .indoorBike: BluetoothUUID.fitnessMachineService
            }
        }

        /// The characteristic its measurements are notified on.
        var measurementUUID: String {
            switch self {
            case .heartRate: BluetoothUUID.heartRateMeasurement
            case .speedAndCadence: BluetoothUUID.cscMeasurement
            case .power: BluetoothUUID.cyclingPowerMeasurement
            case .runningSpeedAndCadence: BluetoothUUID.rscMeasurement
            case .treadmill: BluetoothUUID.treadmillData
            case .indoorBike: BluetoothUUID.indoorBikeData
            }
        }

        /// The fitness machine it is, if it is one.
        var machineKind: FakeFitnessMachine.Kind? {
            switch self {
            case .treadmill: .treadmill
            case .indoorBike: .indoorBike
            default: nil
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
    /// What a foot pod says it measures (its RSC Feature).
    public let rscFeature: RSCFeature

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
        /// The fitness machine behind its Fitness Machine service.
        var machine: FakeFitnessMachine?
        /// Every value written to its control point, in order.
        var writes: [[UInt8]] = []
        /// Control point answers held back (``holdResponses()``), in order.
        var heldResponses: [[UInt8]]?
        /// How many more notifications to send a byte short.
        var truncating = 0
    }

    let state: ObservedState<State>

    /// A device at `address`, advertising `name`, measuring `sensors`, with a battery at
    /// `batteryPercent` (`nil`: no battery service). A treadmill or a trainer is `machine` (by
    /// default ``FakeFitnessMachine``'s of its kind); a foot pod says `rscFeature`. A device has one
    /// Fitness Machine service at most: the first of `sensors` that is one.
    public init(
        address: String, name: String, sensors: [Sensor], batteryPercent: Int? = 90, knownBeforeScan: Bool = true,
        machine: FakeFitnessMachine? = nil, rscFeature: RSCFeature = [.strideLength, .totalDistance, .walkingOrRunningStatus]
    ) {
        self.address = address.uppercased()
        self.name = name
        let kind = sensors.lazy.compactMap(\.machineKind).first
        self.sensors = sensors.filter { $0.machineKind == nil || $0.machineKind == kind }
        self.knownBeforeScan = knownBeforeScan
        self.rscFeature = rscFeature
        path = FakeBlueZ.adapterPath + "/dev_" + address.uppercased().replacingOccurrences(of: ":", with: "_")
        state = ObservedState(State(batteryPercent: batteryPercent, machine: kind.map { machine ?? FakeFitnessMachine($0) }))
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
    /// ones too; a byte short while ``truncateMeasurements(_:)`` says so). Returns whether a
    /// client had notifications on.
    @discardableResult
    public func send(_ bytes: [UInt8], as sensor: Sensor) -> Bool {
        let sent = state.withLock { state -> (DBusExportedInterface, [UInt8])? in
            guard state.notifying.contains(sensor.measurementUUID), let characteristic = state.characteristics[sensor.measurementUUID] else { return nil }
            state.sent += 1
            guard state.truncating > 0, !bytes.isEmpty else { return (characteristic, bytes) }
            state.truncating -= 1
            return (characteristic, Array(bytes.dropLast()))
        }
        guard let (characteristic, bytes) = sent else { return false }
        notify(characteristic, bytes)
        return true
    }

    /// Announces `bytes` as the value of `characteristic`: a notification, or an indication.
    func notify(_ characteristic: DBusExportedInterface, _ bytes: [UInt8]) {
        // The same value twice is still two notifications: BlueZ signals each one. A device that
        // went meanwhile sends nothing (the characteristic is off the bus): nothing to do.
        try? characteristic.announce(.bytes(bytes), for: "Value")
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

    /// Sends a foot pod's measurement.
    @discardableResult
    public func send(_ measurement: RSCMeasurement) -> Bool {
        send(measurement.bytes, as: .runningSpeedAndCadence)
    }

    /// Sends a trainer's data.
    @discardableResult
    public func send(_ data: IndoorBikeData) -> Bool {
        send(data.bytes, as: .indoorBike)
    }

    /// Sends a treadmill's data.
    @discardableResult
    public func send(_ data: TreadmillData) -> Bool {
        send(data.bytes, as: .treadmill)
    }

    // MARK: - Faults

    /// Drops the connection, as a device going out of range does: its GATT objects go, then
    /// `ServicesResolved` and `Connected` become false (a fitness machine lets go of its
    /// controller, and a trainer of its target). With `reachable` false it then refuses to connect
    /// again until ``comeBack()``.
    public func disconnect(reachable: Bool = true) {
        let (device, gatt) = state.withLock { state -> (DBusExportedInterface?, [DBusExportedInterface]) in
            state.unreachable = !reachable
            // A machine whose link dropped lets go of the client's control, and a trainer of its target.
            state.machine?.connectionDropped()
            defer {
                state.gatt = []
                state.characteristics = [:]
                state.notifying = []
            }
            return (state.device, state.gatt)
        }
        for object in gatt.reversed() { object.remove(announcing: true) }
        try? device?.setValue(false, for: "ServicesResolved")  // a declared Boolean: cannot fail
        try? device?.setValue(false, for: "Connected")  // a declared Boolean: cannot fail
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
        try? battery?.setValue(.byte(UInt8(clamping: percent)), for: "Percentage")  // a declared byte: cannot fail
        if percent <= 0 {
            disconnect(reachable: false)
        } else {
            comeBack()
        }
    }
}
