import BluetoothSensors
import Testing

/// A fitness machine's control point, status, training status and supported ranges, as the
/// Fitness Machine Service specification (v1.0) lays them out: each request's bytes written here
/// by hand from its op code and parameter table, read back as the same request; what no field
/// can carry refused, never rounded into something else.
struct FitnessMachineControlTests {
    typealias Request = FitnessMachineControlPoint.Request
    typealias Response = FitnessMachineControlPoint.Response

    /// Every op code, with a parameter, and its bytes: the op code, then the parameter little-endian.
    static let requests: [(Request, [UInt8])] = [
        (.requestControl, [0x00]),
        (.reset, [0x01]),
        (.setTargetSpeed(12.5 / 3.6), [0x02, 0xE2, 0x04]),                 // 1250 × 0.01 km/h
        (.setTargetInclination(-1.5), [0x03, 0xF1, 0xFF]),                 // -15 × 0.1 %
        (.setTargetResistanceLevel(7.5), [0x04, 0x4B]),                    // 75 × 0.1, one byte
        (.setTargetPower(-20), [0x05, 0xEC, 0xFF]),                        // sint16 W
        (.setTargetHeartRate(150), [0x06, 0x96]),
        (.startOrResume, [0x07]),
        (.stopOrPause(.stop), [0x08, 0x01]),
        (.stopOrPause(.pause), [0x08, 0x02]),
        (.setTargetedExpendedEnergy(500), [0x09, 0xF4, 0x01]),
        (.setTargetedSteps(10_000), [0x0A, 0x10, 0x27]),
        (.setTargetedStrides(4_000), [0x0B, 0xA0, 0x0F]),
        (.setTargetedDistance(42_195), [0x0C, 0xD3, 0xA4, 0x00]),          // uint24 m
        (.setTargetedTrainingTime(.seconds(3_600)), [0x0D, 0x10, 0x0E]),
        (.setTargetedTimeInTwoHeartRateZones(fatBurn: .seconds(600), fitness: .seconds(1_200)), [0x0E, 0x58, 0x02, 0xB0, 0x04]),
        (.setTargetedTimeInThreeHeartRateZones(light: .seconds(60), moderate: .seconds(120), hard: .seconds(180)),
         [0x0F, 0x3C, 0x00, 0x78, 0x00, 0xB4, 0x00]),
        (.setTargetedTimeInFiveHeartRateZones(veryLight: .seconds(1), light: .seconds(2), moderate: .seconds(3), hard: .seconds(4), maximum: .seconds(5)),
         [0x10, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00, 0x05, 0x00]),
        // Wind -2.5 m/s = -2500 × 0.001, grade 4.5 % = 450 × 0.01, Crr 0.004 = 40 × 0.0001, Cw 0.51 = 51 × 0.01.
        (.setIndoorBikeSimulation(IndoorBikeSimulation(windSpeed: -2.5, grade: 4.5, rollingResistance: 0.004, windResistance: 0.51)),
         [0x11, 0x3C, 0xF6, 0xC2, 0x01, 0x28, 0x33]),
        (.setWheelCircumference(2.105), [0x12, 0x3A, 0x52]),               // 21050 × 0.1 mm
        (.spinDownControl(.start), [0x13, 0x01]),
        (.spinDownControl(.ignore), [0x13, 0x02]),
        (.setTargetedCadence(85.5), [0x14, 0xAB, 0x00]),                   // 171 × 0.5 rpm, uint16
    ]

    @Test func everyRequestIsWrittenAndReadAsTheSpecificationLaysItOut() throws {
        #expect(Set(Self.requests.map(\.0.opCode)).count == FitnessMachineControlPoint.OpCode.allCases.count - 1)  // all but 0x80
        for (request, bytes) in Self.requests {
            #expect(try request.bytes == bytes, "\(request)")
            let read = try Request(bytes: bytes)
            #expect(try read.opCode == request.opCode && read.bytes == bytes, "\(request) read as \(read)")
            // Every shorter prefix is malformed, at a byte inside it; one byte too many is too.
            for end in 0..<bytes.count {
                let short = #expect(throws: MalformedNotification.self) { try Request(bytes: Array(bytes[..<end])) }
                #expect(short.map { $0.offset <= end && ($0.reason == .empty) == (end == 0) } == true, "\(bytes[..<end])")
            }
            #expect(throws: MalformedNotification.self) { try Request(bytes: bytes + [0x00]) }
        }
        #expect(try Request(bytes: [0x02, 0xE2, 0x04]) == .setTargetSpeed(1250.0 / 360))
    }

