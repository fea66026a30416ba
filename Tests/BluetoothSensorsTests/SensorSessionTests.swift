import BluetoothSensors
import DBus
import Foundation
import GPSCore
import LocationCore
import Simulators
import Testing
import TestSupport
import Workout
import WorkoutSimulators

/// A workout session recording a ride from a replay, with a heart-rate strap, a speed and cadence
/// sensor and a power meter on the fake BlueZ, each sending what the ride's samples say as its
/// fixes come: the saved workout has their heart rate, cadence and power, per lap too.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct SensorSessionTests {
    @Test func aSessionRecordsHeartRateCadenceAndPowerPerLap() async throws {
        let bus = try await PrivateBus()
        let bluez = try await FakeBlueZ(bus: bus.address)
        defer {
            bluez.stop()
            bus.stop()
        }
        let strap = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:01", name: "HRM-Pro", sensors: [.heartRate]))
        let cadence = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:02", name: "CAD", sensors: [.speedAndCadence]))
        let meter = try await bluez.add(FakeBluetoothDevice(address: "C0:FF:EE:00:00:03", name: "Assioma", sensors: [.power]))

        let track = SyntheticTrack.generate(count: 120, seed: 4)
        let clock = VirtualClock()
        let ride = ReplayLocationSource(locations: track, clock: clock)
        let fixes = LocationEventRecorder(observing: ride)
        let heartRates = FakeHeartRateSensor(seed: 4).samples(for: track)
        let cadences = track.map { QuantitySample(type: .cadence, value: 80 + Double(Int($0.time!.timeIntervalSince1970) % 10), at: $0.time!) }
        let powers = track.map { QuantitySample(type: .power, value: 180 + Double(Int($0.time!.timeIntervalSince1970) % 40), at: $0.time!) }
        let playing = [
            strap.play(heartRates, following: ride), cadence.play(cadences, following: ride), meter.play(powers + cadences, following: ride),
        ]
        defer { playing.forEach { $0.cancel() } }
        // Samples dated by the ride's time: the latest fix's, as a sensor's notification comes with it.
        let now: @Sendable () -> Date = { fixes.log.locations.last?.time ?? track[0].time! }
        let sensors = ["C0:FF:EE:00:00:01", "C0:FF:EE:00:00:02", "C0:FF:EE:00:00:03"].map {
            BluetoothSensor(address: $0, bus: .address(bus.address), clock: clock, now: now)
        }
        let store = try WorkoutStore.inMemory()
        let session = WorkoutSession(
            store: store, source: ride, samples: sensors, configuration: .init(activityType: .cycling, autoLapDistance: 100), clock: clock)
        try session.start()
        for sensor in sensors {
            for await status in sensor.statusUpdates() where status.connection == .connected { break }
        }
        // A second at a time, each sensor's notifications of the second read before the clock
        // moves on (the first fix came as the ride started, before the sensors were connected).
        let perFix = [1, 1, 2]
        for second in 1..<track.count {
            await clock.advance(by: .seconds(1))
            for (sensor, count) in zip(sensors, perFix) {
                await sensor.waitUntil { $0.notifications >= second * count }
            }
        }
        await clock.advance(by: .seconds(3))
        let workout = try await session.end()

        let savedRates = try await store.samples(of: workout.id, type: .heartRate)
        let savedCadence = try await store.samples(of: workout.id, type: .cadence)
        let savedPower = try await store.samples(of: workout.id, type: .power)
        #expect(savedRates.count >= track.count - 3, "\(savedRates.count) heart rates for \(track.count) fixes")
        #expect(Set(savedRates.map(\.value)).isSubset(of: Set(heartRates.map(\.value))))
        #expect(savedPower.count >= track.count - 3 && savedPower.allSatisfy { (180...219).contains($0.value) })
        #expect(savedCadence.count >= track.count - 3 && savedCadence.allSatisfy { (70...100).contains($0.value) }, "\(savedCadence.map(\.value))")
        #expect(try await store.samples(of: workout.id, type: .heartbeatInterval).count >= track.count - 3)
        let laps = try await store.laps(of: workout.id)
        #expect(laps.count >= 2)
        for lap in laps {
            #expect(lap.samples[.heartRate] != nil && lap.samples[.power] != nil && lap.samples[.cadence] != nil, "lap \(lap.index)")
        }
    }
}
