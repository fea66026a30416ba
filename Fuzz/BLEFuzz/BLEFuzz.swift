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
// The first byte picks what the rest is read as: a Heart Rate, CSC or Cycling Power Measurement,
// a Body Sensor Location, a Battery Level, or a run of revolution data (6 bytes each, and a byte
// of time between them) through a RevolutionCounter. Beyond "no crash, no leak, no hang", it
// checks what the decoders promise: a value is malformed (and says at which byte, inside the
// value) or it decodes to fields in their specification's ranges; what decodes, written again
// (`bytes`), decodes the same; and every shorter prefix of what decodes is malformed, never read
// as something else, but for a strap's RR intervals: a list, whose prefix is the same measurement
// with fewer of them. A revolution counter's rate is finite, positive and at most its maximum.

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
    switch kind % 6 {
    case 0: checkHeartRate(bytes)
    case 1: checkCSC(bytes)
    case 2: checkPower(bytes)
    case 3:
        checkMalformedOrValue(bytes) { (bytes) throws(MalformedNotification) in try BodySensorLocation(bytes: bytes) }
    case 4:
        let level = checkMalformedOrValue(bytes) { (bytes) throws(MalformedNotification) in try BatteryLevel(bytes: bytes) }
        if let level { precondition((0...100).contains(level.percent), "battery \(level.percent)%") }
    default: checkRevolutions(bytes, counterBits: kind & 0x80 == 0 ? 16 : 32)
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
