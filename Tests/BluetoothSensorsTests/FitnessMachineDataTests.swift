import BluetoothSensors
import Testing

/// Foot pods, treadmills and trainers, as the Running Speed and Cadence and Fitness Machine
/// Service (v1.0) specifications lay their data out: values written here by hand from the
/// specifications' field tables, every combination of flags built field by field and decoded, our
/// encoder's bytes equal to those built, and every shorter prefix malformed at the field it cuts.
struct FitnessMachineDataTests {
    /// A value built field by field: the bytes, and where each field starts, for the truncations.
    struct Built {
        var bytes: [UInt8]
        var fields: [(name: String, start: Int)] = []

        init(flags: Int, size: Int) {
            bytes = size == 1 ? [UInt8(flags)] : le16(flags)
        }

        mutating func add(_ name: String, _ field: [UInt8]) {
            fields.append((name, bytes.count))
            bytes += field
        }

        /// The shorter prefixes that are not malformed as they should be: empty, or cut in the
        /// flags, or in the field they end in, at that field's first byte. None, when all is well.
        func wrongTruncations(flagsSize: Int, _ decode: ([UInt8]) throws(MalformedNotification) -> Void) -> [String] {
            var wrong: [String] = []
            for end in 0..<bytes.count {
                let prefix = Array(bytes[..<end])
                do throws(MalformedNotification) {
                    try decode(prefix)
                    wrong.append("\(prefix) decodes")
                } catch {
                    let expected: (MalformedNotification.Reason, Int)
                    if end == 0 {
                        expected = (.empty, 0)
                    } else if end < flagsSize {
                        expected = (.truncated(field: "flags", needed: flagsSize), 0)
                    } else {
                        let cut = fields.last { $0.start <= end }
                        guard case let .truncated(field, needed) = error.reason, field == cut?.name, error.offset == cut?.start else {
                            wrong.append("\(prefix): \(error), not in \(cut?.name ?? "?")")
                            continue
                        }
                        expected = (.truncated(field: field, needed: needed), error.offset)
                    }
                    if error.reason != expected.0 || error.offset != expected.1 { wrong.append("\(prefix): \(error)") }
                }
            }
            return wrong
        }
    }

    // MARK: - RSC Measurement

    @Test func rscExamples() throws {
        // Flags 0x00: speed and cadence only. 0x0280 = 640/256 = 2.5 m/s, 0xA0 = 160 steps/min, walking.
        let walk = try RSCMeasurement(bytes: [0x00, 0x80, 0x02, 0xA0])
        #expect(walk == RSCMeasurement(speed: 2.5, cadence: 160))
        // Flags 0x07: stride (bit 0) 0x008C = 1.40 m, distance (bit 1) 0x2710 = 10000 × 0.1 = 1000 m,
        // running (bit 2). Speed 0x0300 = 3.0 m/s, cadence 0xAA = 170.
        let run = try RSCMeasurement(bytes: [0x07, 0x00, 0x03, 0xAA, 0x8C, 0x00, 0x10, 0x27, 0x00, 0x00])
        #expect(run == RSCMeasurement(speed: 3, cadence: 170, strideLength: 1.4, totalDistance: 1000, isRunning: true))
        #expect(run.bytes == [0x07, 0x00, 0x03, 0xAA, 0x8C, 0x00, 0x10, 0x27, 0x00, 0x00])
        let short = #expect(throws: MalformedNotification.self) { try RSCMeasurement(bytes: [0x02, 0x00, 0x03, 0xAA, 0x10]) }
        #expect(short?.reason == .truncated(field: "total distance", needed: 4) && short?.offset == 4)
        #expect(short?.description == "A RSC Measurement notification was dropped: it ends before its total distance (4 bytes), at byte 4 of 02 00 03 AA 10.")
        #expect(throws: MalformedNotification.self) { try RSCMeasurement(bytes: [0x00, 0x80, 0x02, 0xA0, 0x00]) }
        // What a sensor cannot send is clamped: 300 m/s is 65,535/256.
        #expect(try RSCMeasurement(bytes: RSCMeasurement(speed: 300, cadence: 400).bytes) == RSCMeasurement(speed: 65_535 / 256, cadence: 255))
    }

