#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BluetoothGATT

// The Bluetooth measurement decoders under libFuzzer. scripts/fuzz-ble builds this target with
// `--sanitize fuzzer --sanitize address -Xswiftc -DFUZZING`: libFuzzer then supplies `main` and
// calls `LLVMFuzzerTestOneInput`. In a normal build it is a small command that runs the same
// checks on the files it is given (a crash input from .build-fuzz-ble/, say).
//
// The first byte picks what the rest is read as (its low four bits): a Heart Rate, CSC or Cycling
// Power Measurement, a Body Sensor Location, a Battery Level, a run of revolution data (6 bytes
// each, and a byte of time between them) through a RevolutionCounter, an RSC Measurement or
// Feature, a Fitness Machine Feature, Indoor Bike or Treadmill Data, a Fitness Machine Status, a
// Training Status, a supported range (of the kind the high four bits pick), or a control point
// request or response. Beyond "no crash, no leak, no hang", it checks what the decoders promise:
// a value is malformed (and says at which byte, inside the value) or it decodes to fields in
// their specification's ranges; what decodes, written again (`bytes`), decodes the same (a
// request that decodes is one its fields can carry: writing it never throws); and every shorter
// prefix of what decodes is malformed, never read as something else, but for the values that end
// in a list or a run of bytes: a strap's RR intervals, a training status's string, an unknown
// status's parameter and a response's, whose prefix is the same value with less of the run. A
// revolution counter's rate is finite, positive and at most its maximum.

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func bleFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    check(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
#else
@main
enum BLEFuzzReplay {
    static func main() throws {
        for path in CommandLine.arguments.dropFirst() {
            check(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            print("\(path): the decoders keep their promises")
        }
    }
}
#endif

func check(_ input: [UInt8]) {
    guard let kind = input.first else { return }
    let bytes = Array(input.dropFirst())
    switch kind % 16 {
    case 0: checkHeartRate(bytes)
    case 1: checkCSC(bytes)
    case 2: checkPower(bytes)
    case 3:
        checkMalformedOrValue(bytes) { (bytes) throws(MalformedNotification) in try BodySensorLocation(bytes: bytes) }
    case 4:
        let level = checkMalformedOrValue(bytes) { (bytes) throws(MalformedNotification) in try BatteryLevel(bytes: bytes) }
        if let level { precondition((0...100).contains(level.percent), "battery \(level.percent)%") }
    case 5: checkRevolutions(bytes, counterBits: kind & 0x80 == 0 ? 16 : 32)
    default: checkFitnessMachine(kind, bytes)
    }
}

/// Decodes `bytes` with `decode`: a value, or a malformation that points inside them; every
/// shorter prefix of a value's bytes is malformed, or a value `isPrefix` of the whole one.
@discardableResult
func checkMalformedOrValue<Value>(
    _ bytes: [UInt8],
    isPrefix: (_ shorter: Value, _ whole: Value) -> Bool = { _, _ in false },
    _ decode: ([UInt8]) throws(MalformedNotification) -> Value
) -> Value? {
    do throws(MalformedNotification) {
        let value = try decode(bytes)
        for end in 0..<bytes.count {
            do throws(MalformedNotification) {
                let shorter = try decode(Array(bytes[..<end]))
                precondition(isPrefix(shorter, value), "\(bytes[..<end]) decodes as \(shorter), a prefix of \(bytes) (\(value))")
            } catch {
                precondition(error.offset <= end, "a malformation at \(error.offset), past the \(end) bytes")
            }
        }
        return value
    } catch {
        precondition(error.offset >= 0 && error.offset <= bytes.count, "a malformation at \(error.offset) of \(bytes.count) bytes")
        precondition(error.bytes == bytes, "a malformation quoting other bytes")
        precondition(!error.description.isEmpty && !error.reasonKey.isEmpty)
        return nil
    }
}

func checkHeartRate(_ bytes: [UInt8]) {
    // A prefix may end between two RR intervals: the same measurement, with some of them.
    let fewerIntervals = { (shorter: HeartRateMeasurement, whole: HeartRateMeasurement) in
        var trimmed = whole
        trimmed.rrIntervals = Array(whole.rrIntervals.prefix(shorter.rrIntervals.count))
        return !shorter.rrIntervals.isEmpty && shorter.rrIntervals.count < whole.rrIntervals.count && shorter == trimmed
    }
    guard let measurement = checkMalformedOrValue(bytes, isPrefix: fewerIntervals, { (bytes) throws(MalformedNotification) in
        try HeartRateMeasurement(bytes: bytes)
    }) else { return }
    if let rate = measurement.heartRate { precondition((0...0xFFFF).contains(rate), "heart rate \(rate)") }
    if measurement.contactSupported, measurement.contactDetected == false { precondition(measurement.heartRate == nil, "a rate without contact") }
    precondition(measurement.rrIntervals.allSatisfy { $0 >= 0 && $0 < 64 }, "RR intervals \(measurement.rrIntervals)")
    let again = try? HeartRateMeasurement(bytes: measurement.bytes)
    precondition(again?.heartRate == measurement.heartRate && again?.rrIntervals == measurement.rrIntervals
        && again?.energyExpended == measurement.energyExpended && again?.contactSupported == measurement.contactSupported,
        "\(measurement) written again reads \(String(describing: again))")
}

func checkCSC(_ bytes: [UInt8]) {
    guard let measurement = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in try CSCMeasurement(bytes: bytes) }) else { return }
    if let crank = measurement.crank { precondition(crank.revolutions <= 0xFFFF, "a 16-bit crank counter at \(crank.revolutions)") }
    let again = try? CSCMeasurement(bytes: measurement.bytes)
    precondition(again == measurement, "\(measurement) written again reads \(String(describing: again))")
}

