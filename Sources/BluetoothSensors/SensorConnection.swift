#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import GPSCore

/// One connection to a sensor, from finding it to losing it (or being stopped): BlueZ's `Device1`,
/// `GattService1` and `GattCharacteristic1` objects, as its D-Bus API documents them.
struct SensorConnection {
    /// How a connection ended.
    enum Outcome: Sendable {
        /// The sensor was stopped (and disconnected).
        case stopped
        /// The connection could not be made, or was lost; `wasConnected` once it had been up.
        case failed(BluetoothError, wasConnected: Bool)
    }

    let runner: SensorRunner
    let generation: UInt64
    private var configuration: BluetoothSensor.Configuration { runner.configuration }

    /// The characteristics read for samples.
    static let measurements: Set<String> = [BluetoothUUID.heartRateMeasurement, BluetoothUUID.cscMeasurement, BluetoothUUID.cyclingPowerMeasurement]

    func run() async -> Outcome {
        let bus: DBusConnection
        do {
            bus = try DBusConnection(configuration.bus)
        } catch {
            return .failed(.bluezUnavailable(bus: error.bus, reason: error.message), wasConnected: false)
        }
        let notifying = Locked<(device: String?, characteristics: [String])>((nil, []))
        let connected = Locked(false)
        let outcome: Outcome
        do {
            try await connectAndRead(on: bus, notifying: notifying, connected: connected)
            outcome = .failed(.connectionFailed(address: configuration.address, reason: "the bus closed the connection"), wasConnected: true)
        } catch is CancellationError {
            outcome = .stopped
        } catch let error as BluetoothError {
            outcome = .failed(error, wasConnected: connected.withLock { $0 })
        } catch let error as DBusError {
            outcome = .failed(Self.bluetoothError(error, address: configuration.address), wasConnected: connected.withLock { $0 })
        } catch {
            outcome = .failed(.connectionFailed(address: configuration.address, reason: "\(error)"), wasConnected: connected.withLock { $0 })
        }
        // Notifications off and the device let go, whatever ended the connection: in a task of its
        // own, as this one may be cancelled (which would cancel the calls at once).
        let (device, characteristics) = notifying.withLock { $0 }
        await Task {
            for path in characteristics {
                _ = try? await bus.call(BlueZ.service, path: path, interface: "org.bluez.GattCharacteristic1", member: "StopNotify", timeout: .seconds(2))
            }
            if let device, case .stopped = outcome {
                _ = try? await bus.call(BlueZ.service, path: device, interface: "org.bluez.Device1", member: "Disconnect", timeout: .seconds(2))
            }
            bus.close()
        }.value
        return outcome
    }