    @Test func aRequestNoFieldCarriesIsRefusedSayingWhy() throws {
        let steep = #expect(throws: UnencodableValue.self) { try Request.setIndoorBikeSimulation(IndoorBikeSimulation(grade: 400)).bytes }
        #expect(steep?.field == "grade" && steep?.range == -327.68...327.67)
        #expect(steep?.description == "A Fitness Machine Control Point value cannot be written: its grade of 400.0 % is outside the -327.68...327.67 % its field can carry.")
        #expect(throws: UnencodableValue.self) { try Request.setTargetResistanceLevel(30).bytes }   // one byte in 0.1: 25.5 at most
        #expect(throws: UnencodableValue.self) { try Request.setTargetSpeed(-1).bytes }
        #expect(throws: UnencodableValue.self) { try Request.setTargetSpeed(.nan).bytes }
        #expect(throws: UnencodableValue.self) { try Request.setTargetedDistance(20_000_000).bytes }
        #expect(throws: UnencodableValue.self) { try Request.setTargetedTrainingTime(.seconds(70_000)).bytes }
        // Within the field, a value between two of its steps is rounded to the nearest.
        #expect(try Request.setTargetPower(200).bytes == [0x05, 0xC8, 0x00])
        #expect(try Request.setTargetedCadence(90.2).bytes == [0x14, 0xB4, 0x00])
    }

    @Test func badRequestsSayWhatAndWhereAndHowAMachineAnswers() {
        let unknown = #expect(throws: MalformedNotification.self) { try Request(bytes: [0x42, 0x01]) }
        #expect(unknown?.reason == .outOfRange(field: "op code", value: 0x42) && unknown?.offset == 0)
        let stop = #expect(throws: MalformedNotification.self) { try Request(bytes: [0x08, 0x03]) }
        #expect(stop?.reason == .outOfRange(field: "stop or pause", value: 3) && stop?.offset == 1)
        let short = #expect(throws: MalformedNotification.self) { try Request(bytes: [0x11, 0x00, 0x00, 0xC2]) }
        #expect(short?.reason == .truncated(field: "grade", needed: 2) && short?.offset == 3)
        #expect(throws: MalformedNotification.self) { try Request(bytes: [0x80, 0x00, 0x01]) }  // a response is no request
        #expect(throws: MalformedNotification.self) { try Request(bytes: []) }
        if let unknown, let stop {
            #expect(Response.refusing([0x42, 0x01], because: unknown) == Response(requestOpCode: 0x42, result: .opCodeNotSupported))
            #expect(Response.refusing([0x08, 0x03], because: stop) == Response(requestOpCode: 0x08, result: .invalidParameter))
        }
    }

    @Test func responses() throws {
        // 0x80, the request's op code (0x05, set target power), the result (0x01, success).
        let done = try Response(bytes: [0x80, 0x05, 0x01])
        #expect(done.opCode == .setTargetPower && done.result == .success && done.parameter.isEmpty)
        #expect(Response(to: .setTargetPower(200), result: .success) == done && done.bytes == [0x80, 0x05, 0x01])
        #expect(try Response(bytes: [0x80, 0x00, 0x05]).result == .controlNotPermitted)
        #expect(try Response(bytes: [0x80, 0x04, 0x03]).result == .invalidParameter)
        #expect(try Response(bytes: [0x80, 0x42, 0x02]) == Response(requestOpCode: 0x42, result: .opCodeNotSupported))
        #expect(try Response(bytes: [0x80, 0x07, 0x09]).result == .unknown(9))
        // A started spin down answers with its target speeds: 0x07D0 = 20 km/h low, 0x0BB8 = 30 km/h high.
        let spinDown = try Response(bytes: [0x80, 0x13, 0x01, 0xD0, 0x07, 0xB8, 0x0B])
        #expect(spinDown.spinDownTargetSpeeds == 2000.0 / 360...3000.0 / 360)
        #expect(Response.spinDownStarted(low: 20 / 3.6, high: 30 / 3.6) == spinDown)
        #expect(done.spinDownTargetSpeeds == nil)
        let notResponse = #expect(throws: MalformedNotification.self) { try Response(bytes: [0x05, 0x01]) }
        #expect(notResponse?.reason == .outOfRange(field: "response code", value: 5))
        #expect(throws: MalformedNotification.self) { try Response(bytes: [0x80, 0x05]) }
    }

    // MARK: - Fitness Machine Status

