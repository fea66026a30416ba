#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import LocationCore

/// A Bluetooth adapter, as BlueZ lists it (`org.bluez.Adapter1`).
public struct BluetoothAdapter: Sendable, Hashable {
    /// Its object path, such as `/org/bluez/hci0`.
    public var path: String
    /// Its name, the path's last part: `hci0`.
    public var name: String { String(path.split(separator: "/").last ?? "") }
    /// Its Bluetooth address.
    public var address: String
    /// Whether it is powered on.
    public var isPowered: Bool
    /// Whether it is scanning.
    public var isDiscovering: Bool
}

/// A Bluetooth device BlueZ knows (`org.bluez.Device1`): seen in a scan, or paired before.
public struct BluetoothDevice: Sendable, Hashable {
    /// Its object path, such as `/org/bluez/hci0/dev_C0_FF_EE_00_00_01`.
    public var path: String
    /// Its Bluetooth address, `C0:FF:EE:00:00:01`.
    public var address: String
    /// The name it advertises, if any.
    public var name: String?
    /// The signal strength of its last advertisement, in dBm.
    public var rssi: Int?
    /// The services it advertises or has, as full UUIDs.
    public var serviceUUIDs: [String]
    /// Whether it is connected.
    public var isConnected: Bool
    /// Whether BlueZ has found its GATT services (after connecting).
    public var servicesResolved: Bool
    /// Its battery's charge in percent, when BlueZ reads it (`org.bluez.Battery1`).
    public var batteryPercent: Int?

    /// The workout services among its services, by name: "heart rate", "speed and cadence", "power",
    /// "running speed and cadence", "fitness machine", "battery".
    public var workoutServices: [String] {
        BluetoothUUID.workoutServices.filter { serviceUUIDs.contains($0) }.map(BluetoothUUID.serviceName)
    }
}

/// BlueZ, the Linux Bluetooth stack, over D-Bus (`org.bluez` on the system bus): its adapters,
/// the devices it knows, and scans for the sensors a workout reads.
///
/// ```swift
/// let bluez = try BlueZ()
/// for device in try await bluez.scan(for: .seconds(10)) {
///     print(device.address, device.name ?? "", device.workoutServices)
/// }
/// ```
public final class BlueZ: Sendable {
    /// BlueZ's name on the bus.
    public static let service = "org.bluez"
    let connection: DBusConnection

    /// Connects to the bus BlueZ is on (the system bus by default), through the process's shared
    /// connection to it (`DBusConnection.shared(_:)`), which the sensors use too.
    ///
    /// - Throws: ``BluetoothError/bluezUnavailable(bus:reason:)`` when there is no bus there.
    public init(bus: DBusConnection.Address = .system) throws(BluetoothError) {
        do {
            connection = try DBusConnection.shared(bus)
        } catch {
            throw .bluezUnavailable(bus: error.bus, reason: error.message)
        }
    }

    deinit {
        connection.close()
    }

    /// Lets go of the connection to the bus (it closes once nothing else in the process holds it).
    public func close() {
        connection.close()
    }

    /// The adapters BlueZ has.
    ///
    /// - Throws: ``BluetoothError/bluezUnavailable(bus:reason:)``.
    public func adapters() async throws -> [BluetoothAdapter] {
        try await BlueZObjects.load(from: connection).adapters
    }

    /// The devices BlueZ knows now (seen in a scan, or paired).
    public func devices() async throws -> [BluetoothDevice] {
        try await BlueZObjects.load(from: connection).devices
    }

