import DBus

/// What a foot pod or a fitness machine says it measures and takes, as its GATT characteristics
/// give it: a foot pod's RSC Feature; a fitness machine's kind (by the data it sends), its Fitness
/// Machine Feature, its Supported Ranges and its Training Status. ``BlueZ/features(of:timeout:clock:)``
/// reads them for a listing; a ``BluetoothSensor`` reads them on connect, into its status.
///
/// ```swift
/// let bluez = try BlueZ()
/// for device in try await bluez.scan(for: .seconds(5)) {
///     print(device.address, try await bluez.features(of: device))
/// }
/// // C0:FF:EE:00:00:10 indoor bike: measures cadence, total distance, resistance level, power; takes resistance
/// //   (0 to 20 by 1), power (0 W to 1,500 W by 1 W), indoor bike simulation
/// ```
public struct BluetoothDeviceFeatures: Sendable, Hashable, CustomStringConvertible {
    /// A foot pod's RSC Feature.
    public var rsc: RSCFeature?
    /// A fitness machine's features.
    public var fitnessMachine: FitnessMachine?
    /// Values that were not what their specification says, by reason (`MalformedNotification.reasonKey`): left out.
    public var dropped: [String: Int] = [:]

    /// What a fitness machine says of itself.
    public struct FitnessMachine: Sendable, Hashable {
        /// What sort of machine it is.
        public var kind: BluetoothSensorStatus.FitnessMachine.Kind
        /// What it measures and what it can be set to, when it could be read.
        public var feature: FitnessMachineFeature?
        /// The targets it takes, by kind.
        public var ranges: [SupportedRange.Kind: SupportedRange] = [:]
        /// Where its user is in their training.
        public var trainingStatus: TrainingStatus?

        /// A machine of `kind`.
        public init(kind: BluetoothSensorStatus.FitnessMachine.Kind) {
            self.kind = kind
        }

        /// The range a target setting is given with, if any: `power` has the Supported Power Range.
        public static func rangeKind(ofTarget name: String) -> SupportedRange.Kind? {
            switch name {
            case "speed": .speed
            case "inclination": .inclination
            case "resistance": .resistanceLevel
            case "power": .power
            case "heart rate": .heartRate
            default: nil
            }
        }

        /// Its targets in words, each with its range: "power (0 W to 1,500 W by 1 W)"; a speed in km/h.
        public var targets: [String] {
            (feature?.targets.names ?? []).map { name in
                guard let range = Self.rangeKind(ofTarget: name).flatMap({ ranges[$0] }) else { return name }
                return name + " (" + Self.span(of: range) + ")"
            }
        }

        /// A range in words, "0 W to 1,500 W by 1 W"; a speed in km/h, as a treadmill shows it.
        static func span(of range: SupportedRange) -> String {
            typealias Words = FitnessMachineControlError
            let scale = range.kind == .speed ? 3.6 : 1
            let unit = range.kind == .speed ? " km/h" : range.kind.unit.isEmpty ? "" : " " + range.kind.unit
            return "\(Words.number(range.minimum * scale))\(unit) to \(Words.number(range.maximum * scale))\(unit) by \(Words.number(range.increment * scale))\(unit)"
        }
    }

    /// Nothing read: a device that is neither a foot pod nor a fitness machine.
    public init(rsc: RSCFeature? = nil, fitnessMachine: FitnessMachine? = nil) {
        self.rsc = rsc
        self.fitnessMachine = fitnessMachine
    }

    /// What it measures and takes, in words: "foot pod: measures stride length, total distance",
    /// "treadmill: measures total distance, inclination; takes speed (1 to 20 km/h by 0.01 km/h)";
    /// empty for a device that is neither.
    public var description: String {
        var parts: [String] = []
        if let rsc { parts.append("foot pod: measures " + (rsc.names.isEmpty ? "speed and cadence" : "speed, cadence, " + rsc.names.joined(separator: ", "))) }
        if let machine = fitnessMachine {
            var line = "\(machine.kind)"
            if let feature = machine.feature {
                line += ": measures " + (feature.machine.names.isEmpty ? "nothing it names" : feature.machine.names.joined(separator: ", "))
                line += "; takes " + (machine.targets.isEmpty ? "no targets" : machine.targets.joined(separator: ", "))
            } else {
                line += ": its Fitness Machine Feature could not be read"
            }
            parts.append(line)
        }
        return parts.joined(separator: "; ")
    }

    /// The ranges' characteristics, by what they are the range of.
    static let rangeCharacteristics: [(SupportedRange.Kind, String)] = [
        (.speed, BluetoothUUID.supportedSpeedRange), (.inclination, BluetoothUUID.supportedInclinationRange),
        (.resistanceLevel, BluetoothUUID.supportedResistanceLevelRange), (.heartRate, BluetoothUUID.supportedHeartRateRange),
        (.power, BluetoothUUID.supportedPowerRange),
    ]

    /// Reads them from `characteristics` (their UUIDs by object path, below one device) on `bus`.
    /// A characteristic that cannot be read is left out; one whose value is not what its
    /// specification says is left out and counted in ``dropped``.
    static func read(_ characteristics: [String: String], on bus: DBusConnection) async -> BluetoothDeviceFeatures {
        var features = BluetoothDeviceFeatures()
        func value<Value>(_ uuid: String, _ decode: ([UInt8]) throws(MalformedNotification) -> Value) async -> Value? {
            // A characteristic that cannot be read is one the device does not give us: left out.
            guard let path = characteristics.first(where: { $0.value == uuid })?.key,
                  let bytes = try? await SensorConnection.read(path, on: bus) else { return nil }  // unreadable: left out, as said
            do throws(MalformedNotification) {
                return try decode(bytes)
            } catch {
                features.dropped[error.reasonKey, default: 0] += 1
                return nil
            }
        }
        features.rsc = await value(BluetoothUUID.rscFeature) { bytes throws(MalformedNotification) in try RSCFeature(bytes: bytes) }
        let uuids = Set(characteristics.values)
        let kind: BluetoothSensorStatus.FitnessMachine.Kind? =
            uuids.contains(BluetoothUUID.indoorBikeData) ? .indoorBike
            : uuids.contains(BluetoothUUID.treadmillData) ? .treadmill
            : uuids.contains(BluetoothUUID.fitnessMachineFeature) || uuids.contains(BluetoothUUID.fitnessMachineControlPoint) ? .other : nil
        guard let kind else { return features }
        var machine = FitnessMachine(kind: kind)
        machine.feature = await value(BluetoothUUID.fitnessMachineFeature) { bytes throws(MalformedNotification) in try FitnessMachineFeature(bytes: bytes) }
        for (range, uuid) in rangeCharacteristics {
            machine.ranges[range] = await value(uuid) { bytes throws(MalformedNotification) in try SupportedRange(range, bytes: bytes) }
        }
        machine.trainingStatus = await value(BluetoothUUID.trainingStatus) { bytes throws(MalformedNotification) in try TrainingStatus(bytes: bytes) }
        features.fitnessMachine = machine
        return features
    }
}
