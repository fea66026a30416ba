/// What a fitness machine notifies when its state changes (Fitness Machine Status, `0x2ADA`): an
/// op code and its parameter, as the Fitness Machine Service specification (v1.0) lays them out,
/// in the units this module gives each quantity. An op code the specification does not define
/// is kept as sent (``unknown(opCode:parameter:)``), not an error: a newer machine may send it.
///
/// ```swift
/// let status = try FitnessMachineStatus(bytes: [0x08, 0xC8, 0x00])  // .targetPowerChanged(200)
/// ```
public enum FitnessMachineStatus: Sendable, Hashable {
    /// The machine's session was reset (0x01).
    case reset
    /// The user stopped or paused it on the machine (0x02).
    case stoppedOrPausedByUser(StopOrPause)
    /// The safety key was pulled (0x03).
    case stoppedBySafetyKey
    /// The user started or resumed it on the machine (0x04).
    case startedOrResumedByUser
    /// The target speed, in metres per second (0x05).
    case targetSpeedChanged(Double)
    /// The target inclination, in percent (0x06).
    case targetInclinationChanged(Double)
    /// The target resistance level (0x07).
    case targetResistanceLevelChanged(Double)
    /// The target power, in watts (0x08).
    case targetPowerChanged(Int)
    /// The target heart rate, in beats per minute (0x09).
    case targetHeartRateChanged(Int)
    /// The targeted expended energy, in kilocalories (0x0A).
    case targetedExpendedEnergyChanged(Int)
    /// The targeted number of steps (0x0B).
    case targetedStepsChanged(Int)
    /// The targeted number of strides (0x0C).
    case targetedStridesChanged(Int)
    /// The targeted distance, in metres (0x0D).
    case targetedDistanceChanged(Double)
    /// The targeted training time (0x0E).
    case targetedTrainingTimeChanged(Duration)
    /// The targeted times in the fat burn and fitness zones (0x0F).
    case targetedTimeInTwoHeartRateZonesChanged(fatBurn: Duration, fitness: Duration)
    /// The targeted times in the light, moderate and hard zones (0x10).
    case targetedTimeInThreeHeartRateZonesChanged(light: Duration, moderate: Duration, hard: Duration)
    /// The targeted times in five zones, from very light to maximum (0x11).
    case targetedTimeInFiveHeartRateZonesChanged(veryLight: Duration, light: Duration, moderate: Duration, hard: Duration, maximum: Duration)
    /// The ride the trainer simulates (0x12).
    case indoorBikeSimulationChanged(IndoorBikeSimulation)
    /// The wheel's circumference, in metres (0x13).
    case wheelCircumferenceChanged(Double)
    /// Where the spin down calibration is (0x14).
    case spinDownStatus(SpinDownStatus)
    /// The targeted cadence, in revolutions per minute (0x15).
    case targetedCadenceChanged(Double)
    /// The client lost control of the machine (0xFF): it must ask again.
    case controlPermissionLost
    /// An op code the specification does not define, with the bytes after it.
    case unknown(opCode: UInt8, parameter: [UInt8])

    static let characteristic = "Fitness Machine Status"

    /// Decodes `bytes`. Throws ``MalformedNotification`` when a known op code's parameter is too
    /// short or too long, or an enumeration's value is one the specification reserves.
    public init(bytes: [UInt8]) throws(MalformedNotification) {
        typealias Fields = FitnessMachineTargetFields
        var reader = GATTBytes(bytes, characteristic: Self.characteristic)
        guard !bytes.isEmpty else { throw reader.malformed(.empty) }
        let code = try reader.uint8("op code")
        func times(_ fields: [GATTField]) throws(MalformedNotification) -> [Duration] {
            var times: [Duration] = []
            for field in fields { times.append(try reader.seconds(field)) }
            return times
        }
        switch code {
        case 0x01: self = .reset
        case 0x02: self = .stoppedOrPausedByUser(try Fields.enumeration(&reader, Fields.stopOrPause, as: StopOrPause.self))
        case 0x03: self = .stoppedBySafetyKey
        case 0x04: self = .startedOrResumedByUser
        case 0x05: self = .targetSpeedChanged(try reader.value(Fields.speed))
        case 0x06: self = .targetInclinationChanged(try reader.value(Fields.inclination))
        case 0x07: self = .targetResistanceLevelChanged(try reader.value(Fields.resistanceLevel))
        case 0x08: self = .targetPowerChanged(try reader.int(Fields.power))
        case 0x09: self = .targetHeartRateChanged(try reader.int(Fields.heartRate))
        case 0x0A: self = .targetedExpendedEnergyChanged(try reader.int(Fields.expendedEnergy))
        case 0x0B: self = .targetedStepsChanged(try reader.int(Fields.steps))
        case 0x0C: self = .targetedStridesChanged(try reader.int(Fields.strides))
        case 0x0D: self = .targetedDistanceChanged(try reader.value(Fields.distance))
        case 0x0E: self = .targetedTrainingTimeChanged(try reader.seconds(Fields.trainingTime))
        case 0x0F:
            let zones = try times(Fields.twoZones)
            self = .targetedTimeInTwoHeartRateZonesChanged(fatBurn: zones[0], fitness: zones[1])
        case 0x10:
            let zones = try times(Fields.threeZones)
            self = .targetedTimeInThreeHeartRateZonesChanged(light: zones[0], moderate: zones[1], hard: zones[2])
        case 0x11:
            let zones = try times(Fields.fiveZones)
            self = .targetedTimeInFiveHeartRateZonesChanged(veryLight: zones[0], light: zones[1], moderate: zones[2], hard: zones[3], maximum: zones[4])
        case 0x12: self = .indoorBikeSimulationChanged(try IndoorBikeSimulation(&reader))
        case 0x13: self = .wheelCircumferenceChanged(try reader.value(Fields.wheelCircumference))
        case 0x14: self = .spinDownStatus(try Fields.enumeration(&reader, Fields.spinDownStatus, as: SpinDownStatus.self))
        case 0x15: self = .targetedCadenceChanged(try reader.value(Fields.cadence))
        case 0xFF: self = .controlPermissionLost
        default: self = .unknown(opCode: code, parameter: reader.rest())
        }
        try reader.end()
    }

