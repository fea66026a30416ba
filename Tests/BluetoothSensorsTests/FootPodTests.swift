import BluetoothSensors
import Foundation
import Simulators
import Testing
import TestSupport
import WorkoutSimulators

/// A foot pod (Running Speed and Cadence) through `BluetoothSensor`, on the fake BlueZ: its speed
/// and cadence as samples, its total distance as the metres between notifications (across the
/// counter's wrap and a reset), its stride length in the status, and truncated measurements
/// counted without losing the distance they carried.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct FootPodTests {
    static let address = "C0:FF:EE:00:00:05"

    /// Sends `measurement` one second of the sensor's clock after the last, and waits until the
    /// sensor has read it (`read` notifications in all).
    static func send(_ measurement: RSCMeasurement, from pod: FakeBluetoothDevice, to sensor: BluetoothSensor, clock: VirtualClock, read: Int) async {
        await clock.advance(by: .seconds(1))
        #expect(pod.send(measurement))
        await sensor.waitUntil { $0.notifications >= read }
    }

    @Test func aFootPodGivesSpeedCadenceAndTheDistanceBetweenItsTotals() async throws {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let pod = try await world.bluez.add(FakeBluetoothDevice(address: Self.address, name: "Stryd", sensors: [.runningSpeedAndCadence]))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(address: Self.address, bus: world.address, clock: clock)
        let collected = BlueZClientTests.Collected(sensor.start())
        await BlueZClientTests.waitForConnection(sensor)
        #expect(sensor.status.services == ["running speed and cadence"])
        #expect(sensor.status.rscFeature == [.strideLength, .totalDistance, .walkingOrRunningStatus])
        // The counter's last metres, then past its wrap (429,496,729.6 m: 2³² decimetres), then
        // a reset (the pod restarted from 0).
        let sent = [
            RSCMeasurement(speed: 3.0, cadence: 170, strideLength: 1.06, totalDistance: 429_496_722.0, isRunning: true),
            RSCMeasurement(speed: 3.25, cadence: 172, strideLength: 1.13, totalDistance: 429_496_725.0, isRunning: true),
            RSCMeasurement(speed: 3.0, cadence: 171, strideLength: 1.05, totalDistance: 429_496_728.0, isRunning: true),
            RSCMeasurement(speed: 3.0, cadence: 170, strideLength: 1.06, totalDistance: 1.4, isRunning: true),
            RSCMeasurement(speed: 1.5, cadence: 120, strideLength: 0.75, totalDistance: 0.5, isRunning: false),
        ]
        for (index, measurement) in sent.enumerated() {
            await Self.send(measurement, from: pod, to: sensor, clock: clock, read: index + 1)
        }
        // Each notification's samples come in turn: its distance after its cadence.
        await collected.waitFor(sent.count, of: .cadence)
        await collected.waitFor(sent.count - 1, of: .distance)
        #expect(collected.of(.speed) == sent.map(\.speed))
        #expect(collected.of(.cadence) == sent.map { Double($0.cadence) })
        // The first total is where the count starts; then 3 m a second, 3 m across the wrap, and
        // the half metre since the reset: never the total, never below 0.
        #expect(collected.of(.distance) == [3, 3, 3, 0.5])
        let distances = collected.all.filter { $0.type == .distance }
        #expect(distances.allSatisfy { $0.start <= $0.end }, "each over the interval since the last")
        #expect(sensor.status.strideLength == 0.75 && sensor.status.isRunning == false)
        #expect(sensor.status.dropped.isEmpty)
        sensor.stop()
    }

    /// Each truncated measurement (a stride length announced, its bytes cut) is dropped and counted;
    /// the stream goes on, and the distance they carried is in the next total's difference.
    @Test func truncatedMeasurementsAreCountedAndNothingIsLost() async throws {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let pod = try await world.bluez.add(FakeBluetoothDevice(address: Self.address, name: "Stryd", sensors: [.runningSpeedAndCadence]))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(address: Self.address, bus: world.address, clock: clock)
        let collected = BlueZClientTests.Collected(sensor.start())
        await BlueZClientTests.waitForConnection(sensor)
        await Self.send(RSCMeasurement(speed: 3, cadence: 170, strideLength: 1.06, totalDistance: 100), from: pod, to: sensor, clock: clock, read: 1)
        pod.truncateMeasurements(2)
        for total in [103.0, 106.0] {
            await clock.advance(by: .seconds(1))
            #expect(pod.send(RSCMeasurement(speed: 3, cadence: 170, strideLength: 1.06, totalDistance: total)))
        }
        await BlueZClientTests.waitForStatus(sensor) { $0.dropped["truncated"] == 2 }
        await Self.send(RSCMeasurement(speed: 3.5, cadence: 174, strideLength: 1.2, totalDistance: 109), from: pod, to: sensor, clock: clock, read: 2)
        // A notification's samples come in turn, its distance after its cadence: both are waited for.
        await collected.waitFor(2, of: .cadence)
        await collected.waitFor(1, of: .distance)
        #expect(sensor.status.dropped == ["truncated": 2] && sensor.status.notifications == 2)
        #expect(collected.of(.speed) == [3, 3.5] && collected.of(.cadence) == [170, 174])
        #expect(collected.of(.distance) == [9], "the metres of the dropped ones are in the next difference")
        sensor.stop()
    }

    /// `start(delivering:)` hands each sample to the session's hand as it is read, in order,
    /// without a stream; a second start while started is refused, and stopping ends the run.
    @Test func aSensorDeliversItsSamplesWhereTheyAreRead() async throws {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let pod = try await world.bluez.add(FakeBluetoothDevice(address: Self.address, name: "Stryd", sensors: [.runningSpeedAndCadence]))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(address: Self.address, bus: world.address, clock: clock)
        let delivered = Watched<[QuantitySample]>([])
        #expect(sensor.start { sample in delivered.change { $0.append(sample) } })
        #expect(!sensor.start { _ in Issue.record("a second start is not a second run") })
        var again = sensor.start().makeAsyncIterator()
        #expect(await again.next() == nil, "a stream asked for while started ends at once")
        await BlueZClientTests.waitForConnection(sensor)
        for (index, speed) in [2.5, 2.75, 3.0].enumerated() {
            #expect(pod.send(RSCMeasurement(speed: speed, cadence: 160 + index)))
            await delivered.waitUntil { $0.count >= 2 * (index + 1) }
        }
        #expect(delivered.value.map(\.type) == [.speed, .cadence, .speed, .cadence, .speed, .cadence])
        #expect(delivered.value.filter { $0.type == .speed }.map(\.value) == [2.5, 2.75, 3.0])
        sensor.stop()
        await sensor.waitUntilIdle()
        #expect(!pod.isConnected && sensor.status.connection == .stopped)
        #expect(sensor.start { sample in delivered.change { $0.append(sample) } }, "a stopped sensor starts again")
        sensor.stop()
    }
}
