import BluetoothSensors
import Foundation
import LocationCore
import Simulators
import Testing
import TestSupport
@testable import Workout
import WorkoutSimulators

/// A treadmill run with no GPS, a foot pod and a strap through `BluetoothSensor` on the fake BlueZ,
/// on a virtual clock moved a second at a time: ten minutes at 3 m/s, a minute standing on the
/// treadmill's rails (the pod sends zeros and the same total), nine minutes at 3.5 m/s, with
/// auto-pause and a lap every kilometre. The workout's distance is the pod's, to the decimetre
/// its counter has; the minute at rest is a stop; the laps fall where the pod's distance reaches
/// each kilometre.
/// Its limit is 2 minutes, 5 under ThreadSanitizer: 127 s there in a fresh-clone run beside the
/// documentation's and the fuzzers' builds.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"),
       .timeLimit(.minutes(ThreadSanitizer.isRunning ? 5 : 2)))
struct TreadmillRunTests {
    static let start = Date(timeIntervalSince1970: 1_733_100_000)
    static let podAddress = "C0:FF:EE:00:00:05"
    static let strapAddress = "C0:FF:EE:00:00:01"

    /// The runner `second`s in: speed (m/s) and the pod's total distance (m).
    static func stride(_ second: Int) -> (speed: Double, total: Double) {
        switch second {
        case ...600: return (3, 3 * Double(second))
        case ...660: return (0, 1_800)
        default: return (3.5, 1_800 + 3.5 * Double(second - 660))
        }
    }

    @Test func aTreadmillRunFromAFootPodTakesItsDistanceStopsAndLaps() async throws {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let pod = try await world.bluez.add(FakeBluetoothDevice(address: Self.podAddress, name: "Stryd", sensors: [.runningSpeedAndCadence]))
        let strap = try await world.bluez.add(FakeBluetoothDevice(address: Self.strapAddress, name: "HRM-Pro", sensors: [.heartRate]))
        let clock = VirtualClock()
        let time = FixTime(startingAt: Self.start, clock: clock)
        let sensors = [Self.podAddress, Self.strapAddress].map {
            // Read as notifications come (1 ms): the clock waits for each second's.
            BluetoothSensor(configuration: .init(address: $0, bus: world.address, readInterval: .milliseconds(1)), clock: clock, now: time.now)
        }
        let store = try WorkoutStore.inMemory()
        let session = WorkoutSession(
            store: store, samples: sensors,
            configuration: .init(activityType: .running, locationType: .indoor, autoPause: .defaults(for: .running), autoLapDistance: 1_000),
            clock: clock, now: time.now)
        try session.start()
        for sensor in sensors { await BlueZClientTests.waitForConnection(sensor) }
        for second in 1...1_200 {
            let read = sensors.map(\.status.notifications)
            await clock.advance(by: .seconds(1))
            let (speed, total) = Self.stride(second)
            #expect(pod.send(RSCMeasurement(
                speed: speed, cadence: speed > 0 ? 172 : 0, strideLength: speed > 0 ? speed * 60 / 172 : 0, totalDistance: total,
                isRunning: speed > 0)))
            #expect(strap.send(HeartRateMeasurement(heartRate: speed > 0 ? 150 : 120)))
            for (sensor, count) in zip(sensors, read) { await sensor.waitUntil { $0.notifications > count } }
        }
        let live = session.currentStatistics
        let workout = try await session.end()

        let counted = Self.stride(1_200).total - Self.stride(1).total
        #expect(abs((workout.totals.distance ?? 0) - counted) < 1e-6, "the pod's \(counted) m: \(workout.totals.distance ?? 0) m")
        // Live, the last second's reading waits for a later one (another sensor's reading of the
        // same second may still come): the status is a second behind what end() saved.
        #expect(abs(live.distance - ((workout.totals.distance ?? 0) - 3.5)) < 1e-6, "live \(live.distance) m")
        #expect(workout.metadata.isIndoor == true && workout.activityType == .running)
        #expect(try await store.route(of: workout.id) == nil)
        let stops = try await store.events(of: workout.id).filter { $0.kind == .motionPaused }
        #expect(stops.count == 1, "the minute on the rails is one stop: \(stops)")
        #expect(abs(workout.movingTime - (workout.duration - 60)) <= 5, "moving \(workout.movingTime) s of \(workout.duration) s")
        let laps = try await store.laps(of: workout.id)
        #expect(laps.count == 4, "three kilometres and the rest: \(laps.map(\.distance))")
        for lap in laps.dropLast() { #expect(abs(lap.distance - 1_000) <= 3.5, "a lap ends at the pod's kilometre: \(lap.distance) m") }
        // The first lap closes at the reading that reaches its kilometre: the pod's count begins at
        // its first total (3 m, a second in), so at 335 s (1,002 m), not at 1,000 / 3 s.
        let closing = (1...).first { Self.stride($0).total - Self.stride(1).total >= 1_000 } ?? 0
        #expect(closing == 335 && laps[0].duration == Double(closing), "\(laps[0].duration)")
        let heartRates = try await store.samples(of: workout.id, type: .heartRate)
        #expect(heartRates.count >= 1_195)
    }
}
