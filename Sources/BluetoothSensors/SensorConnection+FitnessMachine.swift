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

    /// Reads a foot pod's RSC Feature, and a fitness machine's Feature, Supported Ranges and
    /// Training Status (``BluetoothDeviceFeatures``), into the status. A value that is not what its
    /// specification says is counted as dropped, and left out.
    func readFitnessMachine(_ characteristics: [String: String], on bus: DBusConnection) async throws {
        let features = await BluetoothDeviceFeatures.read(characteristics, on: bus)
        if !features.dropped.isEmpty { runner.logger.debug("values read were dropped", metadata: ["reasons": "\(features.dropped)"]) }
        runner.update(generation: generation) { status in
            if let rsc = features.rsc { status.rscFeature = rsc }
            status.dropped.merge(features.dropped, uniquingKeysWith: +)
            guard let read = features.fitnessMachine else { return }
            // Kept across connections: the targets, the control, what was set again.
            var machine = status.fitnessMachine ?? BluetoothSensorStatus.FitnessMachine(kind: read.kind)
            machine.kind = read.kind
            machine.feature = read.feature ?? machine.feature
            machine.ranges = read.ranges.isEmpty ? machine.ranges : read.ranges
            machine.trainingStatus = read.trainingStatus ?? machine.trainingStatus
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
