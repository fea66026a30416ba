import BluetoothSensors
import Foundation
import LocationCore
import Simulators
import Testing
import TestSupport
@testable import Workout
import WorkoutSimulators

/// An hour on a smart trainer with no GPS, as a rider does it: a strap, a power meter and the
/// fake trainer in ERG at 200 W through `BluetoothSensor` on the fake BlueZ, the trainer riding
/// its physical model, laps every 10 minutes, all on a virtual clock moved a second at a time
/// (each second's notifications read before the next). The rider's cadence falls from 90 to
/// 70 rpm and back, which ERG holds the power through.
///
/// Saved: indoors, the trainer's distance, six laps; the training figures (NP, IF, TSS) within
/// 1 % of sweat's on the saved samples, the time in zones summing to the duration. Exported as
/// FIT: Garmin's decoder reads indoor cycling (sport 2, sub sport 6), a record a second, no
/// position. Imported again: the same figures.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(3)))
struct TrainerHourTests {
    static let start = Date(timeIntervalSince1970: 1_733_000_000)
    static let profile = TrainingProfile(functionalThresholdPower: 250, maximumHeartRate: 185)
    static let trainerAddress = "C0:FF:EE:00:00:10"
    static let strapAddress = "C0:FF:EE:00:00:01"
    static let meterAddress = "C0:FF:EE:00:00:03"

    /// The rider's heart rate `second`s in: rising from 105 towards 150 bpm.
    static func heartRate(_ second: Int) -> Int {
        Int((150 - 45 * exp(-Double(second) / 400)).rounded())
    }

    /// The rider's cadence: 90 rpm, 70 in the middle ten minutes.
    static func cadence(_ second: Int) -> Double {
        (1_500..<2_100).contains(second) ? 70 : 90
    }