    static let statuses: [(FitnessMachineStatus, [UInt8])] = [
        (.reset, [0x01]),
        (.stoppedOrPausedByUser(.pause), [0x02, 0x02]),
        (.stoppedBySafetyKey, [0x03]),
        (.startedOrResumedByUser, [0x04]),
        (.targetSpeedChanged(1250.0 / 360), [0x05, 0xE2, 0x04]),
        (.targetInclinationChanged(2.5), [0x06, 0x19, 0x00]),
        (.targetResistanceLevelChanged(4.2), [0x07, 0x2A]),
        (.targetPowerChanged(200), [0x08, 0xC8, 0x00]),
        (.targetHeartRateChanged(140), [0x09, 0x8C]),
        (.targetedExpendedEnergyChanged(300), [0x0A, 0x2C, 0x01]),
        (.targetedStepsChanged(5_000), [0x0B, 0x88, 0x13]),
        (.targetedStridesChanged(2_500), [0x0C, 0xC4, 0x09]),
        (.targetedDistanceChanged(5_000), [0x0D, 0x88, 0x13, 0x00]),
        (.targetedTrainingTimeChanged(.seconds(1_800)), [0x0E, 0x08, 0x07]),
        (.targetedTimeInTwoHeartRateZonesChanged(fatBurn: .seconds(60), fitness: .seconds(120)), [0x0F, 0x3C, 0x00, 0x78, 0x00]),
        (.targetedTimeInThreeHeartRateZonesChanged(light: .seconds(1), moderate: .seconds(2), hard: .seconds(3)), [0x10, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00]),
        (.targetedTimeInFiveHeartRateZonesChanged(veryLight: .seconds(1), light: .seconds(2), moderate: .seconds(3), hard: .seconds(4), maximum: .seconds(5)),
         [0x11, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00, 0x05, 0x00]),
        (.indoorBikeSimulationChanged(IndoorBikeSimulation(windSpeed: 1, grade: -3, rollingResistance: 0.005, windResistance: 0.6)),
         [0x12, 0xE8, 0x03, 0xD4, 0xFE, 0x32, 0x3C]),
        (.wheelCircumferenceChanged(2.096), [0x13, 0xE0, 0x51]),
        (.spinDownStatus(.stopPedaling), [0x14, 0x04]),
        (.targetedCadenceChanged(90), [0x15, 0xB4, 0x00]),
        (.controlPermissionLost, [0xFF]),
    ]

    @Test func everyStatusIsReadAndWrittenAsTheSpecificationLaysItOut() throws {
        for (status, bytes) in Self.statuses {
            #expect(try FitnessMachineStatus(bytes: bytes) == status, "\(bytes)")
            #expect(status.bytes == bytes, "\(status)")
            for end in 0..<bytes.count {
                #expect(throws: MalformedNotification.self, "\(bytes[..<end])") { try FitnessMachineStatus(bytes: Array(bytes[..<end])) }
            }
            #expect(throws: MalformedNotification.self) { try FitnessMachineStatus(bytes: bytes + [0x00]) }
        }
        // An op code the specification does not define is kept, with what follows it.
        #expect(try FitnessMachineStatus(bytes: [0x30, 0x01, 0x02]) == .unknown(opCode: 0x30, parameter: [0x01, 0x02]))
        #expect(FitnessMachineStatus.unknown(opCode: 0x00, parameter: []).bytes == [0x00])
        let reserved = #expect(throws: MalformedNotification.self) { try FitnessMachineStatus(bytes: [0x14, 0x09]) }
        #expect(reserved?.reason == .outOfRange(field: "spin down status", value: 9) && reserved?.offset == 1)
        // A status reports what the machine does: past its field, it is clamped, not refused.
        #expect(try FitnessMachineStatus(bytes: FitnessMachineStatus.targetResistanceLevelChanged(99).bytes) == .targetResistanceLevelChanged(25.5))
    }

    // MARK: - Training Status

