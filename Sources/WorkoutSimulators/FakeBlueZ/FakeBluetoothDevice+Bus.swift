import BluetoothSensors
import DBus
import GPSCore

/// A fake device's objects on the bus: `Device1` and `Battery1` while BlueZ knows it, and its
/// GATT services and characteristics while it is connected.
extension FakeBluetoothDevice {
    /// Joins `bluez`: on the bus at once when known before any scan.
    func attach(to bluez: FakeBlueZ) async throws {
        state.withLock { $0.bluez = bluez }
        if knownBeforeScan { try await advertise() }
    }

    /// Puts the device on the bus (a scan found it); when it is there already and not connected,
    /// its advertisement's signal strength changes, as BlueZ reports a known device seen again in a
    /// scan.
    func advertise() async throws {
        let (bluez, known, connected) = state.withLock { ($0.bluez, $0.device, !$0.gatt.isEmpty) }
        if let known {
            if !connected { try known.announce(.int16(-58), for: "RSSI") }
            return
        }
        guard let bluez else { return }
        var device = DBusInterface("org.bluez.Device1")
        device.addProperty("Address", .string(address))
        device.addProperty("AddressType", "random")
        device.addProperty("Name", .string(name))
        device.addProperty("Alias", .string(name))
        device.addProperty("Adapter", .objectPath(FakeBlueZ.adapterPath))
        device.addProperty("Paired", false)
        device.addProperty("Trusted", false)
        device.addProperty("Blocked", false)
        device.addProperty("LegacyPairing", false)
        device.addProperty("Connected", false)
        device.addProperty("ServicesResolved", false)
        device.addProperty("RSSI", .int16(-58))
        device.addProperty("UUIDs", .stringArray(sensors.map(\.serviceUUID) + (state.withLock { $0.batteryPercent } == nil ? [] : [BluetoothUUID.batteryService])))
        // A fitness machine advertises its Service Data (FTMS 3.1: "available", and its type), as
        // BlueZ gives it; pyftms finds a machine by it.
        if let kind = state.withLock({ $0.machine?.kind }) {
            let type: UInt8 = kind == .treadmill ? 0x01 : 0x20
            device.addProperty("ServiceData", .variantDictionary([BluetoothUUID.fitnessMachineService: .bytes([0x01, type, 0x00])]))
        }
        device.addMethod("Connect") { [self] _ in
            try await connect()
            return []
        }
        device.addMethod("Disconnect") { [self] _ in
            disconnect()
            return []
        }
        let exported = try await bluez.connection.export(device, at: path)
        exported.announce()
        var battery: DBusExportedInterface?
        if let percent = state.withLock({ $0.batteryPercent }) {
            var interface = DBusInterface("org.bluez.Battery1")
            interface.addProperty("Percentage", .byte(UInt8(clamping: percent)))
            battery = try await bluez.connection.export(interface, at: path)
            battery?.announce()
        }
        state.withLock { state in
            state.device = exported
            state.battery = battery
        }
    }

    /// `Device1.Connect`: refused while unreachable; else connected, its services found, then
    /// resolved, as BlueZ reports them.
    private func connect() async throws {
        let (bluez, device, unreachable, connected) = state.withLock { state in
            (state.bluez, state.device, state.unreachable, !state.gatt.isEmpty)
        }
        guard let bluez, let device else { throw DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist", bus: "") }
        if unreachable { throw DBusError(name: "org.bluez.Error.Failed", message: "Software caused connection abort", bus: "") }
        guard !connected else { return }
        try device.setValue(true, for: "Connected")
        var objects: [DBusExportedInterface] = []
        var characteristics: [String: DBusExportedInterface] = [:]
        for (index, sensor) in sensors.enumerated() {
            // Handles as a device's: 0x20 apart, room for a Fitness Machine service's ten.
            let servicePath = path + "/service" + Self.handle(0x20 * (index + 1))
            var service = DBusInterface("org.bluez.GattService1")
            service.addProperty("UUID", .string(sensor.serviceUUID))
            service.addProperty("Device", .objectPath(path))
            service.addProperty("Primary", true)
            let exportedService = try await bluez.connection.export(service, at: servicePath)
            exportedService.announce()
            objects.append(exportedService)
            for (offset, characteristic) in gattCharacteristics(of: sensor).enumerated() {
                let exported = try await exportCharacteristic(
                    characteristic, at: servicePath + "/char" + Self.handle(0x20 * (index + 1) + 2 * offset + 1), service: servicePath, on: bluez)
                objects.append(exported)
                characteristics[characteristic.uuid] = exported
            }
        }
        state.withLock { state in
            state.gatt = objects
            state.characteristics = characteristics
            state.connections += 1
        }
        try device.setValue(true, for: "ServicesResolved")
    }

    private func exportCharacteristic(
        _ gatt: Characteristic, at path: String, service: String, on bluez: FakeBlueZ
    ) async throws -> DBusExportedInterface {
        let (uuid, flags, value) = (gatt.uuid, gatt.flags, gatt.value)
        var characteristic = DBusInterface("org.bluez.GattCharacteristic1")
        characteristic.addProperty("UUID", .string(uuid))
        characteristic.addProperty("Service", .objectPath(service))
        characteristic.addProperty("Value", .bytes(value))
        characteristic.addProperty("Notifying", false)
        characteristic.addProperty("Flags", .stringArray(flags))
        let exported = Locked<DBusExportedInterface?>(nil)
        characteristic.addMethod("ReadValue", input: "a{sv}", output: "ay") { _ in
            [exported.withLock { $0 }?.value(of: "Value") ?? .bytes([])]
        }
        characteristic.addMethod("WriteValue", input: "aya{sv}") { [self] call in
            guard flags.contains("write"), let bytes = call.arguments.first?.bytesValue else {
                throw DBusError(name: "org.bluez.Error.NotPermitted", message: "Write not permitted", bus: "")
            }
            try written(bytes, to: uuid, by: call.sender ?? "")
            return []
        }
        characteristic.addMethod("StartNotify") { [self] _ in
            guard flags.contains("notify") || flags.contains("indicate") else {
                throw DBusError(name: "org.bluez.Error.NotSupported", message: "Operation is not supported", bus: "")
            }
            state.withLock { _ = $0.notifying.insert(uuid) }
            try exported.withLock { $0 }?.setValue(true, for: "Notifying")
            return []
        }
        characteristic.addMethod("StopNotify") { [self] _ in
            state.withLock { _ = $0.notifying.remove(uuid) }
            try exported.withLock { $0 }?.setValue(false, for: "Notifying")
            return []
        }
        let object = try await bluez.connection.export(characteristic, at: path)
        exported.withLock { $0 = object }
        object.announce()
        return object
    }

    /// A GATT handle as BlueZ writes it in paths: four hex digits.
    private static func handle(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