    /// Scans for `duration` (on `clock`) for devices that advertise one of `services`, and returns
    /// every device BlueZ then knows with one of them. The scan uses the first powered adapter.
    ///
    /// - Throws: ``BluetoothError`` when BlueZ, an adapter or a powered one is missing;
    ///   `CancellationError` when the task is cancelled (the scan is stopped).
    public func scan(
        for duration: Duration, services: [String] = BluetoothUUID.workoutServices, clock: some Clock<Duration> = ContinuousClock()
    ) async throws -> [BluetoothDevice] {
        let adapter = try await poweredAdapter()
        let proxy = DBusProxy(connection, destination: Self.service, path: adapter.path, interface: "org.bluez.Adapter1")
        _ = try await proxy.call("SetDiscoveryFilter", [.variantDictionary(["UUIDs": .stringArray(services), "Transport": "le"])])
        do {
            try await proxy.call("StartDiscovery")
        } catch let error as DBusError where error.name.rawValue == "org.bluez.Error.InProgress" {
            // Another program scans already: its scan serves us too.
        }
        do {
            try await clock.sleep(for: duration)
        } catch {
            // Cancelled: stop the scan all the same (in a task of its own, as this one is cancelled).
            Task { [proxy] in _ = try? await proxy.call("StopDiscovery", timeout: .seconds(2)) }  // best effort, as below
            throw error
        }
        _ = try? await proxy.call("StopDiscovery", timeout: .seconds(2))  // best effort: BlueZ ends our scan when we leave the bus
        return try await devices().filter { device in services.isEmpty || device.serviceUUIDs.contains { services.contains($0) } }
    }

    /// The first adapter that is powered on.
    ///
    /// - Throws: ``BluetoothError/noAdapter(bus:)`` or ``BluetoothError/adapterOff(adapter:)``.
    public func poweredAdapter() async throws -> BluetoothAdapter {
        let adapters = try await adapters()
        guard let first = adapters.first else { throw BluetoothError.noAdapter(bus: "\(connection.address)") }
        guard let powered = adapters.first(where: \.isPowered) else { throw BluetoothError.adapterOff(adapter: first.name) }
        return powered
    }
}

/// BlueZ's objects as its ObjectManager lists them (`GetManagedObjects`), by path.
struct BlueZObjects: Sendable {
    var objects: [String: BlueZObject]

    /// Lists BlueZ's objects. Throws ``BluetoothError/bluezUnavailable(bus:reason:)`` when BlueZ
    /// is not on the bus.
    static func load(from connection: DBusConnection) async throws -> BlueZObjects {
        do {
            return BlueZObjects(objects: try await connection.managedObjects(of: BlueZ.service, as: BlueZObject.self))
        } catch let error as DBusError {
            switch error.name {
            case .serviceUnknown, .nameHasNoOwner, .noServer, .disconnected:
                throw BluetoothError.bluezUnavailable(bus: error.bus, reason: error.name == .noServer ? error.message : "no program owns org.bluez there")
            default:
                throw error
            }
        }
    }

    var adapters: [BluetoothAdapter] {
        objects.compactMap { path, object in
            guard let adapter = object.adapter else { return nil }
            return BluetoothAdapter(
                path: path, address: adapter.address ?? "", isPowered: adapter.powered ?? false, isDiscovering: adapter.discovering ?? false)
        }.sorted { $0.path < $1.path }
    }

    var devices: [BluetoothDevice] {
        objects.compactMap { path, object in
            guard let device = object.device else { return nil }
            return BluetoothDevice(
                path: path, address: device.address ?? "", name: device.name ?? device.alias, rssi: device.rssi,
                serviceUUIDs: (device.uuids ?? []).map { $0.lowercased() }, isConnected: device.connected ?? false,
                servicesResolved: device.servicesResolved ?? false, batteryPercent: object.battery?.percentage)
        }.sorted { $0.address < $1.address }
    }

    /// The device with `address` (in any case).
    func device(address: String) -> BluetoothDevice? {
        devices.first { $0.address.uppercased() == address.uppercased() }
    }

    /// The GATT characteristics below `devicePath`: their UUIDs, by object path.
    func characteristics(of devicePath: String) -> [String: String] {
        var found: [String: String] = [:]
        for (path, object) in objects where path.hasPrefix(devicePath + "/") {
            if let uuid = object.characteristic?.uuid {
                found[path] = uuid.lowercased()
            }
        }
        return found
    }
}