    @Test func trainingStatus() throws {
        // Flags 0x00 (no string), status 0x0D: manual mode.
        #expect(try TrainingStatus(bytes: [0x00, 0x0D]) == TrainingStatus(status: .manualMode))
        // Flags 0x01: a string, the rest of the value, UTF-8.
        let warm = try TrainingStatus(bytes: [0x01, 0x02, 0x57, 0x61, 0x72, 0x6D])
        #expect(warm.status == .warmingUp && warm.string == "Warm" && !warm.stringIsExtended)
        #expect(warm.bytes == [0x01, 0x02, 0x57, 0x61, 0x72, 0x6D])
        #expect(try TrainingStatus(bytes: [0x03, 0x0F, 0x41]) == TrainingStatus(status: .postWorkout, string: "A", stringIsExtended: true))
        // A status the specification reserves is kept, and written back as it came.
        let later = try TrainingStatus(bytes: [0x00, 0x20])
        #expect(later.status == .unknown(0x20) && later.bytes == [0x00, 0x20])
        for raw in UInt8(0)...0x0F { #expect(TrainingStatus.Status(rawValue: raw).rawValue == raw) }
        let missing = #expect(throws: MalformedNotification.self) { try TrainingStatus(bytes: [0x01, 0x02]) }
        #expect(missing?.reason == .truncated(field: "training status string", needed: 1))
        #expect(throws: MalformedNotification.self) { try TrainingStatus(bytes: [0x00, 0x02, 0x41]) }
        #expect(throws: MalformedNotification.self) { try TrainingStatus(bytes: [0x00]) }
    }

    // MARK: - Supported ranges

    @Test func supportedRanges() throws {
        // Speed: 1 to 20 km/h by 0.1 (0x0064, 0x07D0, 0x000A in 0.01 km/h), here in m/s.
        let speed = try SupportedRange(.speed, bytes: [0x64, 0x00, 0xD0, 0x07, 0x0A, 0x00])
        #expect(speed == SupportedRange(.speed, minimum: 100.0 / 360, maximum: 2000.0 / 360, increment: 10.0 / 360))
        #expect(speed.bytes == [0x64, 0x00, 0xD0, 0x07, 0x0A, 0x00])
        // Inclination: -3 % to 15 % by 0.5 %, signed bounds in 0.1 %.
        let incline = try SupportedRange(.inclination, bytes: [0xE2, 0xFF, 0x96, 0x00, 0x05, 0x00])
        #expect(incline == SupportedRange(.inclination, minimum: -3, maximum: 15, increment: 0.5))
        // Resistance: 1 to 100 by 1, in 0.1 (v1.0's sint16, sint16, uint16).
        #expect(try SupportedRange(.resistanceLevel, bytes: [0x0A, 0x00, 0xE8, 0x03, 0x0A, 0x00]) == SupportedRange(.resistanceLevel, minimum: 1, maximum: 100, increment: 1))
        // Heart rate: three bytes. Power: 0 to 2000 W by 5 W.
        #expect(try SupportedRange(.heartRate, bytes: [0x50, 0xB4, 0x01]) == SupportedRange(.heartRate, minimum: 80, maximum: 180, increment: 1))
        let power = try SupportedRange(.power, bytes: [0x00, 0x00, 0xD0, 0x07, 0x05, 0x00])
        #expect(power == SupportedRange(.power, minimum: 0, maximum: 2000, increment: 5))
        #expect(throws: MalformedNotification.self) { try SupportedRange(.heartRate, bytes: [0x50, 0xB4, 0x01, 0x00]) }
        let upsideDown = #expect(throws: MalformedNotification.self) { try SupportedRange(.power, bytes: [0xD0, 0x07, 0x00, 0x00, 0x05, 0x00]) }
        #expect(upsideDown?.reason == .outOfRange(field: "minimum", value: 2000))
    }

    /// The client refuses a target the machine does not take before it sends it.
    @Test func aTargetIsCheckedAgainstTheRange() throws {
        let speed = SupportedRange(.speed, minimum: 100.0 / 360, maximum: 2000.0 / 360, increment: 10.0 / 360)
        try speed.check(10 / 3.6)            // 10 km/h, converted: on a step within rounding
        try speed.check(20 / 3.6)
        #expect(speed.contains(1 / 3.6) && !speed.contains(25 / 3.6) && !speed.contains(.nan))
        #expect(!speed.isOnIncrement(10.05 / 3.6))
        let power = SupportedRange(.power, minimum: 0, maximum: 2000, increment: 5)
        let tooMuch = #expect(throws: TargetOutsideRange.self) { try power.check(2500) }
        #expect(tooMuch?.reason == .aboveMaximum)
        #expect(tooMuch?.description == "A target power of 2500.0 W is outside the machine's range of 0.0 W to 2000.0 W; choose one inside it.")
        let between = #expect(throws: TargetOutsideRange.self) { try power.check(203) }
        #expect(between?.reason == .betweenIncrements && power.nearest(203) == 205)
        #expect(between?.description == "A target power of 203.0 W falls between the machine's steps of 5.0 W from 0.0 W; the nearest it takes is 205.0 W.")
        #expect(throws: TargetOutsideRange.self) { try power.check(-5) }
        #expect(throws: TargetOutsideRange.self) { try power.check(.nan) }
        #expect(power.nearest(-40) == 0 && power.nearest(9_000) == 2000)
    }

    @Test func fitnessMachineUUIDs() {
        #expect(BluetoothUUID.rscService == "00001814-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID.fitnessMachineControlPoint == "00002ad9-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID.serviceName(BluetoothUUID.fitnessMachineService) == "fitness machine")
        #expect(BluetoothUUID.serviceName(BluetoothUUID.rscService) == "running speed and cadence")
        #expect(BluetoothUUID.workoutServices.last == BluetoothUUID.batteryService)
        #expect(BluetoothUUID.workoutServices.contains(BluetoothUUID.fitnessMachineService))
    }
}