    /// One hour recorded; returns the store, the saved workout and the metres the trainer counted.
    func rideAnHour() async throws -> (WorkoutStore, WorkoutRecord, Double) {
        let world = try await BlueZClientTests.World()
        defer { world.stop() }
        let trainer = try await world.bluez.add(FakeBluetoothDevice(
            address: Self.trainerAddress, name: "KICKR", sensors: [.indoorBike],
            machine: FakeFitnessMachine(.indoorBike, rider: .init(power: 150, cadence: 90))))
        let strap = try await world.bluez.add(FakeBluetoothDevice(address: Self.strapAddress, name: "HRM-Pro", sensors: [.heartRate]))
        let meter = try await world.bluez.add(FakeBluetoothDevice(address: Self.meterAddress, name: "Assioma", sensors: [.power]))
        let clock = VirtualClock()
        let time = FixTime(startingAt: Self.start, clock: clock)
        let sensors = [Self.trainerAddress, Self.strapAddress, Self.meterAddress].map {
            // Read as notifications come (1 ms): the clock waits for each second's.
            BluetoothSensor(configuration: .init(address: $0, bus: world.address, readInterval: .milliseconds(1)), clock: clock, now: time.now)
        }
        let store = try WorkoutStore.inMemory()
        let session = WorkoutSession(
            store: store, samples: sensors,
            configuration: .init(activityType: .cycling, locationType: .indoor, autoLapTime: .seconds(600), trainingProfile: Self.profile),
            clock: clock, now: time.now)
        try session.start()
        for sensor in sensors { await BlueZClientTests.waitForConnection(sensor) }
        let control = sensors[0].fitnessMachine
        try await control.requestControl()
        try await control.startOrResume()
        try await control.setTargetPower(200)
        let running = trainer.run(clock: clock)
        defer { running.cancel() }

        var first: Double?
        for second in 1...3_600 {
            let read = sensors.map(\.status.notifications)
            trainer.updateFitnessMachine { $0.rider.cadence = Self.cadence(second) }
            await clock.advance(by: .seconds(1))
            // The power meter measures what the rider puts in, the trainer's brake holding it:
            // the same watts the trainer reports (both whole watts).
            let power = Int((trainer.fitnessMachine?.power ?? 0).rounded())
            #expect(meter.send(CyclingPowerMeasurement(power: power)))
            #expect(strap.send(HeartRateMeasurement(heartRate: Self.heartRate(second))))
            for (sensor, count) in zip(sensors, read) { await sensor.waitUntil { $0.notifications > count } }
            if second == 1 { first = trainer.fitnessMachine?.totalDistance.rounded(.down) }
        }
        let last = try #require(trainer.fitnessMachine).totalDistance.rounded(.down)
        running.cancel()  // no more data: the ride's last second is the trainer's last
        let workout = try await session.end()
        return (store, workout, last - (try #require(first)))
    }

    @Test(.enabled(if: SweatPeer.isAvailable, "\(SweatPeer.missing)"),
          .disabled(if: ThreadSanitizer.isRunning, "3,600 seconds of the same three sensors, ten times slower under TSan: the treadmill run and the trainer's control run there"))
    func anHourInERGAt200WattsIsSavedWithFiguresThatAgreeWithSweatAndComesBackFromFIT() async throws {
        let (store, workout, moved) = try await rideAnHour()
        #expect(workout.metadata.isIndoor == true && workout.activityType == .cycling)
        #expect(try await store.route(of: workout.id) == nil, "no GPS, no route")
        #expect(workout.totals.distance == moved, "the trainer's distance: \(moved) m counted, \(workout.totals.distance ?? 0) m saved")
        #expect(abs(workout.duration - 3_600) <= 1, "\(workout.duration)")
        let laps = try await store.laps(of: workout.id)
        #expect(laps.count == 6, "a lap every 10 minutes: \(laps.map(\.duration))")
        #expect(laps.dropLast().allSatisfy { abs($0.duration - 600) < 1e-6 })

        let powers = try await store.samples(of: workout.id, type: .power)
        #expect(powers.count >= 3_590, "a power a second: \(powers.count)")
        // ERG: 200 W within 3 W at 90 and at 70 rpm, once the brake has settled after the start
        // and after each change of cadence (a step of a few seconds, as a real trainer's).
        func settling(_ second: Double) -> Bool { second <= 10 || [1_500.0, 2_100].contains { (0...5).contains(second - $0) } }
        let held = powers.filter { !settling($0.end.timeIntervalSince(Self.start)) }.map(\.value)
        #expect(held.count >= 3_570 && held.allSatisfy { abs($0 - 200) <= 3 }, "ERG holds 200 W: \(held.min() ?? 0)...\(held.max() ?? 0)")

        // Ours against sweat's, on the saved samples (a sample at `s` holds the second before it).
        let training = try await store.trainingFigures(of: workout.id, profile: Self.profile)
        let heartRates = try await store.samples(of: workout.id, type: .heartRate)
        func pairs(_ samples: [QuantitySample]) -> [[Double]] {
            samples.filter { $0.end > workout.start }.map { [$0.end.timeIntervalSince(workout.start), $0.value] }
        }
        let answers = try await SweatPeer.measure([SweatPeer.Case(
            name: "hour", ftp: 250, maxHeartRate: 185, power: pairs(powers), heartRate: pairs(heartRates))])
        let theirs = try #require(answers["hour"])
        for (name, ours, peer) in [
            ("NP", training.normalizedPower, theirs.normalizedPower), ("IF", training.intensityFactor, theirs.intensityFactor),
            ("TSS", training.trainingStressScore, theirs.trainingStressScore),
        ] {
            let ours = try #require(ours, "\(name)"), peer = try #require(peer, "sweat's \(name)")
            #expect(abs(ours - peer) <= 0.01 * peer, "\(name): ours \(ours), sweat's \(peer)")
        }
        for zones in [training.powerZones, training.heartRateZones] {
            let zones = try #require(zones)
            #expect(abs(zones.times.reduce(0, +) + zones.unrecorded - training.duration) < 1e-6, "\(zones)")
            #expect(zones.unrecorded <= 2, "every second but the first has a reading: \(zones.unrecorded) s without")
        }
        #expect(abs(training.duration - workout.duration) < 1e-6)

        // Its FIT export, read by Garmin's decoder, and imported again.
        let file = NSTemporaryDirectory() + "trainer-hour-\(UUID().uuidString).fit"
        defer { try? FileManager.default.removeItem(atPath: file) }  // a temporary file: nothing to say if it is gone
        let summary = try await store.export(workout.id, format: .fit, toFileAt: file)
        #expect(summary.points == 0 && summary.samplesNotWritten == 0, "\(summary)")
        if FITPeers.isAvailable {
            let peers = try #require(try await FITPeers.read([file])[file])
            #expect(peers.garmin.errors == [] && peers.garmin.integrity == true, "\(peers.garmin.errors ?? [])")
            #expect(peers.garmin.sessionSports == [[2, 6]], "indoor cycling: \(peers.garmin.sessionSports)")
            #expect(peers.garmin.records.allSatisfy { $0[1] == nil && $0[2] == nil }, "no position")
            #expect(abs(peers.garmin.records.count - powers.count) <= 1, "a record a second: \(peers.garmin.records.count)")
            #expect(peers.garmin.laps.count == 6)
            let lastDistance = peers.garmin.recordDistances.compactMap { $0 }.last ?? 0
            #expect(abs(lastDistance - moved) < 0.01, "the records' distance: \(lastDistance) m")
        }
        let copy = try WorkoutStore.inMemory()
        let imported = try #require(try await FITImporter(store: copy).importFile(at: file).workouts.first)
        let back = try #require(try await copy.workout(id: imported.workoutID))
        #expect(back.metadata.isIndoor == true && back.start == workout.start && back.end == workout.end)
        #expect(back.duration == workout.duration && abs((back.totals.distance ?? 0) - moved) < 0.01)
        #expect(try await copy.laps(of: back.id).count == 6)
        #expect(try await copy.trainingFigures(of: back.id, profile: Self.profile) == training, "the same training figures")
    }
}
