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
    /// What the run's notifications are read against (revolution counts, total distances).
    let samples: Locked<SensorSamples>
    var configuration: BluetoothSensor.Configuration { runner.configuration }

    /// The characteristics read for samples.
    static let measurements: Set<String> = [
        BluetoothUUID.heartRateMeasurement, BluetoothUUID.cscMeasurement, BluetoothUUID.cyclingPowerMeasurement,
        BluetoothUUID.rscMeasurement, BluetoothUUID.indoorBikeData, BluetoothUUID.treadmillData,
    ]

    func run() async -> Outcome {
        // The process's one connection to the bus, which every sensor and GeoClue share.
        let bus: DBusConnection
        do {
            bus = try DBusConnection.shared(configuration.bus)
        } catch {
            return .failed(.bluezUnavailable(bus: error.bus, reason: error.message), wasConnected: false)
        }
        let notifying = Locked<(device: String?, characteristics: [String])>((nil, []))
        let connected = Locked(false)
        let controlLink = Locked<UInt64?>(nil)
        let outcome: Outcome
        do {
            try await connectAndRead(on: bus, notifying: notifying, connected: connected, controlLink: controlLink)
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
        if let link = controlLink.withLock({ $0 }) { runner.controlPoint.detach(link) }
        ended(wasConnected: connected.withLock { $0 })
        // Notifications off and the device let go, whatever ended the connection: in a task of its
        // own, as this one may be cancelled (which would cancel the calls at once).
        let (device, characteristics) = notifying.withLock { $0 }
        await Task {
            for path in characteristics {
                _ = try? await bus.call(BlueZ.service, path: path, interface: "org.bluez.GattCharacteristic1", member: "StopNotify", timeout: .seconds(2))  // best effort: a device gone notifies nothing
            }
            if let device, case .stopped = outcome {
                _ = try? await bus.call(BlueZ.service, path: device, interface: "org.bluez.Device1", member: "Disconnect", timeout: .seconds(2))  // best effort: a device gone needs no disconnecting
            }
            bus.close()
        }.value
        return outcome
    }

    /// Finds the device, connects, subscribes to its measurements, and hands their samples to the
    /// runner until the device disconnects (returns) or the task is cancelled (throws).
    private func connectAndRead(
        on bus: DBusConnection, notifying: Locked<(device: String?, characteristics: [String])>, connected: Locked<Bool>, controlLink: Locked<UInt64?>
    ) async throws {
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
        // The device's own properties from here (Device1's Connected and ServicesResolved,
        // Battery1's Percentage); its characteristics' values come to handlers below.
        let changes = try await bus.signals(
            matching: .propertiesChanged(sender: BlueZ.service, path: device.path), as: DBusPropertiesChanged<DeviceChanges>.self)
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
        try await readFitnessMachine(characteristics, on: bus)
        // Measurements are read on the bus's thread, straight from the messages: one handler per
        // characteristic, whose match rule names it (so its path and interface need not be
        // read), in batches. A sensor sending faster than one notification per read interval
        // (a power meter at 50 Hz, a bench at 1,000) is read once per interval, and its samples
        // handed to the session together: the connection's thread and the session's reader then
        // wake once per interval, not once per notification, which at a thousand a second cost
        // more than everything else about a measurement.
        var handlers: [DBusRegistration] = []
        defer { handlers.forEach { $0.cancel() } }
        for (path, uuid) in measured {
            handlers.append(try await bus.onSignals(
                matching: .propertiesChanged(sender: BlueZ.service, path: path, interface: "org.bluez.GattCharacteristic1"), as: NotifiedValue.self,
                readingAtMostEvery: configuration.readInterval
            ) { [self] notifications in
                take(notifications, of: uuid)
            })
        }
        let machine = try await subscribeToFitnessMachine(characteristics, on: bus)
        handlers += machine.handlers
        for path in measured.keys.sorted() + machine.notified {
            _ = try await bus.call(BlueZ.service, path: path, interface: "org.bluez.GattCharacteristic1", member: "StartNotify", timeout: configuration.connectTimeout)
            notifying.withLock { $0.characteristics.append(path) }
        }
        if let controlPoint = machine.controlPoint {
            let link = runner.controlPoint.attach(bus: bus, path: controlPoint)
            controlLink.withLock { $0 = link }
        }
        connected.withLock { $0 = true }
        runner.update(generation: generation) { $0.services = current.workoutServices.filter { $0 != "battery" } }
        // Whether control had been given is read before anyone hears of this connection: control
        // asked for on it (once it is said connected) is not asked for again by the restore.
        let hadControl = runner.wantsControl.withLock { $0 }
        runner.connected(generation: generation)
        // A machine set before the connection dropped is set again, while its data are read.
        let restoring = Task { [runner, generation] in
            guard hadControl else { return }
            await FitnessMachineControl(runner: runner).restore(generation: generation)
        }
        defer { restoring.cancel() }
        while let change = await iterator.next() {
            try Task.checkCancellation()
            let properties = change.arguments.changed
            if properties.connected == false {
                throw BluetoothError.connectionFailed(address: configuration.address, reason: "the device disconnected")
            }
            if let percent = properties.percentage { runner.update(generation: generation) { $0.batteryPercent = percent } }
        }
        try Task.checkCancellation()
    }

    /// A measurement's notifications of one read of the bus, on the bus's thread: their samples
    /// handed to the runner together (or their malformations counted).
    private func take(_ notifications: [NotifiedValue], of uuid: String) {
        var taken: [QuantitySample] = []
        var read = 0
        var dropped: [String: Int] = [:]
        // A machine's heart rate waits while a strap gives one (asked once a batch).
        let strapGives = (uuid == BluetoothUUID.indoorBikeData || uuid == BluetoothUUID.treadmillData)
            && StrapHeartRates.anyGiving(on: "\(configuration.bus)")
        let (readings, strapChanged) = samples.withLock { samples -> (MeasuredReadings, Bool?) in
            let before = samples.readings.strapGivesHeartRate
            for notification in notifications {
                guard let bytes = notification.bytes else { continue }
                do throws(MalformedNotification) {
                    taken += try samples.samples(of: uuid, bytes, at: runner.now(), now: runner.clock.now, strapGivesHeartRate: strapGives)
                    read += 1
                } catch {
                    runner.logger.debug("a notification was dropped", metadata: ["reason": "\(error)"])
                    dropped[error.reasonKey, default: 0] += 1
                }
            }
            let after = samples.readings.strapGivesHeartRate
            return (samples.readings, after != before ? after : nil)
        }
        if let strapChanged { StrapHeartRates.set(strapChanged, bus: "\(configuration.bus)", address: configuration.address) }
        if read > 0 { runner.deliver(taken, notifications: read, generation: generation) { readings.apply(to: &$0) } }
        if !dropped.isEmpty { runner.update(generation: generation) { $0.dropped.merge(dropped, uniquingKeysWith: +) } }
    }

    /// The connection ended: a strap no longer gives a heart rate; a machine's control is lost.
    private func ended(wasConnected: Bool) {
        samples.withLock { $0.readings.strapGivesHeartRate = nil }
        StrapHeartRates.set(false, bus: "\(configuration.bus)", address: configuration.address)
        guard wasConnected else { return }
        runner.update(generation: generation) { status in
            if status.fitnessMachine?.control == .granted { status.fitnessMachine?.control = .lost }
        }
    }

    /// Scans until BlueZ knows the device (it advertises), for at most the connect timeout.
    private func discover(on bus: DBusConnection, adapter: BluetoothAdapter) async throws -> BluetoothDevice {
        let proxy = DBusProxy(bus, destination: BlueZ.service, path: adapter.path, interface: "org.bluez.Adapter1")
        let added = try await bus.signals(matching: .interfacesAdded(sender: BlueZ.service), as: DBusInterfacesAdded<BlueZObject>.self)
        _ = try await proxy.call("SetDiscoveryFilter", [.variantDictionary(["UUIDs": .stringArray(BluetoothUUID.workoutServices), "Transport": "le"])])
        do {
            try await proxy.call("StartDiscovery")
        } catch let error as DBusError where error.name.rawValue == "org.bluez.Error.InProgress" {
            // Another program scans already.
        }
        defer { Task { _ = try? await proxy.call("StopDiscovery", timeout: .seconds(2)) } }  // best effort: BlueZ ends our scan when we leave the bus
        let address = configuration.address
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await signal in added where signal.arguments.interfaces.device?.address?.uppercased() == address {
                    return true
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
    private func waitForServices(
        of path: String, in iterator: inout AsyncStream<DBusTypedSignal<DBusPropertiesChanged<DeviceChanges>>>.Iterator
    ) async throws {
        while let change = await iterator.next() {
            let properties = change.arguments.changed
            if properties.connected == false {
                throw BluetoothError.connectionFailed(address: configuration.address, reason: "the device disconnected while its services were resolved")
            }
            if properties.servicesResolved == true { return }
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
                  let bytes = try? await Self.read(path, on: bus), let level = try? BatteryLevel(bytes: bytes) {  // optional: a device without it shows none
            runner.update(generation: generation) { $0.batteryPercent = level.percent }
        }
        if let path = characteristics.first(where: { $0.value == BluetoothUUID.bodySensorLocation })?.key,
           let bytes = try? await Self.read(path, on: bus), let location = try? BodySensorLocation(bytes: bytes) {  // optional: a device without it shows none
            runner.update(generation: generation) { $0.bodySensorLocation = location }
        }
    }

    /// A characteristic's value (`ReadValue`).
    static func read(_ path: String, on bus: DBusConnection) async throws -> [UInt8] {
        try await bus.call(
            BlueZ.service, path: path, interface: "org.bluez.GattCharacteristic1", member: "ReadValue", [.variantDictionary([:])],
            returning: [UInt8].self, timeout: .seconds(5))
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

