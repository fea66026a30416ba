import BluetoothSensors
import DBus
import Foundation
import Simulators
import Testing
import TestSupport
import WorkoutSimulators

/// A smart trainer read and driven through `BluetoothSensor.fitnessMachine`, on the fake BlueZ,
/// the fake trainer riding its physical model on a virtual clock: ERG reached and held at any
/// cadence, a simulated grade slowing the rider, each refusal a typed error saying what to do,
/// a target out of range refused before it is sent, a dropped connection's target set again, and
/// a late answer after a timeout dropped without a second resume.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct TrainerControlTests {
    static let address = "C0:FF:EE:00:00:10"

    /// A private bus, the fake BlueZ, a trainer riding on a virtual clock, and our sensor reading it.
    struct Ride {
        let world: BlueZClientTests.World
        let trainer: FakeBluetoothDevice
        let clock = VirtualClock()
        let sensor: BluetoothSensor
        let collected: BlueZClientTests.Collected
        let running: Task<Void, Never>
        var control: FitnessMachineControl { sensor.fitnessMachine }

        init(_ machine: FakeFitnessMachine = FakeFitnessMachine(.indoorBike, rider: .init(power: 150, cadence: 90))) async throws {
            world = try await BlueZClientTests.World()
            trainer = try await world.bluez.add(FakeBluetoothDevice(address: TrainerControlTests.address, name: "KICKR", sensors: [.indoorBike], machine: machine))
            sensor = BluetoothSensor(address: TrainerControlTests.address, bus: world.address, clock: clock)
            collected = BlueZClientTests.Collected(sensor.start())
            await BlueZClientTests.waitForConnection(sensor)
            running = trainer.run(clock: clock)
        }

        /// Moves the clock on `seconds`, one at a time, each second's data read by the sensor.
        func ride(_ seconds: Int) async {
            for _ in 0..<seconds {
                let read = sensor.status.notifications
                await clock.advance(by: .seconds(1))
                await sensor.waitUntil { $0.notifications > read }
            }
        }

        func stop() {
            running.cancel()
            sensor.stop()
            world.stop()
        }
    }

    /// ERG: the trainer reaches the target power within a few seconds and holds it within a few
    /// watts; the rider's cadence drops, the power with it for a moment, and back.
    @Test func ergReachesTheTargetAndHoldsItAtAnyCadence() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        #expect(ride.sensor.status.fitnessMachine?.ranges[.power] == SupportedRange(.power, minimum: 0, maximum: 1_500, increment: 1))
        await ride.ride(5)
        try await ride.control.requestControl()
        try await ride.control.setTargetPower(220)
        await ride.ride(12)
        ride.trainer.updateFitnessMachine { $0.rider = .init(power: 150, cadence: 70) }
        await ride.ride(12)
        await ride.collected.waitFor(29, of: .power)
        let powers = ride.collected.of(.power)
        #expect(powers.prefix(5).allSatisfy { $0 == 150 }, "the rider's power before a target: \(powers)")
        #expect(powers[5] > 150 && powers[5] < 215, "a settling response, not a copy of the target: \(powers)")
        #expect(powers[9..<17].allSatisfy { abs($0 - 220) <= 3 }, "reached and held: \(powers)")
        #expect(powers[17] < 200, "the cadence's drop, before the brake answers: \(powers)")
        #expect(powers.suffix(4).allSatisfy { abs($0 - 220) <= 3 }, "held again at 70 rpm: \(powers)")
        let machine = try #require(ride.sensor.status.fitnessMachine)
        #expect(machine.control == .granted && machine.targets.mode == .power(220) && machine.lastStatus == .targetPowerChanged(220))
        #expect(ride.collected.of(.cadence).suffix(3).allSatisfy { $0 == 70 })
    }

    /// In a simulation the rider's power makes the speed: a grade of 6 % set mid-ride slows them,
    /// smoothly (the bike's momentum), towards the speed their 250 W hold up it.
    @Test func aSimulatedGradeChangesTheSpeed() async throws {
        let ride = try await Ride(FakeFitnessMachine(.indoorBike, rider: .init(power: 250, cadence: 90)))
        defer { ride.stop() }
        try await ride.control.requestControl()
        try await ride.control.setSimulation(IndoorBikeSimulation(grade: 0))
        await ride.ride(60)
        try await ride.control.setSimulation(IndoorBikeSimulation(grade: 6))
        await ride.ride(40)
        await ride.collected.waitFor(100, of: .speed)
        let speeds = ride.collected.of(.speed)
        let flat = speeds[59], climb = speeds[99]
        let physics = try #require(ride.trainer.fitnessMachine).physics
        #expect(abs(flat - physics.steadySpeed(power: 250, riding: IndoorBikeSimulation(grade: 0))) < 0.1, "\(flat)")
        #expect(abs(climb - physics.steadySpeed(power: 250, riding: IndoorBikeSimulation(grade: 6))) < 0.2, "\(climb)")
        #expect(zip(speeds[59...], speeds[60...]).allSatisfy { $1 <= $0 && $0 - $1 < 1.5 }, "slowing, never jumping: \(speeds[59...])")
        #expect(ride.collected.of(.power).allSatisfy { $0 == 250 }, "the rider's power, shown as it is")
        #expect(ride.sensor.status.fitnessMachine?.targets.mode == .simulation(IndoorBikeSimulation(grade: 6)))
    }

    /// A trainer that refuses control: the typed error says another app holds it; a target
    /// without control says to request it first; the recording goes on.
    @Test func aTrainerThatRefusesControlSaysSoAndTheRecordingGoesOn() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        ride.trainer.updateFitnessMachine { $0.refusesControl = true }
        await #expect(throws: FitnessMachineControlError.controlRefused(address: Self.address)) { try await ride.control.requestControl() }
        #expect("\(FitnessMachineControlError.controlRefused(address: Self.address))".contains("another app or device holds it"))
        #expect(ride.sensor.status.fitnessMachine?.control == .refused)
        let error = await #expect(throws: FitnessMachineControlError.self) { try await ride.control.setTargetPower(200) }
        #expect(error == .controlNotPermitted(.setTargetPower(200), address: Self.address))
        #expect("\(error!)".contains("Request control first"), "\(error!)")
        await ride.ride(3)
        await ride.collected.waitFor(3, of: .power)
        #expect(ride.collected.of(.power) == [150, 150, 150] && ride.sensor.status.connection == .connected)
    }

    /// A target outside the range read on connect is refused before anything is written; one the
    /// machine itself refuses (its range narrowed since) is an invalid parameter naming the range;
    /// a request it does not do is not supported, naming what it does.
    @Test func aTargetOutOfRangeIsRefusedBeforeItIsSent() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        try await ride.control.requestControl()
        #expect(ride.trainer.controlPointWrites.count == 1)
        let refused = await #expect(throws: FitnessMachineControlError.self) { try await ride.control.setTargetPower(2_000) }
        guard case let .outsideRange(outside, address) = refused else { Issue.record("\(String(describing: refused))"); return }
        #expect(outside.reason == .aboveMaximum && address == Self.address)
        #expect("\(refused!)" == "Not sent to the fitness machine \(Self.address): a target power of 2,000 W is outside its range of 0 W to 1,500 W; choose one inside it.")
        await #expect(throws: FitnessMachineControlError.self) { try await ride.control.setTargetResistanceLevel(7.5) }  // between steps of 1
        #expect(ride.trainer.controlPointWrites.count == 1, "nothing was sent")

        ride.trainer.updateFitnessMachine { $0.ranges = [SupportedRange(.power, minimum: 0, maximum: 400, increment: 1)] }
        let invalid = await #expect(throws: FitnessMachineControlError.self) { try await ride.control.setTargetPower(500) }
        #expect(invalid == .invalidParameter(.setTargetPower(500), address: Self.address, range: SupportedRange(.power, minimum: 0, maximum: 1_500, increment: 1)))
        #expect("\(invalid!)".contains("the machine's range is 0 W to 1,500 W"), "\(invalid!)")
        let unsupported = await #expect(throws: FitnessMachineControlError.self) { try await ride.control.setTargetSpeed(3) }
        #expect("\(unsupported!)".contains("does not support a target speed of 3 m/s (10.8 km/h) (its features offer: resistance, power, indoor bike simulation)"), "\(unsupported!)")
        #expect(ride.trainer.controlPointWrites.count == 3)
    }

    /// Another client's request while we hold control is refused; another central taking control
    /// tells us (Control Permission Lost), and our requests are refused from then.
    @Test func anotherClientIsRefusedAndAnotherCentralTakesControl() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        try await ride.control.requestControl()
        let controlPoint = try #require(try await Self.controlPointPath(on: ride.world.address))
        let other = try DBusConnection(ride.world.address)
        defer { other.close() }
        let answers = try await other.signals(matching: .propertiesChanged(sender: "org.bluez", path: controlPoint, interface: "org.bluez.GattCharacteristic1"))
        var answer = answers.makeAsyncIterator()
        _ = try await other.call(
            "org.bluez", path: controlPoint, interface: "org.bluez.GattCharacteristic1", member: "WriteValue",
            [.bytes(try FitnessMachineControlPoint.Request.setTargetPower(300).bytes), .variantDictionary(["type": "request"])])
        let changed = try #require(await answer.next()).arguments[1].stringKeyedValue?["Value"]?.unwrapped.bytesValue
        #expect(try FitnessMachineControlPoint.Response(bytes: try #require(changed)) == .init(requestOpCode: 0x05, result: .controlNotPermitted))
        #expect(ride.trainer.fitnessMachine?.mode == .free, "the other client's target was not taken")

        ride.trainer.giveControl(toAnotherCentral: "a phone")
        await BlueZClientTests.waitForStatus(ride.sensor) { $0.fitnessMachine?.control == .lost }
        #expect(ride.sensor.status.fitnessMachine?.lastStatus == .controlPermissionLost)
        await #expect(throws: FitnessMachineControlError.controlNotPermitted(.setTargetPower(200), address: Self.address)) {
            try await ride.control.setTargetPower(200)
        }
        await #expect(throws: FitnessMachineControlError.controlRefused(address: Self.address)) { try await ride.control.requestControl() }
    }

    /// A trainer whose data come truncated (a field its flags announce cut short): each is counted
    /// as dropped, and the ride goes on with the next.
    @Test func truncatedIndoorBikeDataIsCountedAndTheRideGoesOn() async throws {
        let ride = try await Ride()
        defer { ride.stop() }
        ride.trainer.truncateMeasurements(2)
        await ride.clock.advance(by: .seconds(1))
        await ride.clock.advance(by: .seconds(1))
        await BlueZClientTests.waitForStatus(ride.sensor) { $0.dropped["truncated"] == 2 }
        await ride.ride(3)
        await ride.collected.waitFor(3, of: .power)
        #expect(ride.sensor.status.notifications == 3 && ride.sensor.status.dropped == ["truncated": 2])
        #expect(ride.collected.of(.power) == [150, 150, 150] && ride.collected.of(.speed).count == 3)
    }

    /// The control point's object path, as a client finds it.
    static func controlPointPath(on address: DBusConnection.Address) async throws -> String? {
        let bus = try DBusConnection(address)
        defer { bus.close() }
        return try await bus.managedObjects(of: "org.bluez", as: CharacteristicUUID.self)
            .first { $0.value.uuid == BluetoothUUID.fitnessMachineControlPoint }?.key
    }

    /// A characteristic's UUID, as `GetManagedObjects` lists it.
    struct CharacteristicUUID: DBusKeyedDecodable {
        var uuid: String?

        mutating func decode(key interface: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
            if interface == "org.bluez.GattCharacteristic1" { uuid = try value.decode(Properties.self).uuid }
        }

        struct Properties: DBusKeyedDecodable {
            var uuid: String?
            mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
                if key == "UUID" { uuid = try value.decode() }
            }
        }
    }
}
