import BluetoothSensors
import Testing

/// The GATT decoders, field by field, from the layouts of the Bluetooth SIG's Heart Rate,
/// Cycling Speed and Cadence and Cycling Power service specifications, with every combination
/// of their flags: each value is encoded here field by field, in the specification's order, and
/// must decode to what was encoded.
struct DecoderTests {
    // MARK: - Heart Rate Measurement

    @Test func heartRateExamples() throws {
        // 72 bpm, contact supported and detected.
        let basic = try HeartRateMeasurement(bytes: [0x06, 0x48])
        #expect(basic.heartRate == 72 && basic.contactSupported && basic.contactDetected == true && basic.rrIntervals.isEmpty)
        // 72 bpm and one RR interval of 768/1024 s.
        let withRR = try HeartRateMeasurement(bytes: [0x16, 0x48, 0x00, 0x03])
        #expect(withRR.heartRate == 72 && withRR.rrIntervals == [0.75])
        // 16-bit heart rate, energy expended 1000 kJ, two RR intervals; contact not supported.
        let full = try HeartRateMeasurement(bytes: [0x19, 0x2C, 0x01, 0xE8, 0x03, 0x00, 0x04, 0x00, 0x02])
        #expect(full.heartRate == 300 && full.energyExpended == 1000 && full.rrIntervals == [1.0, 0.5])
        #expect(!full.contactSupported && full.contactDetected == nil)
    }

    /// No skin contact means no value, not zero; neither is a rate of 0.
    @Test func noContactIsNoValue() throws {
        let off = try HeartRateMeasurement(bytes: [0x04, 0x50])
        #expect(off.heartRate == nil && off.contactSupported && off.contactDetected == false)
        #expect(try HeartRateMeasurement(bytes: [0x00, 0x00]).heartRate == nil)
    }

    @Test(arguments: 0..<32)
    func everyHeartRateFlagCombination(flags: Int) throws {
        var bytes: [UInt8] = [UInt8(flags)]
        let rate = flags & 0x01 != 0 ? 260 : 143
        if flags & 0x01 != 0 { bytes += le16(rate) } else { bytes.append(UInt8(rate)) }
        if flags & 0x08 != 0 { bytes += le16(4321) }
        let intervals = [0.5, 0.75, 1.25]
        if flags & 0x10 != 0 { for interval in intervals { bytes += le16(Int(interval * 1024)) } }
        let decoded = try HeartRateMeasurement(bytes: bytes)
        let noContact = flags & 0x04 != 0 && flags & 0x02 == 0
        #expect(decoded.heartRate == (noContact ? nil : rate))
        #expect(decoded.contactSupported == (flags & 0x04 != 0))
        #expect(decoded.energyExpended == (flags & 0x08 != 0 ? 4321 : nil))
        #expect(decoded.rrIntervals == (flags & 0x10 != 0 ? intervals : []))
        // One byte short of any of it, or one too many, is malformed.
        #expect(throws: MalformedNotification.self) { try HeartRateMeasurement(bytes: Array(bytes.dropLast())) }
        if flags & 0x10 == 0 {
            #expect(throws: MalformedNotification.self) { try HeartRateMeasurement(bytes: bytes + [0x01]) }
        }
    }

    @Test func malformedHeartRatesSayWhatAndWhere() {
        let truncated = #expect(throws: MalformedNotification.self) { try HeartRateMeasurement(bytes: [0x01, 0x50]) }
        #expect(truncated?.reason == .truncated(field: "heart rate (16 bits)", needed: 2) && truncated?.offset == 1)
        #expect(truncated?.description == "A Heart Rate Measurement notification was dropped: it ends before its heart rate (16 bits) (2 bytes), at byte 1 of 01 50.")
        let trailing = #expect(throws: MalformedNotification.self) { try HeartRateMeasurement(bytes: [0x00, 0x50, 0x01]) }
        #expect(trailing?.reason == .trailingBytes(1) && trailing?.reasonKey == "trailing_bytes")
        #expect(throws: MalformedNotification.self) { try HeartRateMeasurement(bytes: []) }
        #expect(throws: MalformedNotification.self) { try HeartRateMeasurement(bytes: [0x10, 0x50]) }  // RR announced, none sent
    }

