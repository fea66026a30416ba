import BluetoothSensors
import DBus
import GPSCore

/// A fake treadmill's or trainer's Fitness Machine service: its characteristics, its control
/// point, and the faults a test gives it.
extension FakeBluetoothDevice {
    /// A GATT characteristic of a fake device: its UUID, its flags as BlueZ lists them, its value.
    struct Characteristic {
        let uuid: String
        let flags: [String]
        let value: [UInt8]
    }

    /// The characteristics of `sensor`'s service, its measurement first.
    func gattCharacteristics(of sensor: Sensor) -> [Characteristic] {
        switch sensor {
        case .heartRate:
            return [
                Characteristic(uuid: sensor.measurementUUID, flags: ["notify"], value: []),
                Characteristic(uuid: BluetoothUUID.bodySensorLocation, flags: ["read"], value: [BodySensorLocation.chest.rawValue]),
            ]
        case .speedAndCadence, .power:
            return [Characteristic(uuid: sensor.measurementUUID, flags: ["notify"], value: [])]
        case .runningSpeedAndCadence:
            return [
                Characteristic(uuid: sensor.measurementUUID, flags: ["notify"], value: []),
                Characteristic(uuid: BluetoothUUID.rscFeature, flags: ["read"], value: rscFeature.bytes),
            ]
        case .treadmill, .indoorBike:
            guard let machine = fitnessMachine else { return [] }
            let ranges: [(SupportedRange.Kind, String)] = [
                (.speed, BluetoothUUID.supportedSpeedRange), (.inclination, BluetoothUUID.supportedInclinationRange),
                (.resistanceLevel, BluetoothUUID.supportedResistanceLevelRange), (.heartRate, BluetoothUUID.supportedHeartRateRange),
                (.power, BluetoothUUID.supportedPowerRange),
            ]
            return [
                Characteristic(uuid: BluetoothUUID.fitnessMachineFeature, flags: ["read"], value: machine.feature.bytes),
                Characteristic(uuid: sensor.measurementUUID, flags: ["notify"], value: []),
                Characteristic(uuid: BluetoothUUID.trainingStatus, flags: ["read", "notify"], value: TrainingStatus(status: .idle).bytes),
            ] + ranges.compactMap { kind, uuid in
                machine.range(kind).map { Characteristic(uuid: uuid, flags: ["read"], value: $0.bytes) }
            } + [
                Characteristic(uuid: BluetoothUUID.fitnessMachineControlPoint, flags: ["write", "indicate"], value: []),
                Characteristic(uuid: BluetoothUUID.fitnessMachineStatus, flags: ["notify"], value: []),
            ]
        }
    }

    /// `WriteValue` of `bytes` to the characteristic `uuid` by `client`: a control point request,
    /// answered by an indication (held back while ``holdResponses()`` says so), and a status when a
    /// target changed. Throws BlueZ's error for a control point whose indications are off, as a
    /// machine answers the write with "CCC Improperly Configured".
    func written(_ bytes: [UInt8], to uuid: String, by client: String) throws {
        guard uuid == BluetoothUUID.fitnessMachineControlPoint else { return }
        let outcome = state.withLock { state -> (answer: DBusExportedInterface?, response: [UInt8], status: (DBusExportedInterface, [UInt8])?)? in
            guard var machine = state.machine, state.notifying.contains(uuid) else { return nil }
            state.writes.append(bytes)
            let (response, status) = machine.handle(bytes, from: client)
            state.machine = machine
            let notified = status.flatMap { status in
                state.notifying.contains(BluetoothUUID.fitnessMachineStatus)
                    ? state.characteristics[BluetoothUUID.fitnessMachineStatus].map { ($0, status.bytes) } : nil
            }
            if state.heldResponses != nil {
                state.heldResponses?.append(response.bytes)
                return (nil, response.bytes, notified)
            }
            return (state.characteristics[uuid], response.bytes, notified)
        }
        guard let outcome else {
            throw DBusError(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0xfd", bus: "")
        }
        if let answer = outcome.answer { notify(answer, outcome.response) }
        if let (characteristic, bytes) = outcome.status { notify(characteristic, bytes) }
    }

    // MARK: - For tests

    /// The fitness machine behind its Fitness Machine service, as it is now (`nil` for a device
    /// that is none): its mode, targets, power, speed, controller, the requests it read.
    public var fitnessMachine: FakeFitnessMachine? {
        state.withLock { $0.machine }
    }

    /// Changes its fitness machine: its rider (`$0.rider = .init(power: 250, cadence: 95)`), whether
    /// it refuses control, its ranges (for the next connection).
    public func updateFitnessMachine(_ change: @Sendable (inout FakeFitnessMachine) -> Void) {
        state.withLock { state in
            guard var machine = state.machine else { return }
            change(&machine)
            state.machine = machine
        }
    }

    /// Every value written to its control point, in order.
    public var controlPointWrites: [[UInt8]] {
        state.withLock { $0.writes }
    }

    /// Returns once `count` values have been written to its control point in all (at once if
    /// they have), or when the task is cancelled: for a test.
    package func waitUntil(controlPointWrites count: Int) async {
        await state.waitUntil { $0.writes.count >= count }
    }

    /// Holds back its control point's answers until ``releaseResponses()``: a machine slower than
    /// its client's timeout.
    public func holdResponses() {
        state.withLock { $0.heldResponses = $0.heldResponses ?? [] }
    }

    /// Sends the answers held back, in order (to a client that may have given up on them), and
    /// answers at once again.
    public func releaseResponses() {
        let (held, characteristic) = state.withLock { state in
            defer { state.heldResponses = nil }
            return (state.heldResponses ?? [], state.characteristics[BluetoothUUID.fitnessMachineControlPoint])
        }
        guard let characteristic else { return }
        for bytes in held { notify(characteristic, bytes) }
    }

    /// Another central (a phone, a head unit) takes control, as a machine allows one at a time: a
    /// client that held it is told so (Control Permission Lost), and its requests are refused.
    public func giveControl(toAnotherCentral name: String = "another central") {
        let lost = state.withLock { state -> DBusExportedInterface? in
            let held = state.machine?.controller != nil
            state.machine?.controller = name
            guard held, state.notifying.contains(BluetoothUUID.fitnessMachineStatus) else { return nil }
            return state.characteristics[BluetoothUUID.fitnessMachineStatus]
        }
        if let lost { notify(lost, FitnessMachineStatus.controlPermissionLost.bytes) }
    }

    /// Sends a Fitness Machine Status (a user stopping it, a target changed on its buttons).
    /// Returns whether a client had notifications on.
    @discardableResult
    public func send(_ status: FitnessMachineStatus) -> Bool {
        let characteristic = state.withLock { state -> DBusExportedInterface? in
            guard state.notifying.contains(BluetoothUUID.fitnessMachineStatus) else { return nil }
            return state.characteristics[BluetoothUUID.fitnessMachineStatus]
        }
        guard let characteristic else { return false }
        notify(characteristic, status.bytes)
        return true
    }

    /// Sends its next `count` measurements a byte short, as a device whose notification was cut:
    /// the field its flags announce last is missing.
    public func truncateMeasurements(_ count: Int) {
        state.withLock { $0.truncating += max(0, count) }
    }
}