    @Test(arguments: 0..<8)
    func everyRSCFlagCombination(flags: Int) throws {
        var built = Built(flags: flags, size: 1)
        built.add("instantaneous speed", le16(0x0455))       // 1109/256 m/s
        built.add("instantaneous cadence", [0xB4])           // 180
        if flags & 0x01 != 0 { built.add("instantaneous stride length", le16(123)) }
        if flags & 0x02 != 0 { built.add("total distance", le32(123_456)) }
        let decoded = try RSCMeasurement(bytes: built.bytes)
        #expect(decoded.speed == 1109.0 / 256 && decoded.cadence == 180 && decoded.isRunning == (flags & 0x04 != 0))
        #expect(decoded.strideLength == (flags & 0x01 != 0 ? 1.23 : nil))
        #expect(decoded.totalDistance == (flags & 0x02 != 0 ? 12_345.6 : nil))
        #expect(decoded.bytes == built.bytes)
        #expect(built.wrongTruncations(flagsSize: 1) { (bytes) throws(MalformedNotification) in _ = try RSCMeasurement(bytes: bytes) } == [])
    }

    @Test func rscFeature() throws {
        let feature = try RSCFeature(bytes: [0x07, 0x00])
        #expect(feature == [.strideLength, .totalDistance, .walkingOrRunningStatus] && feature.bytes == [0x07, 0x00])
        #expect(try RSCFeature(bytes: [0x18, 0x80]).rawValue == 0x8018)  // reserved bit 15 kept
        #expect(throws: MalformedNotification.self) { try RSCFeature(bytes: [0x07]) }
        #expect(throws: MalformedNotification.self) { try RSCFeature(bytes: [0x07, 0x00, 0x00]) }
    }

    // MARK: - Fitness Machine Feature

    @Test func fitnessMachineFeature() throws {
        // Machine features 0x00004002: cadence (bit 1) and power (bit 14); target settings
        // 0x00002008: power (bit 3) and indoor bike simulation (bit 13). Little-endian each.
        let trainer = try FitnessMachineFeature(bytes: [0x02, 0x40, 0x00, 0x00, 0x08, 0x20, 0x00, 0x00])
        #expect(trainer.machine == [.cadence, .powerMeasurement] && trainer.targets == [.power, .indoorBikeSimulation])
        // A treadmill: every machine feature but cadence, power and resistance; bit 16 of the
        // targets (targeted cadence) sits in the third byte.
        let treadmill = FitnessMachineFeature(machine: [.averageSpeed, .totalDistance, .inclination, .elevationGain, .pace, .userDataRetention],
                                              targets: [.speed, .inclination, .targetedCadence])
        #expect(treadmill.bytes == [0x3D, 0x00, 0x01, 0x00, 0x03, 0x00, 0x01, 0x00])
        #expect(try FitnessMachineFeature(bytes: treadmill.bytes) == treadmill)
        let short = #expect(throws: MalformedNotification.self) { try FitnessMachineFeature(bytes: [0x02, 0x40, 0x00, 0x00, 0x08]) }
        #expect(short?.reason == .truncated(field: "target setting features", needed: 4) && short?.offset == 4)
    }

    // MARK: - Indoor Bike Data

    @Test func indoorBikeExamples() throws {
        // Flags 0x0044: cadence (bit 2) and power (bit 6); bit 0 clear, so the speed comes first.
        // Speed 0x03E8 = 1000 × 0.01 = 10 km/h, cadence 0x00B4 = 180 × 0.5 = 90 rpm, power 0x00FA = 250 W.
        let ride = try IndoorBikeData(bytes: [0x44, 0x00, 0xE8, 0x03, 0xB4, 0x00, 0xFA, 0x00])
        #expect(ride == IndoorBikeData(speed: 10 / 3.6, cadence: 90, power: 250))
        #expect(abs((ride.speed ?? 0) - 2.7778) < 0.0001)
        // More Data (bit 0) with the heart rate (bit 9): no speed, 0x8C = 140 bpm.
        let more = try IndoorBikeData(bytes: [0x01, 0x02, 0x8C])
        #expect(more.speed == nil && more.heartRate == 140)
        // Energy (bit 8): 0xFFFF and 0xFF say "data not available" (v1.0): no value, not 65,535 kcal.
        let energy = try IndoorBikeData(bytes: [0x01, 0x01, 0x2C, 0x01, 0xFF, 0xFF, 0xFF])
        #expect(energy.expendedEnergy == ExpendedEnergy(total: 300, perHour: nil, perMinute: nil))
        #expect(energy.bytes == [0x01, 0x01, 0x2C, 0x01, 0xFF, 0xFF, 0xFF])
        // Negative power (a motor driving the pedals) and resistance are signed.
        #expect(try IndoorBikeData(bytes: [0xE1, 0x00, 0xF6, 0xFF, 0x9C, 0xFF, 0x00, 0x80]) == IndoorBikeData(resistanceLevel: -10, power: -100, averagePower: -32768))
        let trailing = #expect(throws: MalformedNotification.self) { try IndoorBikeData(bytes: [0x01, 0x00, 0x00]) }
        #expect(trailing?.reason == .trailingBytes(1) && trailing?.offset == 2)
    }

