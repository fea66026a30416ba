import BluetoothSensors
import DBus
import GPSCore

/// A fake BlueZ on a bus of your own: the `org.bluez` service with an adapter and the devices you
/// give it, each with the GATT services of a heart-rate strap, a speed and cadence sensor, a
/// power meter, a foot pod, a treadmill or a smart trainer, for tests of code that reads (and
/// drives) Bluetooth sensors, without Bluetooth or BlueZ.
///
/// ```swift
/// let bus = try await PrivateBus()
/// let bluez = try await FakeBlueZ(bus: bus.address)
/// let strap = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:01", name: "HRM-Pro", sensors: [.heartRate]))
/// let sensor = BluetoothSensor(address: "C0:FF:EE:00:00:01", bus: .address(bus.address))
/// strap.send(HeartRateMeasurement(heartRate: 142))   // a notification, once the sensor subscribed
/// ```
///
/// It follows BlueZ's D-Bus API (`doc/org.bluez.*.rst` in BlueZ's source) where a client meets
/// it: an `ObjectManager` at `/`; `org.bluez.Adapter1` at `/org/bluez/hci0` (`Powered`,
/// `Discovering`, `SetDiscoveryFilter`, `StartDiscovery`, `StopDiscovery`); `org.bluez.Device1`
/// for each device (`Connect`, `Disconnect`, `Connected`, `ServicesResolved`, `UUIDs`, `RSSI`)
/// with `org.bluez.Battery1` for its battery, as BlueZ's battery plugin gives it; and, once
/// connected, `GattService1` and `GattCharacteristic1` objects below the device, with
/// `StartNotify`, `StopNotify`, `ReadValue`, `WriteValue` (with its options dictionary, for a
/// fitness machine's control point, whose `Flags` say `write` and `indicate`) and notifications
/// and indications as `PropertiesChanged` of `Value`. A fitness machine advertises its FTMS
/// Service Data (`ServiceData` of `Device1`). Notifications are on for a characteristic while any
/// client has them on: unlike BlueZ, the fake does not count its clients.
/// A device that advertises only (``FakeBluetoothDevice/knownBeforeScan`` false) appears when a
/// scan starts.
public final class FakeBlueZ: Sendable {
    /// The adapter's object path.
    public static let adapterPath = "/org/bluez/hci0"
    /// The bus it is on.
    public let busAddress: String
    let connection: DBusConnection
    let adapter: DBusExportedInterface?
    private let manager: DBusRegistration
    let devices = Locked<[FakeBluetoothDevice]>([])
    /// While scanning: the devices' advertisements, again and again.
    private let advertiser = Locked<Task<Void, Never>?>(nil)
    /// How often a device in range advertises while the adapter scans.
    static let advertisingInterval = Duration.milliseconds(250)

    /// Starts the service on the bus at `bus` with one adapter at `adapterAddress` (powered
    /// unless `powered` is false; none when `adapterAddress` is `nil`, as BlueZ on a machine
    /// without a controller), and returns once it owns its name.
    public init(bus: String, adapterAddress: String? = "00:1A:7D:DA:71:13", powered: Bool = true) async throws {
        busAddress = bus
        let connection = try DBusConnection(.address(bus))
        self.connection = connection
        let devices = self.devices
        var adapter = DBusInterface("org.bluez.Adapter1")
        // Adapter1's properties as BlueZ 5.66 has them (clients such as bleak read them all).
        adapter.addProperty("Address", .string(adapterAddress ?? ""))
        adapter.addProperty("AddressType", "public")
        adapter.addProperty("Name", "fake-bluez")
        adapter.addProperty("Alias", "fake-bluez")
        adapter.addProperty("Class", .uint32(0))
        adapter.addWritableProperty("Powered", .boolean(powered))
        adapter.addProperty("PowerState", .string(powered ? "on" : "off"))
        adapter.addProperty("Discoverable", false)
        adapter.addProperty("DiscoverableTimeout", .uint32(180))
        adapter.addProperty("Pairable", false)
        adapter.addProperty("PairableTimeout", .uint32(0))
        adapter.addProperty("Discovering", .boolean(false))
        adapter.addProperty("UUIDs", .stringArray([]))
        adapter.addProperty("Modalias", "usb:v1D6Bp0246d0542")
        adapter.addProperty("Roles", .stringArray(["central", "peripheral"]))
        adapter.addMethod("SetDiscoveryFilter", input: "a{sv}") { _ in [] }
        adapter.addMethod("GetDiscoveryFilters", output: "as") { _ in [.stringArray(["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData"])] }
        let exported = Locked<DBusExportedInterface?>(nil)
        let advertiser = self.advertiser
        adapter.addMethod("StartDiscovery") { _ in
            guard let adapter = exported.withLock({ $0 }), adapter.value(of: "Powered")?.boolValue == true else {
                throw DBusError(name: "org.bluez.Error.NotReady", message: "Resource Not Ready", bus: "")
            }
            try adapter.setValue(true, for: "Discovering")
            for device in devices.withLock({ $0 }) { try await device.advertise() }
            // Devices in range advertise again and again (a strap every second or so): a client
            // that starts listening after the scan began sees them too. On a thread of its own:
            // on the concurrency threads of a test process busy with a whole package's tests, a
            // scan went 11 s without one, and bleak's 10 s search for the strap found nothing.
            let executor = DedicatedThreadExecutor()
            let advertising = Task(executorPreference: executor) {
                while !Task.isCancelled, adapter.value(of: "Discovering")?.boolValue == true {
                    // Cancelled, the scan has stopped: the loop's condition ends it.
                    try? await Task.sleep(for: Self.advertisingInterval)
                    for device in devices.withLock({ $0 }) { try? await device.advertise() }  // best effort: the next round tries again
                }
                executor.finish()
            }
            advertiser.withLock { $0?.cancel(); $0 = advertising }
            return []
        }
        adapter.addMethod("StopDiscovery") { _ in
            advertiser.withLock { $0?.cancel(); $0 = nil }
            try exported.withLock({ $0 })?.setValue(false, for: "Discovering")
            return []
        }
        adapter.addMethod("RemoveDevice", input: "o") { _ in [] }
        do {
            manager = try await connection.addObjectManager(at: "/")
            self.adapter = adapterAddress == nil ? nil : try await connection.export(adapter, at: Self.adapterPath)
            exported.withLock { $0 = self.adapter }
            try await connection.requestName(BlueZ.service)
        } catch {
            connection.close()
            throw error
        }
    }

    deinit {
        connection.close()
    }

    /// Adds `device`: on the bus at once when it is known before any scan, else when a scan
    /// starts. Returns it, for the test to drive.
    @discardableResult
    public func add(_ device: FakeBluetoothDevice) async throws -> FakeBluetoothDevice {
        devices.withLock { $0.append(device) }
        try await device.attach(to: self)
        return device
    }

    /// Takes BlueZ off the bus, as `bluetoothd` exiting does. The bus sees the connection close a
    /// moment later: until then `org.bluez` is still this fake's, and another `FakeBlueZ` started
    /// on the same bus at once may be refused it.
    public func stop() {
        advertiser.withLock { $0?.cancel() }
        connection.close()
    }

    /// Whether the adapter is scanning.
    public var isDiscovering: Bool {
        adapter?.value(of: "Discovering")?.boolValue ?? false
    }
}