    /// Finds the device, connects, subscribes to its measurements, and hands their samples to the
    /// runner until the device disconnects (returns) or the task is cancelled (throws).
    private func connectAndRead(on bus: DBusConnection, notifying: Locked<(device: String?, characteristics: [String])>, connected: Locked<Bool>) async throws {
        var objects = try await BlueZObjects.load(from: bus)
        guard let firstAdapter = objects.adapters.first else { throw BluetoothError.noAdapter(bus: "\(configuration.bus)") }
        guard let adapter = objects.adapters.first(where: \.isPowered) else { throw BluetoothError.adapterOff(adapter: firstAdapter.name) }
        let device: BluetoothDevice
        if let known = objects.device(address: configuration.address) {
            device = known
        } else {
            device = try await discover(on: bus, adapter: adapter)
        }
        runner.update(generation: generation) { $0.name = device.name }
        // The device's own properties from here (Connected, ServicesResolved); its battery's and
        // its characteristics' values come to a handler below.
        let changes = try await bus.signals(matching: DBusMatchRule(
            sender: BlueZ.service, pathNamespace: device.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [0: "org.bluez.Device1"]))
        var iterator = changes.makeAsyncIterator()
        // A device another program connected is used as it is, and left connected at the end;
        // one we connect, we disconnect.
        if !device.isConnected {
            notifying.withLock { $0.device = device.path }
            do {
                _ = try await bus.call(BlueZ.service, path: device.path, interface: "org.bluez.Device1", member: "Connect", timeout: configuration.connectTimeout)
            } catch let error as DBusError where error.name.rawValue == "org.bluez.Error.AlreadyConnected" {
                notifying.withLock { $0.device = nil }  // another program was quicker
            }
        }
        // BlueZ has found the device's services once ServicesResolved is true.
        objects = try await BlueZObjects.load(from: bus)
        if objects.device(address: configuration.address)?.servicesResolved != true {
            try await waitForServices(of: device.path, in: &iterator)
            objects = try await BlueZObjects.load(from: bus)
        }
        let characteristics = objects.characteristics(of: device.path)
        let measured = characteristics.filter { Self.measurements.contains($0.value) }
        let current = objects.device(address: configuration.address) ?? device
        guard !measured.isEmpty else {
            throw BluetoothError.noWorkoutService(address: configuration.address, services: current.serviceUUIDs.map(BluetoothUUID.serviceName))
        }
        try await readOnce(characteristics, device: current, on: bus)
        // Measurements are read on the bus's thread as they come: through a stream, each would
        // wake a thread of the task reading it, which at a thousand a second cost more than
        // everything else about a measurement.
        let measurements = try await bus.onSignals(matching: DBusMatchRule(
            sender: BlueZ.service, pathNamespace: device.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"
        )) { [runner, generation, samples = Locked(SensorSamples(wheelCircumference: configuration.wheelCircumference))] change in
            Self.read(change, characteristics: characteristics, samples: samples, runner: runner, generation: generation)
        }
        defer { measurements.cancel() }
        for path in measured.keys.sorted() {
            _ = try await bus.call(BlueZ.service, path: path, interface: "org.bluez.GattCharacteristic1", member: "StartNotify", timeout: configuration.connectTimeout)
            notifying.withLock { $0.characteristics.append(path) }
        }
        connected.withLock { $0 = true }
        runner.update(generation: generation) { $0.services = current.workoutServices.filter { $0 != "battery" } }
        runner.connected(generation: generation)
        while let change = await iterator.next() {
            try Task.checkCancellation()
            guard change.path == device.path, let properties = change.arguments.dropFirst().first?.stringKeyedValue else { continue }
            if properties["Connected"]?.boolValue == false {
                throw BluetoothError.connectionFailed(address: configuration.address, reason: "the device disconnected")
            }
        }
        try Task.checkCancellation()
    }

    /// A change of the battery's or a characteristic's properties, on the bus's thread: a
    /// battery level, or a measurement's samples handed to the runner (or its malformation counted).
    private static func read(
        _ change: DBusSignal, characteristics: [String: String], samples: Locked<SensorSamples>, runner: SensorRunner, generation: UInt64
    ) {
        guard change.arguments.count >= 2, let interface = change.arguments[0].stringValue,
              let properties = change.arguments[1].stringKeyedValue
        else { return }
        switch interface {
        case "org.bluez.Battery1":
            if let percent = properties["Percentage"]?.intValue { runner.update(generation: generation) { $0.batteryPercent = percent } }
        case "org.bluez.GattCharacteristic1":
            guard let uuid = characteristics[change.path], let bytes = properties["Value"]?.bytes else { return }
            if uuid == BluetoothUUID.batteryLevel, let level = try? BatteryLevel(bytes: bytes) {
                runner.update(generation: generation) { $0.batteryPercent = level.percent }
                return
            }
            do {
                let taken = try samples.withLock { samples throws(MalformedNotification) in
                    try samples.samples(of: uuid, bytes, at: runner.now(), now: runner.clock.now)
                }
                runner.deliver(taken, generation: generation)
            } catch {
                runner.logger.debug("a notification was dropped", metadata: ["reason": "\(error)"])
                runner.update(generation: generation) { $0.dropped[error.reasonKey, default: 0] += 1 }
            }
        default:
            return
        }
    }

