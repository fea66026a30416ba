import ArgumentParser
import BluetoothSensors
import Foundation
import Synchronization

/// `gpsbench sensor-read --bus ADDRESS --address DEVICE --notifications N`: a `BluetoothSensor`
/// reading a device of `gpsbench fake-bluez` (another process), its samples delivered where they
/// are read (`start(delivering:)`, as a session takes them): the CPU time of this process per
/// notification read, from its first to its `N`-th (the connection left out), for
/// `scripts/bench.d/77-trainer.py`. Prints one JSON object.
struct SensorReadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensor-read",
        abstract: "Read a fake device's notifications through BluetoothSensor; print the CPU per notification as JSON.")

    @Option(help: "The D-Bus address of the bus the fake BlueZ is on.")
    var bus: String

    @Option(help: "The device's Bluetooth address.")
    var address: String

    @Option(help: "How many notifications to read after the first.")
    var notifications = 20_000

    func run() async throws {
        let sensor = BluetoothSensor(address: address, bus: .address(bus))
        let samples = Counter()
        guard sensor.start(delivering: { _ in samples.add() }) else { throw ValidationError("the sensor did not start") }
        for await status in sensor.statusUpdates() where status.connection == .connected { break }
        // From the first notification read: the connection and the service discovery left out.
        while sensor.status.notifications == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let (firstRead, firstSamples) = (sensor.status.notifications, samples.count)
        let started = (cpu: SessionBench.cpuSeconds(), wall: ContinuousClock.now)
        // Looked at every 50 ms: a waiter woken by each notification would be measured with it.
        while sensor.status.notifications < firstRead + notifications { try await Task.sleep(for: .milliseconds(50)) }
        let (cpu, wall) = (SessionBench.cpuSeconds() - started.cpu, ContinuousClock.now - started.wall)
        let read = sensor.status.notifications - firstRead
        let status = sensor.status
        sensor.stop()
        await sensor.waitUntilIdle()  // disconnected, so that the device advertises again for the next reader
        print(#"{"notifications":\#(read),"samples":\#(samples.count - firstSamples),"dropped":\#(status.dropped.values.reduce(0, +)),"#
            + #""seconds":\#(Double(wall.components.seconds) + Double(wall.components.attoseconds) * 1e-18),"#
            + #""cpu_per_notification_us":\#(cpu / Double(read) * 1e6)}"#)
    }

    /// Samples delivered, counted on the bus's thread.
    final class Counter: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }
}