    /// The op code as sent.
    public var opCode: UInt8 {
        switch self {
        case .reset: 0x01
        case .stoppedOrPausedByUser: 0x02
        case .stoppedBySafetyKey: 0x03
        case .startedOrResumedByUser: 0x04
        case .targetSpeedChanged: 0x05
        case .targetInclinationChanged: 0x06
        case .targetResistanceLevelChanged: 0x07
        case .targetPowerChanged: 0x08
        case .targetHeartRateChanged: 0x09
        case .targetedExpendedEnergyChanged: 0x0A
        case .targetedStepsChanged: 0x0B
        case .targetedStridesChanged: 0x0C
        case .targetedDistanceChanged: 0x0D
        case .targetedTrainingTimeChanged: 0x0E
        case .targetedTimeInTwoHeartRateZonesChanged: 0x0F
        case .targetedTimeInThreeHeartRateZonesChanged: 0x10
        case .targetedTimeInFiveHeartRateZonesChanged: 0x11
        case .indoorBikeSimulationChanged: 0x12
        case .wheelCircumferenceChanged: 0x13
        case .spinDownStatus: 0x14
        case .targetedCadenceChanged: 0x15
        case .controlPermissionLost: 0xFF
        case let .unknown(opCode, _): opCode
        }
    }

    /// The status's bytes, as a machine sends them, each value clamped to what its field carries
    /// (a status reports what the machine does, which its field can always say).
    public var bytes: [UInt8] {
        typealias Fields = FitnessMachineTargetFields
        var writer = GATTWriter([opCode])
        let parameters: [(Double, GATTField)]
        switch self {
        case .reset, .stoppedBySafetyKey, .startedOrResumedByUser, .controlPermissionLost: parameters = []
        case let .stoppedOrPausedByUser(control): parameters = [(Double(control.rawValue), Fields.stopOrPause)]
        case let .targetSpeedChanged(speed): parameters = FitnessMachineControlPoint.Request.setTargetSpeed(speed).parameters
        case let .targetInclinationChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetInclination(value).parameters
        case let .targetResistanceLevelChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetResistanceLevel(value).parameters
        case let .targetPowerChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetPower(value).parameters
        case let .targetHeartRateChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetHeartRate(value).parameters
        case let .targetedExpendedEnergyChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetedExpendedEnergy(value).parameters
        case let .targetedStepsChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetedSteps(value).parameters
        case let .targetedStridesChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetedStrides(value).parameters
        case let .targetedDistanceChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetedDistance(value).parameters
        case let .targetedTrainingTimeChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetedTrainingTime(value).parameters
        case let .targetedTimeInTwoHeartRateZonesChanged(fatBurn, fitness):
            parameters = FitnessMachineControlPoint.Request.setTargetedTimeInTwoHeartRateZones(fatBurn: fatBurn, fitness: fitness).parameters
        case let .targetedTimeInThreeHeartRateZonesChanged(light, moderate, hard):
            parameters = FitnessMachineControlPoint.Request.setTargetedTimeInThreeHeartRateZones(light: light, moderate: moderate, hard: hard).parameters
        case let .targetedTimeInFiveHeartRateZonesChanged(veryLight, light, moderate, hard, maximum):
            parameters = FitnessMachineControlPoint.Request.setTargetedTimeInFiveHeartRateZones(
                veryLight: veryLight, light: light, moderate: moderate, hard: hard, maximum: maximum).parameters
        case let .indoorBikeSimulationChanged(simulation): parameters = simulation.parameters
        case let .wheelCircumferenceChanged(value): parameters = FitnessMachineControlPoint.Request.setWheelCircumference(value).parameters
        case let .spinDownStatus(status): parameters = [(Double(status.rawValue), Fields.spinDownStatus)]
        case let .targetedCadenceChanged(value): parameters = FitnessMachineControlPoint.Request.setTargetedCadence(value).parameters
        case let .unknown(_, parameter):
            writer.append(parameter)
            parameters = []
        }
        for (value, field) in parameters { writer.clamped(value, field) }
        return writer.bytes
    }
}
