/// The Fitness Machine Control Point (`0x2AD9`): what a client asks a treadmill or a trainer to do
/// (a ``Request``, written), and what the machine answers (a ``Response``, indicated), as the
/// Fitness Machine Service specification (v1.0) lays them out. A client first asks for control.
///
/// ```swift
/// let request = FitnessMachineControlPoint.Request.setIndoorBikeSimulation(IndoorBikeSimulation(grade: 4.5))
/// let written = try request.bytes          // [0x11, 0x00, 0x00, 0xC2, 0x01, 0x28, 0x33]
/// let read = try FitnessMachineControlPoint.Request(bytes: written)  // what a trainer reads
/// ```
///
/// A request whose value its field cannot carry (a grade of 400 %) is not sent: ``Request/bytes``
/// throws ``UnencodableValue``. A trainer that rounded it to the nearest it can carry would ride
/// a slope nobody asked for; a status or a measurement, which report what is, are clamped instead.
public enum FitnessMachineControlPoint {
    static let characteristic = "Fitness Machine Control Point"

    /// The control point's op codes (the first byte of a request, and of a response).
    public enum OpCode: UInt8, Sendable, Hashable, CaseIterable {
        /// Request Control (0x00).
        case requestControl = 0x00
        /// Reset (0x01).
        case reset
        /// Set Target Speed (0x02).
        case setTargetSpeed
        /// Set Target Inclination (0x03).
        case setTargetInclination
        /// Set Target Resistance Level (0x04).
        case setTargetResistanceLevel
        /// Set Target Power (0x05).
        case setTargetPower
        /// Set Target Heart Rate (0x06).
        case setTargetHeartRate
        /// Start or Resume (0x07).
        case startOrResume
        /// Stop or Pause (0x08).
        case stopOrPause
        /// Set Targeted Expended Energy (0x09).
        case setTargetedExpendedEnergy
        /// Set Targeted Number of Steps (0x0A).
        case setTargetedSteps
        /// Set Targeted Number of Strides (0x0B).
        case setTargetedStrides
        /// Set Targeted Distance (0x0C).
        case setTargetedDistance
        /// Set Targeted Training Time (0x0D).
        case setTargetedTrainingTime
        /// Set Targeted Time in Two Heart Rate Zones (0x0E).
        case setTargetedTimeInTwoHeartRateZones
        /// Set Targeted Time in Three Heart Rate Zones (0x0F).
        case setTargetedTimeInThreeHeartRateZones
        /// Set Targeted Time in Five Heart Rate Zones (0x10).
        case setTargetedTimeInFiveHeartRateZones
        /// Set Indoor Bike Simulation Parameters (0x11).
        case setIndoorBikeSimulation
        /// Set Wheel Circumference (0x12).
        case setWheelCircumference
        /// Spin Down Control (0x13).
        case spinDownControl
        /// Set Targeted Cadence (0x14).
        case setTargetedCadence
        /// The first byte of a ``Response``.
        case responseCode = 0x80
    }

    /// What a client asks of a fitness machine, with its parameter in the unit this module gives
    /// the quantity (a speed in m/s, a time as a `Duration` of whole seconds).
    public enum Request: Sendable, Hashable {
        /// Asks to control the machine; the others need it first.
        case requestControl
        /// Resets the machine's session.
        case reset
        /// A target speed, in metres per second (sent in 0.01 km/h).
        case setTargetSpeed(Double)
        /// A target inclination, in percent (sent in 0.1 %).
        case setTargetInclination(Double)
        /// A target resistance level, in the machine's steps (one byte in 0.1, so 0 to 25.5, as v1.0
        /// has it; the two bytes of the later GATT Specification Supplement are read as too long).
        case setTargetResistanceLevel(Double)
        /// A target power, in watts.
        case setTargetPower(Int)
        /// A target heart rate, in beats per minute.
        case setTargetHeartRate(Int)
        /// Starts or resumes the session.
        case startOrResume
        /// Stops or pauses the session.
        case stopOrPause(StopOrPause)
        /// A targeted expended energy, in kilocalories.
        case setTargetedExpendedEnergy(Int)
        /// A targeted number of steps.
        case setTargetedSteps(Int)
        /// A targeted number of strides.
        case setTargetedStrides(Int)
        /// A targeted distance, in metres (whole metres, up to 16,777,215).
        case setTargetedDistance(Double)
        /// A targeted training time (whole seconds, up to 65,535).
        case setTargetedTrainingTime(Duration)
        /// Targeted times in the fat burn and fitness zones.
        case setTargetedTimeInTwoHeartRateZones(fatBurn: Duration, fitness: Duration)
        /// Targeted times in the light, moderate and hard zones.
        case setTargetedTimeInThreeHeartRateZones(light: Duration, moderate: Duration, hard: Duration)
        /// Targeted times in the very light, light, moderate, hard and maximum zones.
        case setTargetedTimeInFiveHeartRateZones(veryLight: Duration, light: Duration, moderate: Duration, hard: Duration, maximum: Duration)
        /// The ride a trainer simulates.
        case setIndoorBikeSimulation(IndoorBikeSimulation)
        /// The wheel's circumference, in metres (sent in 0.1 mm, so up to 6.5535 m).
        case setWheelCircumference(Double)
        /// Starts or skips a spin down calibration.
        case spinDownControl(SpinDownControl)
        /// A targeted cadence, in revolutions per minute (sent in 1/2 rpm).
        case setTargetedCadence(Double)

