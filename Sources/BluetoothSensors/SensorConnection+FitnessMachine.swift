import DBus

/// What a connection reads of a foot pod and a fitness machine besides their measurements: the
/// RSC Feature, the Fitness Machine Feature and Supported Ranges once, and the machine's status,
/// training status and control point's answers as they come.
extension SensorConnection {
    /// The characteristics of a fitness machine a connection turns on, and its control point.
    struct FitnessMachineSubscription {
        var handlers: [DBusRegistration] = []
        /// The paths to turn notifications (or indications) on for.
        var notified: [String] = []
        /// The control point's path, when the machine has one.
        var controlPoint: String?
    }

    /// The ranges' characteristics, by what they are the range of.
    static let rangeCharacteristics: [(SupportedRange.Kind, String)] = [
        (.speed, BluetoothUUID.supportedSpeedRange), (.inclination, BluetoothUUID.supportedInclinationRange),
        (.resistanceLevel, BluetoothUUID.supportedResistanceLevelRange), (.heartRate, BluetoothUUID.supportedHeartRateRange),
        (.power, BluetoothUUID.supportedPowerRange),
    ]

    /// Reads a foot pod's RSC Feature, and a fitness machine's Feature, Supported Ranges and
    /// Training Status, into the status. A value that is not what its specification says is
    /// counted as dropped, and left out.
    func readFitnessMachine(_ characteristics: [String: String], on bus: DBusConnection) async throws {
        func path(_ uuid: String) -> String? { characteristics.first { $0.value == uuid }?.key }
        var dropped: [String: Int] = [:]
        func value<Value>(_ uuid: String, _ decode: ([UInt8]) throws(MalformedNotification) -> Value) async -> Value? {
            // A characteristic that cannot be read is one the machine does not give us: left out.
            guard let path = path(uuid), let bytes = try? await Self.read(path, on: bus) else { return nil }
            do throws(MalformedNotification) {
                return try decode(bytes)
            } catch {
                runner.logger.debug("a value read was dropped", metadata: ["reason": "\(error)"])
                dropped[error.reasonKey, default: 0] += 1
                return nil
            }
        }
        let rscFeature = await value(BluetoothUUID.rscFeature) { bytes throws(MalformedNotification) in try RSCFeature(bytes: bytes) }
        let uuids = Set(characteristics.values)
        let kind: BluetoothSensorStatus.FitnessMachine.Kind? =
            uuids.contains(BluetoothUUID.indoorBikeData) ? .indoorBike
            : uuids.contains(BluetoothUUID.treadmillData) ? .treadmill
            : uuids.contains(BluetoothUUID.fitnessMachineFeature) || uuids.contains(BluetoothUUID.fitnessMachineControlPoint) ? .other : nil
        var feature: FitnessMachineFeature?
        var ranges: [SupportedRange.Kind: SupportedRange] = [:]
        var training: TrainingStatus?
        if kind != nil {
            feature = await value(BluetoothUUID.fitnessMachineFeature) { bytes throws(MalformedNotification) in try FitnessMachineFeature(bytes: bytes) }
            for (range, uuid) in Self.rangeCharacteristics {
                ranges[range] = await value(uuid) { bytes throws(MalformedNotification) in try SupportedRange(range, bytes: bytes) }
            }
            training = await value(BluetoothUUID.trainingStatus) { bytes throws(MalformedNotification) in try TrainingStatus(bytes: bytes) }
        }
        runner.update(generation: generation) { status in
            if let rscFeature { status.rscFeature = rscFeature }
            status.dropped.merge(dropped, uniquingKeysWith: +)
            guard let kind else { return }
            // Kept across connections: the targets, the control, what was set again.
            var machine = status.fitnessMachine ?? BluetoothSensorStatus.FitnessMachine(kind: kind)
            machine.kind = kind
            machine.feature = feature ?? machine.feature
            machine.ranges = ranges.isEmpty ? machine.ranges : ranges
            machine.trainingStatus = training ?? machine.trainingStatus
            status.fitnessMachine = machine
        }
    }

    /// Handlers for a machine's Fitness Machine Status, Training Status and control point, each
    /// read on the bus's thread as it comes.
    func subscribeToFitnessMachine(_ characteristics: [String: String], on bus: DBusConnection) async throws -> FitnessMachineSubscription {
        var subscription = FitnessMachineSubscription()
        for (path, uuid) in characteristics.sorted(by: { $0.key < $1.key }) {
            let handle: @Sendable ([UInt8]) -> Void
            switch uuid {
            case BluetoothUUID.fitnessMachineStatus: handle = { [self] bytes in machineStatus(bytes) }
            case BluetoothUUID.trainingStatus: handle = { [self] bytes in trainingStatus(bytes) }
            case BluetoothUUID.fitnessMachineControlPoint:
                handle = { [runner, generation] bytes in
                    guard !runner.controlPoint.indicated(bytes) else { return }
                    runner.update(generation: generation) { $0.fitnessMachine?.lateResponses += 1 }
                }
                subscription.controlPoint = path
            default: continue
            }
            subscription.handlers.append(try await bus.onSignals(
                matching: .propertiesChanged(sender: BlueZ.service, path: path, interface: "org.bluez.GattCharacteristic1"), as: NotifiedValue.self
            ) { signal in
                if let bytes = signal.arguments.bytes { handle(bytes) }
            })
            subscription.notified.append(path)
        }
        return subscription
    }

    /// A Fitness Machine Status: the status and the targets say it; control taken back is not
    /// asked for again.
    private func machineStatus(_ bytes: [UInt8]) {
        do throws(MalformedNotification) {
            let status = try FitnessMachineStatus(bytes: bytes)
            let takenBack = status == .controlPermissionLost || status == .reset
            if takenBack { runner.wantsControl.withLock { $0 = false } }
            runner.update(generation: generation) { sensor in
                sensor.fitnessMachine?.lastStatus = status
                sensor.fitnessMachine?.targets.take(status)
                if takenBack { sensor.fitnessMachine?.control = .lost }
            }
        } catch {
            runner.update(generation: generation) { $0.dropped[error.reasonKey, default: 0] += 1 }
        }
    }

    /// A Training Status, into the status.
    private func trainingStatus(_ bytes: [UInt8]) {
        do throws(MalformedNotification) {
            let training = try TrainingStatus(bytes: bytes)
            runner.update(generation: generation) { $0.fitnessMachine?.trainingStatus = training }
        } catch {
            runner.update(generation: generation) { $0.dropped[error.reasonKey, default: 0] += 1 }
        }
    }
}