    /// All 8,192 combinations of the 13 flags, each field in its place.
    @Test func everyIndoorBikeFlagCombination() throws {
        for flags in 0..<(1 << 13) {
            var built = Built(flags: flags, size: 2)
            if flags & 0x0001 == 0 { built.add("instantaneous speed", le16(2_520)) }     // 25.2 km/h = 7 m/s
            if flags & 0x0002 != 0 { built.add("average speed", le16(2_340)) }           // 23.4 km/h = 6.5 m/s
            if flags & 0x0004 != 0 { built.add("instantaneous cadence", le16(181)) }     // 90.5 rpm
            if flags & 0x0008 != 0 { built.add("average cadence", le16(170)) }           // 85 rpm
            if flags & 0x0010 != 0 { built.add("total distance", [0x40, 0xE2, 0x01]) }   // 123,456 m
            if flags & 0x0020 != 0 { built.add("resistance level", le16(12)) }
            if flags & 0x0040 != 0 { built.add("instantaneous power", le16(310)) }
            if flags & 0x0080 != 0 { built.add("average power", le16(245)) }
            if flags & 0x0100 != 0 {
                built.add("total energy", le16(456))
                built.add("energy per hour", le16(780))
                built.add("energy per minute", [13])
            }
            if flags & 0x0200 != 0 { built.add("heart rate", [151]) }
            if flags & 0x0400 != 0 { built.add("metabolic equivalent", [84]) }           // 8.4 MET
            if flags & 0x0800 != 0 { built.add("elapsed time", le16(3_725)) }
            if flags & 0x1000 != 0 { built.add("remaining time", le16(875)) }
            let decoded = try IndoorBikeData(bytes: built.bytes)
            func when<Value>(_ bit: Int, _ value: Value) -> Value? { flags & (1 << bit) != 0 ? value : nil }
            func unless<Value>(_ bit: Int, _ value: Value) -> Value? { flags & (1 << bit) == 0 ? value : nil }
            #expect(decoded.speed == unless(0, 2_520.0 / 360))
            #expect(decoded.averageSpeed == when(1, 2_340.0 / 360))
            #expect(decoded.cadence == when(2, 90.5) && decoded.averageCadence == when(3, 85))
            #expect(decoded.totalDistance == when(4, 123_456) && decoded.resistanceLevel == when(5, 12))
            #expect(decoded.power == when(6, 310) && decoded.averagePower == when(7, 245))
            #expect(decoded.expendedEnergy == when(8, ExpendedEnergy(total: 456, perHour: 780, perMinute: 13)))
            #expect(decoded.heartRate == when(9, 151) && decoded.metabolicEquivalent == when(10, 8.4))
            #expect(decoded.elapsedTime == when(11, Duration.seconds(3_725)) && decoded.remainingTime == when(12, Duration.seconds(875)))
            #expect(decoded.bytes == built.bytes, "flags \(flags)")
            let wrong = built.wrongTruncations(flagsSize: 2) { (bytes) throws(MalformedNotification) in _ = try IndoorBikeData(bytes: bytes) }
            #expect(wrong == [], "flags \(flags)")
            #expect(throws: MalformedNotification.self) { try IndoorBikeData(bytes: built.bytes + [0]) }
        }
    }

    // MARK: - Treadmill Data

    @Test func treadmillExamples() throws {
        // Flags 0x000C: distance (bit 2), inclination and ramp angle (bit 3), speed (bit 0 clear).
        // 0x0352 = 850 → 8.5 km/h; 0x0005DC = 1500 m; 0x000F = 15 → 1.5 %; 0x0014 = 20 → 2.0°.
        let run = try TreadmillData(bytes: [0x0C, 0x00, 0x52, 0x03, 0xDC, 0x05, 0x00, 0x0F, 0x00, 0x14, 0x00])
        #expect(run == TreadmillData(speed: 8.5 / 3.6, totalDistance: 1500, incline: .init(inclination: 1.5, rampAngle: 2)))
        // Downhill is negative: 0xFFEC = -20 → -2.0 %. Pace (bit 5), v1.0's one byte in 0.1 km/min:
        // 0x02 = 0.2 km/min (12 km/h).
        let downhill = try TreadmillData(bytes: [0x29, 0x00, 0xEC, 0xFF, 0x00, 0x00, 0x02])
        #expect(downhill.speed == nil && downhill.incline == .init(inclination: -2, rampAngle: 0) && downhill.pace == 0.2)
        // Force on belt and power output (bit 12), signed: braking is below 0.
        #expect(try TreadmillData(bytes: [0x01, 0x10, 0xCE, 0xFF, 0x9C, 0xFF]).beltForce == .init(force: -50, powerOutput: -100))
    }