func checkPower(_ bytes: [UInt8]) {
    guard let measurement = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in try CyclingPowerMeasurement(bytes: bytes) }) else { return }
    precondition((-32768...32767).contains(measurement.power), "power \(measurement.power)")
    if let balance = measurement.pedalPowerBalance { precondition((0...127.5).contains(balance), "balance \(balance)") }
    if let angles = measurement.extremeAngles { precondition((0...4095).contains(angles.maximum) && (0...4095).contains(angles.minimum)) }
    // What the encoder writes (power, crank, wheel) reads back the same.
    let written = CyclingPowerMeasurement(power: measurement.power, crank: measurement.crank, wheel: measurement.wheel)
    let again = try? CyclingPowerMeasurement(bytes: written.bytes)
    precondition(again?.power == measurement.power && again?.crank == measurement.crank && again?.wheel == measurement.wheel,
        "\(measurement) written again reads \(String(describing: again))")
}

/// Revolution data, 6 bytes each (counter, event time) and a byte of time since the last, into a
/// counter: its rate is finite, above 0 and at most its maximum.
func checkRevolutions(_ bytes: [UInt8], counterBits: Int) {
    var counter = RevolutionCounter(counterBits: counterBits, eventTimeUnit: 1.0 / 1024)
    var now = Duration.zero
    var index = 0
    while index + 7 <= bytes.count {
        let word = bytes[index..<index + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let revolutions = counterBits == 32 ? word : word & 0xFFFF
        let eventTime = UInt16(bytes[index + 4]) | UInt16(bytes[index + 5]) << 8
        now += .milliseconds(Int(bytes[index + 6]) * 40)
        index += 7
        switch counter.add(RevolutionData(revolutions: revolutions, eventTime: eventTime), receivedAt: now) {
        case let .revolving(rate, count)?:
            precondition(rate.isFinite && rate > 0 && rate <= counter.maximumRate, "a rate of \(rate)")
            precondition(count > 0, "a rate without revolutions")
        case .stopped?, nil:
            break
        }
    }
}

/// The foot pod and fitness machine values: kinds 6 to 15 of the first byte.
func checkFitnessMachine(_ kind: UInt8, _ bytes: [UInt8]) {
    switch kind % 16 {
    case 6:
        guard let value = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in try RSCMeasurement(bytes: bytes) }) else { return }
        precondition((0...65_535.0 / 256).contains(value.speed) && (0...255).contains(value.cadence), "\(value)")
        precondition(value.strideLength.map { (0...655.35).contains($0) } ?? true, "\(value)")
        checkWrittenAgain(value, value.bytes) { (bytes) throws(MalformedNotification) in try RSCMeasurement(bytes: bytes) }
    case 7:
        guard let value = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in try RSCFeature(bytes: bytes) }) else { return }
        precondition(value.bytes == bytes, "\(value) is written as other bytes")
    case 8:
        guard let value = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in try FitnessMachineFeature(bytes: bytes) }) else { return }
        precondition(value.bytes == bytes, "\(value) is written as other bytes")
    case 9:
        guard let value = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in try IndoorBikeData(bytes: bytes) }) else { return }
        precondition(value.speed.map { (0...182.05).contains($0) } ?? true, "a speed of \(String(describing: value.speed)) m/s")
        precondition(value.cadence.map { (0...32_767.5).contains($0) } ?? true && value.heartRate.map { (0...255).contains($0) } ?? true)
        precondition(value.totalDistance.map { (0...16_777_215).contains($0) } ?? true, "\(value)")
        checkWrittenAgain(value, value.bytes) { (bytes) throws(MalformedNotification) in try IndoorBikeData(bytes: bytes) }
    case 10:
        guard let value = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in try TreadmillData(bytes: bytes) }) else { return }
        precondition(value.incline.map { (-3_276.8...3_276.7).contains($0.inclination) } ?? true, "\(value)")
        precondition(value.pace.map { (0...25.5).contains($0) } ?? true && value.expendedEnergy?.total.map { $0 < 0xFFFF } ?? true)
        checkWrittenAgain(value, value.bytes) { (bytes) throws(MalformedNotification) in try TreadmillData(bytes: bytes) }
    case 11:
        // An unknown op code's parameter is a run of bytes: its prefix is the same status with fewer.
        let fewerBytes = { (shorter: FitnessMachineStatus, whole: FitnessMachineStatus) -> Bool in
            guard case let .unknown(code, parameter) = shorter, case let .unknown(wholeCode, wholeParameter) = whole else { return false }
            return code == wholeCode && wholeParameter.starts(with: parameter)
        }
        guard let value = checkMalformedOrValue(bytes, isPrefix: fewerBytes, { (bytes) throws(MalformedNotification) in
            try FitnessMachineStatus(bytes: bytes)
        }) else { return }
        checkWrittenAgain(value, value.bytes) { (bytes) throws(MalformedNotification) in try FitnessMachineStatus(bytes: bytes) }
    case 12:
        let shorterString = { (shorter: TrainingStatus, whole: TrainingStatus) -> Bool in
            shorter.status == whole.status && shorter.stringIsExtended == whole.stringIsExtended && shorter.string != nil && whole.string != nil
        }
        guard let value = checkMalformedOrValue(bytes, isPrefix: shorterString, { (bytes) throws(MalformedNotification) in
            try TrainingStatus(bytes: bytes)
        }) else { return }
        checkWrittenAgain(value, value.bytes) { (bytes) throws(MalformedNotification) in try TrainingStatus(bytes: bytes) }
    case 13:
        let rangeKind = SupportedRange.Kind.allCases[Int(kind >> 4) % SupportedRange.Kind.allCases.count]
        guard let value = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in
            try SupportedRange(rangeKind, bytes: bytes)
        }) else { return }
        precondition(value.minimum <= value.maximum && value.increment >= 0, "\(value)")
        precondition(value.contains(value.minimum) && value.contains(value.maximum) && value.isOnIncrement(value.minimum), "\(value)")
        precondition(value.contains(value.nearest(value.maximum + 1)), "\(value)")
        checkWrittenAgain(value, value.bytes) { (bytes) throws(MalformedNotification) in try SupportedRange(rangeKind, bytes: bytes) }
    case 14:
        guard let value = checkMalformedOrValue(bytes, { (bytes) throws(MalformedNotification) in
            try FitnessMachineControlPoint.Request(bytes: bytes)
        }) else { return }
        do throws(UnencodableValue) {
            let written = try value.bytes
            checkWrittenAgain(value, written) { (bytes) throws(MalformedNotification) in try FitnessMachineControlPoint.Request(bytes: bytes) }
        } catch {
            preconditionFailure("\(value), read from \(bytes), cannot be written: \(error)")
        }
    default:
        let fewerBytes = { (shorter: FitnessMachineControlPoint.Response, whole: FitnessMachineControlPoint.Response) -> Bool in
            shorter.requestOpCode == whole.requestOpCode && shorter.result == whole.result && whole.parameter.starts(with: shorter.parameter)
        }
        guard let value = checkMalformedOrValue(bytes, isPrefix: fewerBytes, { (bytes) throws(MalformedNotification) in
            try FitnessMachineControlPoint.Response(bytes: bytes)
        }) else { return }
        if let speeds = value.spinDownTargetSpeeds { precondition(speeds.lowerBound >= 0 && speeds.upperBound <= 182.05, "\(speeds)") }
        precondition(value.bytes == bytes, "\(value) is written as other bytes")
    }
}

/// What `value` is written as (`written`) decodes to `value` again.
func checkWrittenAgain<Value: Equatable>(_ value: Value, _ written: [UInt8], _ decode: ([UInt8]) throws(MalformedNotification) -> Value) {
    let again = try? decode(written)  // a failure is the precondition's to report, with the value
    precondition(again == value, "\(value) written again (\(written)) reads \(String(describing: again))")
}
