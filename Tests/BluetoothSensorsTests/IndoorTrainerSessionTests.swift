import BluetoothSensors
import Foundation
import LocationCore
import Simulators
import Testing
import TestSupport
import Workout
import WorkoutSimulators

/// An indoor session (no GPS) recording the fake trainer through `BluetoothSensor`, its samples
/// delivered where they are read: the workout's distance is the metres the trainer's total
/// distance moved (the differences of its totals, none of them a total), its power the rider's
/// and then the ERG target set mid-ride through the same sensor.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct IndoorTrainerSessionTests {
    static let start = Date(timeIntervalSince1970: 1_717_000_000)

    @Test func anIndoorRideTakesTheTrainersDistanceAndPower() async throws {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let trainer = try await world.bluez.add(FakeBluetoothDevice(
            address: TrainerControlTests.address, name: "KICKR", sensors: [.indoorBike],
            machine: FakeFitnessMachine(.indoorBike, rider: .init(power: 180, cadence: 88), totalDistance: 16_777_000)))
        let clock = VirtualClock()
        let time = FixTime(startingAt: Self.start, clock: clock)
        let sensor = BluetoothSensor(address: TrainerControlTests.address, bus: world.address, clock: clock, now: time.now)
        let store = try WorkoutStore.inMemory()
        let session = WorkoutSession(store: store, samples: [sensor], configuration: .init(activityType: .cycling), clock: clock, now: time.now)
        try session.start()
        await BlueZClientTests.waitForConnection(sensor)
        let running = trainer.run(clock: clock)
        defer { running.cancel() }
        func ride(_ seconds: Int) async {
            for _ in 0..<seconds {
                let read = sensor.status.notifications
                await clock.advance(by: .seconds(1))
                await sensor.waitUntil { $0.notifications > read }
            }
        }
        await ride(1)
        let first = try #require(trainer.fitnessMachine).totalDistance.rounded(.down)
        await ride(119)
        try await sensor.fitnessMachine.requestControl()
        try await sensor.fitnessMachine.setTargetPower(240)
        await ride(120)
        let last = try #require(trainer.fitnessMachine).totalDistance.rounded(.down)
        #expect(last > 16_777_216, "the trainer's counter wrapped on the way")
        running.cancel()  // no more data: the session's last second is the trainer's last
        await clock.advance(by: .seconds(1))
        let workout = try await session.end()

        let moved = last - first
        let distance = try #require(workout.totals.distance)
        #expect(distance == moved, "the metres the trainer counted (\(moved)), not a total: \(distance)")
        let powers = try await store.samples(of: workout.id, type: .power).map(\.value)
        #expect(powers.count >= 235 && powers.prefix(110).allSatisfy { $0 == 180 }, "\(powers.count)")
        #expect(powers.suffix(100).allSatisfy { abs($0 - 240) <= 3 }, "the ERG target, held")
        #expect(try await store.samples(of: workout.id, type: .cadence).allSatisfy { $0.value == 88 })
        #expect(workout.metadata.isIndoor == true)
    }
}
