import BluetoothSensors
import Foundation
import Simulators
import Testing
import TestSupport
import WorkoutSimulators

/// A treadmill's and a trainer's data through `BluetoothSensor`, on the fake BlueZ: speed, power,
/// cadence and heart rate as samples, the total distance as the metres between notifications
/// across the counter's wrap, what is read once on connect in the status; and one series per type
/// where a device or a strap measures a thing twice.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct FitnessMachineSampleTests {
    static let treadmill = "C0:FF:EE:00:00:0A"
    static let trainer = "C0:FF:EE:00:00:10"
    static let strap = "C0:FF:EE:00:00:01"

    /// A treadmill driven through its control point, its belt speeding up at 0.5 m/s² and its deck
    /// tilting at 0.5 %/s, its total distance passing the 24-bit counter's wrap: the speeds follow
    /// the belt, the distances add up to the metres the counter moved, none below 0 or huge.
    @Test func aTreadmillGivesItsBeltSpeedAndTheDistanceAcrossTheWrap() async throws {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let treadmill = try await world.bluez.add(FakeBluetoothDevice(
            address: Self.treadmill, name: "Treadmill", sensors: [.treadmill], machine: FakeFitnessMachine(.treadmill, totalDistance: 16_777_205)))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(address: Self.treadmill, bus: world.address, clock: clock)
        let collected = BlueZClientTests.Collected(sensor.start())
        await BlueZClientTests.waitForConnection(sensor)
        let machine = try #require(sensor.status.fitnessMachine)
        #expect(machine.kind == .treadmill && sensor.status.services == ["fitness machine"])
        #expect(machine.feature?.targets == [.speed, .inclination] && machine.trainingStatus?.status == .idle)
        #expect(machine.ranges[.speed] == treadmill.fitnessMachine?.range(.speed) && machine.ranges[.inclination]?.maximum == 15)
        let running = treadmill.run(clock: clock)
        defer { running.cancel() }
        await clock.advance(by: .seconds(1))
        await sensor.waitUntil { $0.notifications >= 1 }
        let first = try #require(treadmill.fitnessMachine).totalDistance.rounded(.down)

        try await sensor.fitnessMachine.requestControl()
        try await sensor.fitnessMachine.startOrResume()
        try await sensor.fitnessMachine.setTargetSpeed(3)
        try await sensor.fitnessMachine.setTargetInclination(2)
        for second in 2...14 {
            await clock.advance(by: .seconds(1))
            await sensor.waitUntil { $0.notifications >= second }
        }
        await collected.waitFor(14, of: .speed)
        // The last notification's distance comes after its speed (at 3 m/s, it moved the counter).
        let lastSpeed = try #require(collected.all.last { $0.type == .speed })
        await collected.waitFor(.distance, endingAt: lastSpeed.end)
        let speeds = collected.of(.speed)
        #expect(zip(speeds, speeds.dropFirst()).allSatisfy { $1 >= $0 && $1 - $0 <= 0.5 + 0.01 }, "the belt speeds up, never jumps: \(speeds)")
        #expect(abs(speeds.last! - 3) < 0.01)
        let last = try #require(treadmill.fitnessMachine).totalDistance
        #expect(last > 16_777_216, "the counter wrapped")
        let distances = collected.of(.distance)
        #expect(distances.allSatisfy { $0 > 0 && $0 <= 3 }, "\(distances)")
        #expect(distances.reduce(0, +) == last.rounded(.down) - first, "the metres the counter moved, across its wrap")
        let status = try #require(sensor.status.fitnessMachine)
        #expect(status.targets == FitnessMachineTargets(speed: 3, inclination: 2, isStarted: true) && status.control == .granted)
        #expect(status.inclination == 2 && status.lastStatus == .targetInclinationChanged(2))
        sensor.stop()
    }

    /// A trainer that is a power meter too gives one power series: Cycling Power's, while it
    /// sends; Indoor Bike Data's once it has been silent for 5 s. Its speed comes from the Indoor
    /// Bike Data, and so does its cadence while the power meter sends no crank.
    @Test func aTrainerThatIsAlsoAPowerMeterGivesOnePowerSeries() async throws {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let trainer = try await world.bluez.add(FakeBluetoothDevice(address: Self.trainer, name: "KICKR", sensors: [.indoorBike, .power]))
        let clock = VirtualClock()
        let sensor = BluetoothSensor(address: Self.trainer, bus: world.address, clock: clock)
        let collected = BlueZClientTests.Collected(sensor.start())
        await BlueZClientTests.waitForConnection(sensor)
        #expect(sensor.status.services == ["power", "fitness machine"])
        var read = 0
        func send(_ send: () -> Bool) async {
            #expect(send())
            read += 1
            await sensor.waitUntil { [read] in $0.notifications >= read }
        }
        await send { trainer.send(CyclingPowerMeasurement(power: 210)) }
        await send { trainer.send(IndoorBikeData(speed: 8, cadence: 90, power: 205)) }
        await clock.advance(by: .seconds(1))
        await send { trainer.send(CyclingPowerMeasurement(power: 212)) }
        await send { trainer.send(IndoorBikeData(speed: 8.5, cadence: 91, power: 208)) }
        await clock.advance(by: .seconds(6))
        await send { trainer.send(IndoorBikeData(speed: 8.25, cadence: 92, power: 207)) }
        await send { trainer.send(CyclingPowerMeasurement(power: 215)) }
        await send { trainer.send(IndoorBikeData(speed: 8, cadence: 92, power: 209)) }
        await collected.waitFor(4, of: .speed)
        await collected.waitFor(4, of: .cadence)  // a notification's cadence comes after its speed
        #expect(collected.of(.power) == [210, 212, 207, 215], "Cycling Power's, and the trainer's while the meter was silent")
        #expect(collected.of(.speed) == [8, 8.5, 8.25, 8] && collected.of(.cadence) == [90, 91, 92, 92])
        sensor.stop()
    }

    /// A treadmill's heart rate (its hand grips) is a sample only while no strap this process reads
    /// gives one: the strap's series is the heart rate, and the treadmill's fills in while the
    /// strap has no skin contact.
    @Test func aMachinesHeartRateWaitsWhileAStrapGivesOne() async throws {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let treadmill = try await world.bluez.add(FakeBluetoothDevice(address: Self.treadmill, name: "Treadmill", sensors: [.treadmill]))
        let strap = try await world.bluez.add(FakeBluetoothDevice(address: Self.strap, name: "HRM-Pro", sensors: [.heartRate]))
        let machineSensor = BluetoothSensor(address: Self.treadmill, bus: world.address)
        let strapSensor = BluetoothSensor(address: Self.strap, bus: world.address)
        let machine = BlueZClientTests.Collected(machineSensor.start())
        let worn = BlueZClientTests.Collected(strapSensor.start())
        await BlueZClientTests.waitForConnection(machineSensor)
        await BlueZClientTests.waitForConnection(strapSensor)
        func run(_ rate: Int, read: Int) async {
            #expect(treadmill.send(TreadmillData(speed: 3, heartRate: rate)))
            await machineSensor.waitUntil { $0.notifications >= read }
        }
        await run(140, read: 1)
        strap.send(HeartRateMeasurement(heartRate: 150))
        await strapSensor.waitUntil { $0.notifications >= 1 }
        await run(141, read: 2)
        strap.send(HeartRateMeasurement(heartRate: nil))  // no skin contact
        await strapSensor.waitUntil { $0.notifications >= 2 }
        await run(142, read: 3)
        strap.send(HeartRateMeasurement(heartRate: 151))
        await strapSensor.waitUntil { $0.notifications >= 3 }
        await run(143, read: 4)
        await machine.waitFor(4, of: .speed)
        await worn.waitFor(2, of: .heartRate)
        #expect(machine.of(.heartRate) == [140, 142], "the treadmill's only while the strap gave none")
        #expect(worn.of(.heartRate) == [150, 151])
        machineSensor.stop()
        strapSensor.stop()
    }
}