    /// All 8,192 combinations of the 13 flags, each field in its place.
    @Test func everyTreadmillFlagCombination() throws {
        for flags in 0..<(1 << 13) {
            var built = Built(flags: flags, size: 2)
            if flags & 0x0001 == 0 { built.add("instantaneous speed", le16(1_080)) }     // 10.8 km/h = 3 m/s
            if flags & 0x0002 != 0 { built.add("average speed", le16(900)) }             // 9 km/h = 2.5 m/s
            if flags & 0x0004 != 0 { built.add("total distance", [0x10, 0x27, 0x00]) }   // 10,000 m
            if flags & 0x0008 != 0 {
                built.add("inclination", le16(Int(UInt16(bitPattern: -35))))            // -3.5 %
                built.add("ramp angle setting", le16(21))                               // 2.1°
            }
            if flags & 0x0010 != 0 {
                built.add("positive elevation gain", le16(1_234))                       // 123.4 m
                built.add("negative elevation gain", le16(56))                          // 5.6 m
            }
            if flags & 0x0020 != 0 { built.add("instantaneous pace", [3]) }              // 0.3 km/min
            if flags & 0x0040 != 0 { built.add("average pace", [2]) }
            if flags & 0x0080 != 0 {
                built.add("total energy", le16(321))
                built.add("energy per hour", le16(654))
                built.add("energy per minute", [11])
            }
            if flags & 0x0100 != 0 { built.add("heart rate", [162]) }
            if flags & 0x0200 != 0 { built.add("metabolic equivalent", [97]) }           // 9.7 MET
            if flags & 0x0400 != 0 { built.add("elapsed time", le16(1_800)) }
            if flags & 0x0800 != 0 { built.add("remaining time", le16(600)) }
            if flags & 0x1000 != 0 {
                built.add("force on belt", le16(Int(UInt16(bitPattern: -12))))
                built.add("power output", le16(215))
            }
            let decoded = try TreadmillData(bytes: built.bytes)
            func when<Value>(_ bit: Int, _ value: Value) -> Value? { flags & (1 << bit) != 0 ? value : nil }
            func unless<Value>(_ bit: Int, _ value: Value) -> Value? { flags & (1 << bit) == 0 ? value : nil }
            #expect(decoded.speed == unless(0, 3) && decoded.averageSpeed == when(1, 2.5))
            #expect(decoded.totalDistance == when(2, 10_000))
            #expect(decoded.incline == when(3, TreadmillData.Incline(inclination: -3.5, rampAngle: 2.1)))
            #expect(decoded.elevationGain == when(4, TreadmillData.ElevationGain(positive: 123.4, negative: 5.6)))
            #expect(decoded.pace == when(5, 0.3) && decoded.averagePace == when(6, 0.2))
            #expect(decoded.expendedEnergy == when(7, ExpendedEnergy(total: 321, perHour: 654, perMinute: 11)))
            #expect(decoded.heartRate == when(8, 162) && decoded.metabolicEquivalent == when(9, 9.7))
            #expect(decoded.elapsedTime == when(10, Duration.seconds(1_800)) && decoded.remainingTime == when(11, Duration.seconds(600)))
            #expect(decoded.beltForce == when(12, TreadmillData.BeltForce(force: -12, powerOutput: 215)))
            #expect(decoded.bytes == built.bytes, "flags \(flags)")
            let wrong = built.wrongTruncations(flagsSize: 2) { (bytes) throws(MalformedNotification) in _ = try TreadmillData(bytes: bytes) }
            #expect(wrong == [], "flags \(flags)")
        }
    }

    /// A device's values past what a field carries are clamped, as a display saturates.
    @Test func dataEncodersClamp() throws {
        let wild = TreadmillData(speed: 1_000, incline: .init(inclination: -5_000, rampAngle: .nan), pace: 99,
                                 expendedEnergy: ExpendedEnergy(total: 70_000, perHour: -5, perMinute: 255))
        let read = try TreadmillData(bytes: wild.bytes)
        #expect(read.speed == 65_535 / 360 && read.incline == .init(inclination: -3_276.8, rampAngle: 0) && read.pace == 25.5)
        // The largest value is "not available": a real one stops just below it.
        #expect(read.expendedEnergy == ExpendedEnergy(total: 65_534, perHour: 0, perMinute: 254))
    }
}
