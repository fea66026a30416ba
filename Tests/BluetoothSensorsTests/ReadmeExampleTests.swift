import BluetoothSensors
import DBus
import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
import Workout
import WorkoutSimulators

/// The README's Bluetooth examples, compiled and run as printed.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct ReadmeExampleTests {
    @Test func theStrapsHeartRateArrivesAsASample() async throws {
        let bus = try await PrivateBus()                  // a dbus-daemon of your own
        let bluez = try await FakeBlueZ(bus: bus.address) // BlueZ's D-Bus API and an adapter, no radio
        defer { bluez.stop(); bus.stop() }
        let strap = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:01", name: "HRM-Pro", sensors: [.heartRate]))

        let sensor = BluetoothSensor(address: "C0:FF:EE:00:00:01", bus: .address(bus.address))
        var samples = sensor.start().makeAsyncIterator()  // finds it, connects, turns notifications on
        for await status in sensor.statusUpdates() where status.connection == .connected { break }
        strap.send(HeartRateMeasurement(heartRate: 142, rrIntervals: [0.421875]))
        let heartRate = try #require(await samples.next())
        let interval = try #require(await samples.next())
        #expect(heartRate.type == .heartRate && heartRate.value == 142)
        #expect(interval.type == .heartbeatInterval && interval.value == 0.421875)
        strap.disconnect()                                // out of range: the sensor connects again
        strap.setBattery(5)                               // or send(bytes, as:) that are not a measurement
        sensor.stop()
    }

    /// The README's trainer example, as printed, against the fake trainer: its samples come, it
    /// takes control, a target power and a grade, and refuses 2,000 W before it is sent.
    @Test func aTrainerIsDrivenWhileItRecords() async throws {
        let privateBus = try await PrivateBus()
        let fake = try await FakeBlueZ(bus: privateBus.address)
        defer { fake.stop(); privateBus.stop() }
        let kickr = try await fake.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:10", name: "KICKR", sensors: [.indoorBike]))
        let riding = kickr.run(every: .milliseconds(100))
        defer { riding.cancel() }
        let bluetooth = DBusConnection.Address.address(privateBus.address)

        let trainer = BluetoothSensor(address: "C0:FF:EE:00:00:10", bus: bluetooth)
        _ = trainer.start(delivering: { sample in print(sample.type, sample.value) })  // speed, cadence, power, distance
        for await status in trainer.statusUpdates() where status.connection == .connected { break }
        try await trainer.fitnessMachine.requestControl()
        try await trainer.fitnessMachine.setTargetPower(200)                       // ERG: 200 W at any cadence
        try await trainer.fitnessMachine.setSimulation(IndoorBikeSimulation(grade: 4))   // or ride up a 4 % grade
        do {
            try await trainer.fitnessMachine.setTargetPower(2_000)                 // refused before it is sent:
        } catch let error as FitnessMachineControlError {
            print(error)  // ...a target power of 2,000 W is outside its range of 0 W to 1,500 W; choose one inside it.
        }

        // On real time (the fake on a thread of its own): its data keep coming, a tenth of a second apart.
        await trainer.waitUntil { $0.notifications >= 5 }
        #expect(kickr.fitnessMachine?.mode == .simulation(IndoorBikeSimulation(grade: 4)))
        #expect(kickr.controlPointWrites.count == 3, "the 2,000 W were not sent")
        trainer.stop()
    }

    /// The README's D-Bus example, as printed (for the system bus).
    func batteryOnTheSystemBus() async throws -> Int? {
        struct Battery: DBusKeyedDecodable {             // what a program reads of org.bluez.Battery1
            var percentage: Int?
            mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
                if key == "Percentage" { percentage = try value.decode() }
            }
        }
        let bus = try DBusConnection.shared(.system)
        let battery = try await bus.properties(
            Battery.self, of: "org.bluez.Battery1", at: "/org/bluez/hci0/dev_C0_FF_EE_00_00_01", on: "org.bluez")
        return battery.percentage
    }

    /// The same read, through the shared connection to a private bus with the fake BlueZ: the
    /// strap's battery, a byte (`y`), read as an `Int`.
    @Test func aStrapsBatteryIsReadAsATypeOfOurOwn() async throws {
        struct Battery: DBusKeyedDecodable {
            var percentage: Int?
            mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
                if key == "Percentage" { percentage = try value.decode() }
            }
        }
        let privateBus = try await PrivateBus()
        let fake = try await FakeBlueZ(bus: privateBus.address)
        defer { fake.stop(); privateBus.stop() }
        try await fake.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:01", name: "HRM-Pro", sensors: [.heartRate], batteryPercent: 81))
        let bus = try DBusConnection.shared(.address(privateBus.address))
        let battery = try await bus.properties(
            Battery.self, of: "org.bluez.Battery1", at: "/org/bluez/hci0/dev_C0_FF_EE_00_00_01", on: "org.bluez")
        #expect(battery.percentage == 81)
    }

    /// The README's recording example: a strap and a power meter beside a replayed ride, their
    /// samples dated by the fixes' time. (A few seconds of real time: the sensors are on a real bus.)
    @Test func aRideIsRecordedWithTheSensorsBesideTheFixes() async throws {
        let privateBus = try await PrivateBus()
        let fake = try await FakeBlueZ(bus: privateBus.address)
        defer { fake.stop(); privateBus.stop() }
        let strap = try await fake.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:01", name: "HRM-Pro", sensors: [.heartRate]))
        let meter = try await fake.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:03", name: "Assioma", sensors: [.power]))
        let riding = [strap.ride(seed: 1, every: .milliseconds(100)), meter.ride(seed: 2, every: .milliseconds(100))]
        defer { riding.forEach { $0.cancel() } }
        let store = try WorkoutStore.inMemory()
        let track = SyntheticTrack.generate(count: 600, seed: 1)
        let gps = ReplayLocationSource(locations: track)
        let bluetooth = DBusConnection.Address.address(privateBus.address)

        let time = FixTime(following: gps)                   // date the samples by the fixes' time
        let sensors = ["C0:FF:EE:00:00:01", "C0:FF:EE:00:00:03"].map {
            BluetoothSensor(address: $0, bus: bluetooth, now: time.now)   // a strap and a power meter
        }
        let session = WorkoutSession(
            store: store, source: gps, samples: sensors,
            configuration: .init(activityType: .cycling, autoLapDistance: 1_000))
        try session.start()
        for await figures in session.statistics() {
            print(figures.heartRate ?? 0, figures.samples[.power]?.latest ?? 0, figures.samples[.cadence]?.latest ?? 0)
            if figures.elapsedTime >= 3, figures.heartRate != nil, figures.samples[.cadence] != nil { break }
        }
        // The samples so far are dated by FixTime, which runs on from the last fix by the clock:
        // on a starved CI machine the replay's fixes fell seconds behind it, and a session ended
        // at once left every heart rate after its last fix. Its fixes catch up first.
        let sampledUntil = time.now()
        let first = try #require(track.first?.time)
        await waitUntil { first.addingTimeInterval(session.currentStatistics.elapsedTime) >= sampledUntil }
        let workout = try await session.end()

        for type in [QuantityType.heartRate, .power, .cadence] {
            let samples = try await store.samples(of: workout.id, type: type)
            #expect(!samples.isEmpty, "no \(type)")
            // Dated by the fixes (2024 for the synthetic track), not by this machine's clock.
            #expect(samples.allSatisfy { $0.start >= workout.start.addingTimeInterval(-2) && $0.end <= workout.end.addingTimeInterval(2) }, "\(type)")
        }
    }
}