    @Test func bodySensorLocationAndBattery() throws {
        #expect(try BodySensorLocation(bytes: [0x01]) == .chest)
        #expect(try BodySensorLocation(bytes: [0x06]) == .foot)
        #expect(throws: MalformedNotification.self) { try BodySensorLocation(bytes: [0x07]) }
        #expect(try BatteryLevel(bytes: [0x5A]).percent == 90)
        #expect(throws: MalformedNotification.self) { try BatteryLevel(bytes: [101]) }
        #expect(throws: MalformedNotification.self) { try BatteryLevel(bytes: [50, 0]) }
    }

    // MARK: - CSC Measurement

    @Test(arguments: 0..<4)
    func everyCSCFlagCombination(flags: Int) throws {
        var bytes: [UInt8] = [UInt8(flags)]
        if flags & 0x01 != 0 { bytes += le32(0xDEAD_BEEF) + le16(0xABCD) }
        if flags & 0x02 != 0 { bytes += le16(0x1234) + le16(0x5678) }
        let decoded = try CSCMeasurement(bytes: bytes)
        #expect(decoded.wheel == (flags & 0x01 != 0 ? RevolutionData(revolutions: 0xDEAD_BEEF, eventTime: 0xABCD) : nil))
        #expect(decoded.crank == (flags & 0x02 != 0 ? RevolutionData(revolutions: 0x1234, eventTime: 0x5678) : nil))
        if flags != 0 { #expect(throws: MalformedNotification.self) { try CSCMeasurement(bytes: Array(bytes.dropLast())) } }
        #expect(throws: MalformedNotification.self) { try CSCMeasurement(bytes: bytes + [0]) }
    }

    // MARK: - Cycling Power Measurement

    /// All 8,192 combinations of the 13 flags, each field in its place.
    @Test func everyCyclingPowerFlagCombination() throws {
        for flags in 0..<(1 << 13) {
            var bytes = le16(flags) + le16(Int(UInt16(bitPattern: -42)))
            if flags & 0x0001 != 0 { bytes.append(101) }
            if flags & 0x0004 != 0 { bytes += le16(3200) }
            if flags & 0x0010 != 0 { bytes += le32(70_000) + le16(4096) }
            if flags & 0x0020 != 0 { bytes += le16(65_000) + le16(1024) }
            if flags & 0x0040 != 0 { bytes += le16(900) + le16(Int(UInt16(bitPattern: -50))) }
            if flags & 0x0080 != 0 { bytes += le16(640) + le16(32) }
            if flags & 0x0100 != 0 { bytes += [0x5A, 0x41, 0x0B] }  // maximum 0x15A = 346°, minimum 0x0B4 = 180°
            if flags & 0x0200 != 0 { bytes += le16(10) }
            if flags & 0x0400 != 0 { bytes += le16(190) }
            if flags & 0x0800 != 0 { bytes += le16(612) }
            let decoded = try CyclingPowerMeasurement(bytes: bytes)
            #expect(decoded.power == -42)
            #expect(decoded.pedalPowerBalance == (flags & 0x0001 != 0 ? 50.5 : nil))
            #expect(decoded.balanceIsLeft == (flags & 0x0002 != 0))
            #expect(decoded.accumulatedTorque == (flags & 0x0004 != 0 ? 100 : nil))
            #expect(decoded.torqueIsCrankBased == (flags & 0x0008 != 0))
            #expect(decoded.wheel == (flags & 0x0010 != 0 ? RevolutionData(revolutions: 70_000, eventTime: 4096) : nil))
            #expect(decoded.crank == (flags & 0x0020 != 0 ? RevolutionData(revolutions: 65_000, eventTime: 1024) : nil))
            #expect(decoded.extremeForces == (flags & 0x0040 != 0 ? Extremes(maximum: 900, minimum: -50) : nil))
            #expect(decoded.extremeTorques == (flags & 0x0080 != 0 ? Extremes(maximum: 20, minimum: 1) : nil))
            #expect(decoded.extremeAngles == (flags & 0x0100 != 0 ? Extremes(maximum: 346, minimum: 180) : nil))
            #expect(decoded.topDeadSpotAngle == (flags & 0x0200 != 0 ? 10 : nil))
            #expect(decoded.bottomDeadSpotAngle == (flags & 0x0400 != 0 ? 190 : nil))
            #expect(decoded.accumulatedEnergy == (flags & 0x0800 != 0 ? 612 : nil))
            #expect(decoded.offsetCompensation == (flags & 0x1000 != 0))
            if bytes.count > 4 {
                #expect(throws: MalformedNotification.self) { try CyclingPowerMeasurement(bytes: Array(bytes.dropLast())) }
            }
        }
    }

    @Test func cyclingPowerExample() throws {
        // 250 W with crank data: 16 revolutions, the last at 1 s.
        let measurement = try CyclingPowerMeasurement(bytes: [0x20, 0x00, 0xFA, 0x00, 0x10, 0x00, 0x00, 0x04])
        #expect(measurement.power == 250 && measurement.crank == RevolutionData(revolutions: 16, eventTime: 1024))
        #expect(throws: MalformedNotification.self) { try CyclingPowerMeasurement(bytes: [0x00, 0x00, 0xFA]) }
    }

    // MARK: - Revolutions into rates

    @Test func ratesFromTwoMeasurements() {
        var wheel = RevolutionCounter(counterBits: 32, eventTimeUnit: 1.0 / 1024)
        #expect(wheel.add(RevolutionData(revolutions: 100, eventTime: 1024), receivedAt: .seconds(0)) == nil)
        #expect(wheel.add(RevolutionData(revolutions: 104, eventTime: 3072), receivedAt: .seconds(2)) == .revolving(rate: 2, revolutions: 4))
    }

    /// Every counter and the event time wrap around.
    @Test func wrapAround() {
        var wheel = RevolutionCounter(counterBits: 32, eventTimeUnit: 1.0 / 1024)
        _ = wheel.add(RevolutionData(revolutions: 0xFFFF_FFFE, eventTime: 0xFC00), receivedAt: .seconds(0))
        #expect(wheel.add(RevolutionData(revolutions: 2, eventTime: 0x0400), receivedAt: .seconds(2)) == .revolving(rate: 2, revolutions: 4))
        var crank = RevolutionCounter(counterBits: 16, eventTimeUnit: 1.0 / 1024)
        _ = crank.add(RevolutionData(revolutions: 0xFFFF, eventTime: 0xFE00), receivedAt: .seconds(0))
        #expect(crank.add(RevolutionData(revolutions: 1, eventTime: 0x0200), receivedAt: .seconds(1)) == .revolving(rate: 2, revolutions: 2))
        // A power meter's wheel counts its time in 1/2048 s.
        var powerWheel = RevolutionCounter(counterBits: 32, eventTimeUnit: 1.0 / 2048)
        _ = powerWheel.add(RevolutionData(revolutions: 10, eventTime: 0), receivedAt: .seconds(0))
        #expect(powerWheel.add(RevolutionData(revolutions: 14, eventTime: 2048), receivedAt: .seconds(1)) == .revolving(rate: 4, revolutions: 4))
    }

    /// A repeated event time is no new revolution (no value); none for 3 s is a rate of 0, once.
    @Test func noNewRevolutionIsNothingThenZero() {
        var crank = RevolutionCounter(counterBits: 16, eventTimeUnit: 1.0 / 1024)
        let still = RevolutionData(revolutions: 50, eventTime: 2048)
        _ = crank.add(RevolutionData(revolutions: 49, eventTime: 1024), receivedAt: .seconds(0))
        #expect(crank.add(still, receivedAt: .seconds(1)) == .revolving(rate: 1, revolutions: 1))
        #expect(crank.add(still, receivedAt: .seconds(2)) == nil)
        #expect(crank.add(still, receivedAt: .milliseconds(3_900)) == nil)
        #expect(crank.add(still, receivedAt: .seconds(4)) == .stopped)
        #expect(crank.add(still, receivedAt: .seconds(5)) == nil)
        #expect(crank.add(RevolutionData(revolutions: 51, eventTime: 8192), receivedAt: .seconds(8)) == .revolving(rate: 1.0 / 6, revolutions: 1))
    }

    /// A counter reset (revolutions going back) or a gap the event time cannot span gives nothing.
    @Test func resetsAndLongGapsGiveNothing() {
        var wheel = RevolutionCounter(counterBits: 32, eventTimeUnit: 1.0 / 1024)
        _ = wheel.add(RevolutionData(revolutions: 5_000, eventTime: 1024), receivedAt: .seconds(0))
        #expect(wheel.add(RevolutionData(revolutions: 3, eventTime: 2048), receivedAt: .seconds(1)) == nil)
        #expect(wheel.add(RevolutionData(revolutions: 5, eventTime: 4096), receivedAt: .seconds(3)) == .revolving(rate: 1, revolutions: 2))
        #expect(wheel.add(RevolutionData(revolutions: 10, eventTime: 8192), receivedAt: .seconds(90)) == nil)
    }
}

func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16((value >> 16) & 0xFFFF) }
