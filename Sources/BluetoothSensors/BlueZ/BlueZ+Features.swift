import DBus
import LocationCore

extension BlueZ {
    /// What `device` says it measures and takes, if it is a foot pod or a fitness machine (its
    /// RSC or Fitness Machine service): ``BluetoothDeviceFeatures``, read from its characteristics.
    /// A device that is neither gives nothing, without a connection. One that is not connected is
    /// connected for the reading (within `timeout` of `clock`), then disconnected; one another
    /// program connected is read on that connection, and left connected.
    ///
    /// - Throws: ``BluetoothError/connectionFailed(address:reason:)`` when it cannot be connected,
    ///   or its services are not resolved within `timeout`; `CancellationError`.
    public func features(
        of device: BluetoothDevice, timeout: Duration = .seconds(10), clock: some Clock<Duration> = ContinuousClock()
    ) async throws -> BluetoothDeviceFeatures {
        guard device.serviceUUIDs.contains(where: { [BluetoothUUID.rscService, BluetoothUUID.fitnessMachineService].contains($0) }) else {
            return BluetoothDeviceFeatures()
        }
        let changes = try await connection.signals(
            matching: .propertiesChanged(sender: Self.service, path: device.path), as: DBusPropertiesChanged<DeviceChanges>.self)
        var connectedHere = false
        if !device.isConnected {
            do {
                _ = try await connection.call(Self.service, path: device.path, interface: "org.bluez.Device1", member: "Connect", timeout: timeout)
                connectedHere = true
            } catch let error as DBusError where error.name.rawValue == "org.bluez.Error.AlreadyConnected" {
                // Another program was quicker: read on its connection.
            } catch let error as DBusError {
                throw SensorConnection.bluetoothError(error, address: device.address)
            }
        }
        do {
            if try await BlueZObjects.load(from: connection).device(address: device.address)?.servicesResolved != true {
                try await Self.waitForServices(of: device, in: changes, timeout: timeout, clock: ElapsedClock(clock))
            }
            let features = await BluetoothDeviceFeatures.read(try await BlueZObjects.load(from: connection).characteristics(of: device.path), on: connection)
            if connectedHere { await disconnect(device) }
            return features
        } catch {
            if connectedHere { await disconnect(device) }
            throw error
        }
    }

    /// Lets go of a device this connected (in a task of its own: the caller's may be cancelled).
    private func disconnect(_ device: BluetoothDevice) async {
        await Task { [connection] in
            // A device already gone needs no disconnecting.
            _ = try? await connection.call(Self.service, path: device.path, interface: "org.bluez.Device1", member: "Disconnect", timeout: .seconds(2))
        }.value
    }

    /// Returns once BlueZ says it resolved `device`'s services; throws when it disconnects first,
    /// or `timeout` passes.
    private static func waitForServices(
        of device: BluetoothDevice, in changes: AsyncStream<DBusTypedSignal<DBusPropertiesChanged<DeviceChanges>>>, timeout: Duration,
        clock: ElapsedClock
    ) async throws {
        let resolved = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await change in changes {
                    if change.arguments.changed.connected == false { return false }
                    if change.arguments.changed.servicesResolved == true { return true }
                }
                return false
            }
            group.addTask {
                try await clock.sleep(for: timeout)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard resolved else {
            throw BluetoothError.connectionFailed(address: device.address, reason: "its services were not resolved within \(LocationError.format(timeout))")
        }
    }
}
