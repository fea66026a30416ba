import ArgumentParser
import BluetoothSensors
import Foundation

/// `gpsbench trainer-commands --bus ADDRESS --address DEVICE --count N`: a `BluetoothSensor`
/// reading a trainer of `gpsbench fake-bluez` (another process) and driving it: control asked for,
/// then `N` target powers (200 W and 210 W in turn), each timed from the call to its return (the
/// request written, the trainer's indication read), for `scripts/bench.d/77-trainer.py`. Prints
/// one JSON object: the median and the 99th percentile, in milliseconds.
struct TrainerCommandsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trainer-commands",
        abstract: "Time a fake trainer's control point round trips through BluetoothSensor; print JSON.")

    @Option(help: "The D-Bus address of the bus the fake BlueZ is on.")
    var bus: String

    @Option(help: "The trainer's Bluetooth address.")
    var address: String

    @Option(help: "How many target powers to set.")
    var count = 500

    func run() async throws {
        let sensor = BluetoothSensor(address: address, bus: .address(bus))
        guard sensor.start(delivering: { _ in }) else { throw ValidationError("the sensor did not start") }
        for await status in sensor.statusUpdates() where status.connection == .connected { break }
        try await sensor.fitnessMachine.requestControl()
        let clock = ContinuousClock()
        var times: [Double] = []
        for index in 0..<count {
            let started = clock.now
            try await sensor.fitnessMachine.setTargetPower(index % 2 == 0 ? 200 : 210)
            let took = clock.now - started
            times.append((Double(took.components.seconds) + Double(took.components.attoseconds) * 1e-18) * 1000)
        }
        sensor.stop()
        await sensor.waitUntilIdle()  // disconnected, so that the device advertises again for the next reader
        times.sort()
        let median = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)]
        print(#"{"count":\#(count),"median_ms":\#(median),"p99_ms":\#(p99),"max_ms":\#(times.last ?? 0)}"#)
    }
}