        /// The request's op code.
        public var opCode: OpCode {
            switch self {
            case .requestControl: .requestControl
            case .reset: .reset
            case .setTargetSpeed: .setTargetSpeed
            case .setTargetInclination: .setTargetInclination
            case .setTargetResistanceLevel: .setTargetResistanceLevel
            case .setTargetPower: .setTargetPower
            case .setTargetHeartRate: .setTargetHeartRate
            case .startOrResume: .startOrResume
            case .stopOrPause: .stopOrPause
            case .setTargetedExpendedEnergy: .setTargetedExpendedEnergy
            case .setTargetedSteps: .setTargetedSteps
            case .setTargetedStrides: .setTargetedStrides
            case .setTargetedDistance: .setTargetedDistance
            case .setTargetedTrainingTime: .setTargetedTrainingTime
            case .setTargetedTimeInTwoHeartRateZones: .setTargetedTimeInTwoHeartRateZones
            case .setTargetedTimeInThreeHeartRateZones: .setTargetedTimeInThreeHeartRateZones
            case .setTargetedTimeInFiveHeartRateZones: .setTargetedTimeInFiveHeartRateZones
            case .setIndoorBikeSimulation: .setIndoorBikeSimulation
            case .setWheelCircumference: .setWheelCircumference
            case .spinDownControl: .spinDownControl
            case .setTargetedCadence: .setTargetedCadence
            }
        }

        /// Decodes a written request, as a machine reads it. Throws ``MalformedNotification``: an
        /// op code the specification does not define (`outOfRange` of `op code`, at byte 0; a
        /// machine answers it with ``ResultCode/opCodeNotSupported``), a parameter too short or
        /// too long for its op code, or an enumeration's reserved value.
        public init(bytes: [UInt8]) throws(MalformedNotification) {
            typealias Fields = FitnessMachineTargetFields
            var reader = GATTBytes(bytes, characteristic: FitnessMachineControlPoint.characteristic)
            guard !bytes.isEmpty else { throw reader.malformed(.empty) }
            let code = try reader.uint8("op code")
            guard let opCode = OpCode(rawValue: code), opCode != .responseCode else {
                throw reader.malformed(.outOfRange(field: "op code", value: Int(code)), at: 0)
            }
            func times(_ fields: [GATTField]) throws(MalformedNotification) -> [Duration] {
                var times: [Duration] = []
                for field in fields { times.append(try reader.seconds(field)) }
                return times
            }
            switch opCode {
            case .requestControl: self = .requestControl
            case .reset: self = .reset
            case .setTargetSpeed: self = .setTargetSpeed(try reader.value(Fields.speed))
            case .setTargetInclination: self = .setTargetInclination(try reader.value(Fields.inclination))
            case .setTargetResistanceLevel: self = .setTargetResistanceLevel(try reader.value(Fields.resistanceLevel))
            case .setTargetPower: self = .setTargetPower(try reader.int(Fields.power))
            case .setTargetHeartRate: self = .setTargetHeartRate(try reader.int(Fields.heartRate))
            case .startOrResume: self = .startOrResume
            case .stopOrPause: self = .stopOrPause(try Fields.enumeration(&reader, Fields.stopOrPause, as: StopOrPause.self))
            case .setTargetedExpendedEnergy: self = .setTargetedExpendedEnergy(try reader.int(Fields.expendedEnergy))
            case .setTargetedSteps: self = .setTargetedSteps(try reader.int(Fields.steps))
            case .setTargetedStrides: self = .setTargetedStrides(try reader.int(Fields.strides))
            case .setTargetedDistance: self = .setTargetedDistance(try reader.value(Fields.distance))
            case .setTargetedTrainingTime: self = .setTargetedTrainingTime(try reader.seconds(Fields.trainingTime))
            case .setTargetedTimeInTwoHeartRateZones:
                let zones = try times(Fields.twoZones)
                self = .setTargetedTimeInTwoHeartRateZones(fatBurn: zones[0], fitness: zones[1])
            case .setTargetedTimeInThreeHeartRateZones:
                let zones = try times(Fields.threeZones)
                self = .setTargetedTimeInThreeHeartRateZones(light: zones[0], moderate: zones[1], hard: zones[2])
            case .setTargetedTimeInFiveHeartRateZones:
                let zones = try times(Fields.fiveZones)
                self = .setTargetedTimeInFiveHeartRateZones(veryLight: zones[0], light: zones[1], moderate: zones[2], hard: zones[3], maximum: zones[4])
            case .setIndoorBikeSimulation: self = .setIndoorBikeSimulation(try IndoorBikeSimulation(&reader))
            case .setWheelCircumference: self = .setWheelCircumference(try reader.value(Fields.wheelCircumference))
            case .spinDownControl: self = .spinDownControl(try Fields.enumeration(&reader, Fields.spinDownControl, as: SpinDownControl.self))
            case .setTargetedCadence: self = .setTargetedCadence(try reader.value(Fields.cadence))
            case .responseCode: throw reader.malformed(.outOfRange(field: "op code", value: Int(code)), at: 0)
            }
            try reader.end()
        }

