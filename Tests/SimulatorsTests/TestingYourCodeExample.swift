// An example for users: how to test your own location and workout code with the fakes in
// `Simulators`, deterministically and without hardware. The README's "Testing your code with the
// fakes" walks through it. Everything above the tests is "your" code; the tests use only public API.
import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
import Workout

// MARK: - Your code

/// Your code: raises an alarm the first time a fix lands farther than `radius` metres from `home`.
struct GeofenceAlarm {
    var home: (latitude: Double, longitude: Double)
    var radius: Double

    /// Watches `manager`'s updates; returns the first fix outside the fence, or nil if the
    /// stream ends first.
    func firstExit(from manager: LocationManager) async throws -> Location? {
        for try await fix in manager.updates(buffering: .all) {
            let distance = Geodesy.distance(home.latitude, home.longitude, fix.latitude, fix.longitude)
            if distance > radius { return fix }
        }
        return nil
    }
}

/// Your code: saves a recorded run, with heart rate, in one call.
func saveRun(_ route: [Location], heartRate: [QuantitySample], in store: WorkoutStore) async throws -> SaveOutcome {
    let start = route.first!.time!, end = route.last!.time!
    let run = WorkoutRecord(activityType: .running, start: start, end: end,
                            metadata: WorkoutMetadata(externalID: "run-\(start.timeIntervalSince1970)"))
    return try await store.saveWorkout(run, samples: heartRate, route: route)
}

// MARK: - Your tests

@Suite("Example: testing your code with the fakes")
struct TestingYourCodeExample {
    /// A GPX walk replayed in-process on a virtual clock: an hour of fixes takes milliseconds and
    /// gives the same answer on every run.
    @Test func theAlarmFiresWhenTheGreenwichWalkLeavesTheFence() async throws {
        let gpx = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/gpx/greenwich-walk.gpx")
        let recording = try ReplayRecording(contentsOf: gpx)
        let clock = VirtualClock()
        let device = recording.device(clock: clock)           // every fix it plays is marked simulated
        let manager = LocationManager(source: device, clock: clock)
        let first = try #require(recording.readTimeline().first.flatMap { entry -> Location? in
            if case let .location(fix) = entry.event { fix } else { nil }
        })
        let alarm = GeofenceAlarm(home: (first.latitude, first.longitude), radius: 50)

        let events = LocationEventRecorder(observing: device)
        let watching = Task { try await alarm.firstExit(from: manager) }
        await events.waitUntil { $0.states.contains(.watching) }   // your code has started watching
        await clock.advance(by: .seconds(3_600))              // play the whole walk, in virtual time
        let exit = try #require(try await watching.value)
        #expect(exit.isSimulated)
        #expect(Geodesy.distance(first.latitude, first.longitude, exit.latitude, exit.longitude) > 50)
    }

    /// A scenario for a hard case: the receiver's position jumps 500 m after 20 s.
    @Test func aPositionJumpRaisesTheAlarmAtTheJump() async throws {
        let clock = VirtualClock()
        let scenario = ReplayScenario.positionJump(before: .seconds(20), metres: 500)
        let device = scenario.device(clock: clock)
        let manager = LocationManager(source: device, clock: clock)
        let home = scenario.locations[0]
        let alarm = GeofenceAlarm(home: (home.latitude, home.longitude), radius: 200)

        let events = LocationEventRecorder(observing: device)
        let watching = Task { try await alarm.firstExit(from: manager) }
        await events.waitUntil { $0.states.contains(.watching) }
        await clock.advance(by: .seconds(40))
        let exit = try #require(try await watching.value)
        #expect(exit.time == scenario.locations[20].time)
    }

    /// A fake heart-rate sensor for the samples, and a store that fails on demand: a failed save
    /// leaves nothing, and saving again works and does not duplicate.
    @Test func aFailedSaveLeavesNothingAndARetrySavesOnce() async throws {
        let route = SyntheticTrack.generate(count: 600)
        let heartRate = FakeHeartRateSensor(seed: 7).samples(for: route)
        let faults = StoreFaults()
        let store = try WorkoutStore.inMemory(faults: faults)

        faults.inject(.row(300, of: .insertRouteData))       // the disk "fails" halfway through the route
        await #expect(throws: WorkoutStoreError.self) { try await saveRun(route, heartRate: heartRate, in: store) }
        #expect(try await store.workoutCount() == 0)

        let saved = try await saveRun(route, heartRate: heartRate, in: store)
        let again = try await saveRun(route, heartRate: heartRate, in: store)
        #expect(again == .alreadySaved(existingID: saved.workoutID, matchedBy: .externalID("run-\(route[0].time!.timeIntervalSince1970)")))
        #expect(try await store.samples(of: saved.workoutID, type: .heartRate).count == 600)
    }

    /// Your code against real gpsd, reading a fake USB receiver: the NMEA it writes is what a
    /// real receiver writes, so gpsd, libgps and your code all run for real.
    @Test(.enabled(if: PrivateGPSD.isAvailable, "gpsd is not installed (apt-get install gpsd)"), .timeLimit(.minutes(1)))
    func oneFixFromRealGPSDReadingAFakeReceiver() async throws {
        let track = SyntheticTrack.generate(count: 30, seed: 3)
        let receiver = try FakeSerialDevice()                 // a pseudo-terminal, like /dev/ttyUSB0
        let gpsd = try await PrivateGPSD(devices: [receiver.path])
        defer { gpsd.stop() }
        let player = Task { try await receiver.play(NMEALog(fixes: track), speed: 10, loop: true) }
        defer { player.cancel() }

        let manager = LocationManager(source: GPSDClient(host: "127.0.0.1", port: gpsd.port))
        let fix = try await manager.requestLocation(timeout: .seconds(20), minimumMode: .fix3D)
        let expected = try #require(track.first { $0.time == fix.time })
        #expect(abs(fix.latitude - expected.latitude) < 1e-6 && abs(fix.longitude - expected.longitude) < 1e-6)
    }
}