    /// Scans until BlueZ knows the device (it advertises), for at most the connect timeout.
    private func discover(on bus: DBusConnection, adapter: BluetoothAdapter) async throws -> BluetoothDevice {
        let proxy = DBusProxy(bus, destination: BlueZ.service, path: adapter.path, interface: "org.bluez.Adapter1")
        let added = try await bus.signals(matching: DBusMatchRule(
            sender: BlueZ.service, path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded"))
        _ = try await proxy.call("SetDiscoveryFilter", [.variantDictionary(["UUIDs": .stringArray(BluetoothUUID.workoutServices), "Transport": "le"])])
        do {
            try await proxy.call("StartDiscovery")
        } catch let error as DBusError where error.name.rawValue == "org.bluez.Error.InProgress" {
            // Another program scans already.
        }
        defer { Task { _ = try? await proxy.call("StopDiscovery", timeout: .seconds(2)) } }
        let address = configuration.address
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await signal in added where signal.arguments.count == 2 {
                    let device = signal.arguments[1].stringKeyedValue?["org.bluez.Device1"]?.stringKeyedValue
                    if device?["Address"]?.stringValue?.uppercased() == address { return true }
                }
                return false
            }
            group.addTask { [clock = runner.clock, timeout = configuration.connectTimeout] in
                try await clock.sleep(for: timeout)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard found, let device = try await BlueZObjects.load(from: bus).device(address: address) else {
            throw BluetoothError.deviceNotFound(address: address)
        }
        return device
    }

    /// Waits until BlueZ says it has resolved the device's services (or that it disconnected).
    private func waitForServices(of path: String, in iterator: inout AsyncStream<DBusSignal>.Iterator) async throws {
        while let change = await iterator.next() {
            guard change.path == path, change.arguments.first?.stringValue == "org.bluez.Device1",
                  let properties = change.arguments.dropFirst().first?.stringKeyedValue
            else { continue }
            if properties["Connected"]?.boolValue == false {
                throw BluetoothError.connectionFailed(address: configuration.address, reason: "the device disconnected while its services were resolved")
            }
            if properties["ServicesResolved"]?.boolValue == true { return }
        }
        try Task.checkCancellation()
        throw BluetoothError.connectionFailed(address: configuration.address, reason: "the bus closed the connection")
    }

    /// Reads what is read once: the battery (BlueZ's `Battery1`, or the Battery Level
    /// characteristic), and where a strap is worn.
    private func readOnce(_ characteristics: [String: String], device: BluetoothDevice, on bus: DBusConnection) async throws {
        if let percent = device.batteryPercent {
            runner.update(generation: generation) { $0.batteryPercent = percent }
        } else if let path = characteristics.first(where: { $0.value == BluetoothUUID.batteryLevel })?.key,
                  let bytes = try? await Self.read(path, on: bus), let level = try? BatteryLevel(bytes: bytes) {
            runner.update(generation: generation) { $0.batteryPercent = level.percent }
        }
        if let path = characteristics.first(where: { $0.value == BluetoothUUID.bodySensorLocation })?.key,
           let bytes = try? await Self.read(path, on: bus), let location = try? BodySensorLocation(bytes: bytes) {
            runner.update(generation: generation) { $0.bodySensorLocation = location }
        }
    }

    /// A characteristic's value (`ReadValue`).
    static func read(_ path: String, on bus: DBusConnection) async throws -> [UInt8] {
        let reply = try await bus.call(
            BlueZ.service, path: path, interface: "org.bluez.GattCharacteristic1", member: "ReadValue", [.variantDictionary([:])],
            timeout: .seconds(5))
        return reply.first?.bytes ?? []
    }

    /// What a D-Bus failure means for a sensor.
    static func bluetoothError(_ error: DBusError, address: String) -> BluetoothError {
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner, .noServer:
            .bluezUnavailable(bus: error.bus, reason: error.name == .noServer ? error.message : "no program owns org.bluez there")
        case .unknownObject:
            .deviceNotFound(address: address)
        default:
            .connectionFailed(address: address, reason: "\(error.member ?? "a call") answered \(error.name)\(error.message.isEmpty ? "" : ": \(error.message)")")
        }
    }
}

extension DBusValue {
    /// The bytes of an array of bytes (`ay`), such as a characteristic's `Value`.
    var bytes: [UInt8]? {
        guard let elements = arrayValue else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements {
            guard case let .byte(byte) = element else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