        /// The request's bytes, as a client writes them. Throws ``UnencodableValue`` for a
        /// parameter its field cannot carry (out of its range, or not a number): it is not rounded
        /// into one, which would ask the machine for something else.
        public var bytes: [UInt8] {
            get throws(UnencodableValue) {
                var writer = GATTWriter([opCode.rawValue])
                for (value, field) in parameters {
                    try writer.checked(value, field, in: FitnessMachineControlPoint.characteristic)
                }
                return writer.bytes
            }
        }

        /// The parameter's values with their fields, in their order.
        var parameters: [(Double, GATTField)] {
            typealias Fields = FitnessMachineTargetFields
            switch self {
            case .requestControl, .reset, .startOrResume: return []
            case let .setTargetSpeed(speed): return [(speed, Fields.speed)]
            case let .setTargetInclination(inclination): return [(inclination, Fields.inclination)]
            case let .setTargetResistanceLevel(level): return [(level, Fields.resistanceLevel)]
            case let .setTargetPower(power): return [(Double(power), Fields.power)]
            case let .setTargetHeartRate(rate): return [(Double(rate), Fields.heartRate)]
            case let .stopOrPause(control): return [(Double(control.rawValue), Fields.stopOrPause)]
            case let .setTargetedExpendedEnergy(energy): return [(Double(energy), Fields.expendedEnergy)]
            case let .setTargetedSteps(steps): return [(Double(steps), Fields.steps)]
            case let .setTargetedStrides(strides): return [(Double(strides), Fields.strides)]
            case let .setTargetedDistance(distance): return [(distance, Fields.distance)]
            case let .setTargetedTrainingTime(time): return [(time.inSeconds, Fields.trainingTime)]
            case let .setTargetedTimeInTwoHeartRateZones(fatBurn, fitness):
                return zip([fatBurn, fitness].map(\.inSeconds), Fields.twoZones).map { ($0, $1) }
            case let .setTargetedTimeInThreeHeartRateZones(light, moderate, hard):
                return zip([light, moderate, hard].map(\.inSeconds), Fields.threeZones).map { ($0, $1) }
            case let .setTargetedTimeInFiveHeartRateZones(veryLight, light, moderate, hard, maximum):
                return zip([veryLight, light, moderate, hard, maximum].map(\.inSeconds), Fields.fiveZones).map { ($0, $1) }
            case let .setIndoorBikeSimulation(simulation): return simulation.parameters
            case let .setWheelCircumference(circumference): return [(circumference, Fields.wheelCircumference)]
            case let .spinDownControl(control): return [(Double(control.rawValue), Fields.spinDownControl)]
            case let .setTargetedCadence(cadence): return [(cadence, Fields.cadence)]
            }
        }
    }
}
