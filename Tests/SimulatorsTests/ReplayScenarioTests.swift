import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// The hard cases, played in-process on a virtual clock through a `LocationManager`, as a user's
/// test would play them.
@Suite("Replay scenarios")
struct ReplayScenarioTests {
    /// A manager over `device` on `clock`, with the device already delivering.
    func started(_ device: ReplayLocationSource, clock: VirtualClock) async -> LocationManager {
        let manager = LocationManager(source: device, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        device.start()
        await recorder.waitUntil { $0.states.contains(.watching) }
        recorder.cancel()
        return manager
    }

    @Test func coldStartGivesNoFixThen2DThen3D() async throws {
        let clock = VirtualClock()
        let scenario = ReplayScenario.coldStart(noFixFor: .seconds(40), twoDimensionalFor: .seconds(5), threeDimensionalFor: .seconds(10))
        let manager = await started(scenario.device(clock: clock), clock: clock)
        async let any = manager.requestLocation(timeout: .seconds(60))
        async let full = manager.requestLocation(timeout: .seconds(60), minimumMode: .fix3D)
        let tooSoon = Task { try await manager.requestLocation(timeout: .seconds(39), minimumMode: .fix2D) }
        await manager.waitUntil(waitingRequests: 3)
        await clock.advance(by: .seconds(60))
        let first = try await any, first3D = try await full
        #expect(first.mode == .fix2D && first.altitude == nil)
        #expect(first.time == scenario.locations[0].time)
        #expect(first3D.mode == .fix3D && first3D.altitude != nil)
        #expect(first3D.time == scenario.locations[5].time, "40 s without a fix and 5 s of 2D")
        await #expect(throws: LocationError.timedOut(after: .seconds(39), best: nil)) { try await tooSoon.value }
    }

    @Test func aLostFixLeavesAGapInTheUpdates() async throws {
        let clock = VirtualClock()
        let scenario = ReplayScenario.fixLostAndRegained(before: .seconds(5), lostFor: .seconds(7), after: .seconds(5))
        let device = scenario.device(clock: clock)
        let manager = LocationManager(source: device, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        let stream = manager.updates(buffering: .all)
        let consumer = Task {
            var fixes: [Location] = []
            for try await fix in stream {
                fixes.append(fix)
                if fixes.count == 10 { break }
            }
            return fixes
        }
        await recorder.waitUntil { $0.states.contains(.watching) }
        await clock.advance(by: .seconds(20))
        let fixes = try await consumer.value
        let gaps = zip(fixes.dropFirst(), fixes).map { $0.time!.timeIntervalSince($1.time!) }
        #expect(gaps == [1, 1, 1, 1, 8, 1, 1, 1, 1])
        #expect(recorder.log.events.filter { if case .noFix = $0 { true } else { false } }.count == 7)
    }

    @Test func aPositionJumpMovesTheFixByTheGivenDistance() {
        let scenario = ReplayScenario.positionJump(before: .seconds(3), metres: 500, course: 90, after: .seconds(3))
        let fixes = scenario.locations
        let steps = zip(fixes.dropFirst(), fixes).map { $0.distance(to: $1) }
        #expect(steps[0] < 10 && steps[1] < 10)
        #expect(steps[2] > 490 && steps[2] < 510)
        #expect(steps[3] < 10 && steps[4] < 10)
    }

    @Test func aRequestDuringAGPSDRestartGetsTheFirstFixAfterIt() async throws {
        let clock = VirtualClock()
        let scenario = ReplayScenario.gpsdRestart(before: .seconds(10), downFor: .seconds(5), after: .seconds(10))
        let device = scenario.device(clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        let manager = await started(device, clock: clock)
        await clock.advance(by: .seconds(10))
        #expect(recorder.log.errors.count == 1)
        async let fix = manager.requestLocation(timeout: .seconds(30))
        await manager.waitUntil(waitingRequests: 1)
        await clock.advance(by: .seconds(30))
        #expect(try await fix.time == scenario.locations[10].time, "the first fix 15 s in, after 5 s down")
        let states = recorder.log.states.prefix { $0 != .stopped }
        #expect(Array(states) == [
            .connecting(attempt: 1), .connected, .watching,
            .waitingToReconnect(after: .seconds(5), attempt: 1), .connecting(attempt: 1), .connected, .watching,
        ])
    }

    @Test func aStaleCachedFixAnswersOnlyARequestThatAcceptsItsAge() async throws {
        let clock = VirtualClock()
        let scenario = ReplayScenario.staleCachedFix(silentFor: .seconds(120))
        let device = scenario.device(clock: clock)
        let manager = await started(device, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        await clock.advance(by: .seconds(1))
        device.stop()  // as a manager with nothing to do leaves it
        await clock.advance(by: .seconds(59))
        // 60 s old: too old for 30 s...
        let strict = Task { try await manager.requestLocation(timeout: .seconds(5), maximumAge: .seconds(30)) }
        let answered = await recorder.waitUntil { !$0.cachedLocations.isEmpty }  // the request's ?POLL;
        #expect(answered.events.contains(.cachedLocation(answered.cachedLocations[0], age: .seconds(60))))
        await clock.advance(by: .seconds(5))
        let error = await #expect(throws: LocationError.self) { try await strict.value }
        guard case let .timedOut(_, best, _)? = error else {
            Issue.record("expected a time-out, got \(String(describing: error))")
            return
        }
        #expect(best?.time == scenario.locations[0].time, "the stale fix is the best seen")
        // ...and good enough for 90 s, at once.
        let lenient = try await manager.requestLocation(timeout: .seconds(5), maximumAge: .seconds(90))
        #expect(lenient.time == scenario.locations[0].time)
    }

    @Test func severalDevicesEachReportTheirOwnTrack() {
        let scenario = ReplayScenario.severalDevices(count: 3, duration: .seconds(4))
        let byDevice = Dictionary(grouping: scenario.locations, by: { $0.device ?? "" })
        #expect(byDevice.keys.sorted() == ["/dev/ttyUSB0", "/dev/ttyUSB1", "/dev/ttyUSB2"])
        #expect(byDevice.values.allSatisfy { $0.count == 4 })
        #expect(byDevice["/dev/ttyUSB0"]![0].distance(to: byDevice["/dev/ttyUSB1"]![0]) > 1_900)
        #expect(Set(scenario.script.devices) == Set(byDevice.keys))
    }
}

/// The same scenarios over loopback: the fake gpsd server plays them to a real libgps client.
@Suite("Replay scenarios over the fake gpsd", .timeLimit(.minutes(1)))
struct ReplayScenarioServerTests {
    @Test func aClientWatchingOneDeviceGetsOnlyItsFixes() async throws {
        let scenario = ReplayScenario.severalDevices(count: 2, duration: .seconds(5))
        let server = FakeGPSDServer(script: scenario.script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let client = GPSDClient(host: "127.0.0.1", port: port, device: ReplayScenario.devicePath(1))
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }
        let log = await recorder.waitUntil { $0.locations.count == 5 }
        #expect(log.locations.allSatisfy { $0.device == ReplayScenario.devicePath(1) })
        #expect(log.locations.map(\.time) == scenario.locations.filter { $0.device == ReplayScenario.devicePath(1) }.map(\.time))
    }

    @Test func aGPSDRestartIsSurvivedByTheClient() async throws {
        let scenario = ReplayScenario.gpsdRestart(before: .seconds(3), downFor: .seconds(1), after: .seconds(3))
        let server = FakeGPSDServer(script: scenario.script, pace: .asFastAsClientsRead, faults: scenario.faults)
        let port = try server.start()
        defer { server.shutdown() }
        let client = GPSDClient(host: "127.0.0.1", port: port)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }
        let log = await recorder.waitUntil { $0.locations.count == 6 }
        #expect(log.locations.map(\.time) == scenario.locations.map(\.time))
        #expect(log.errors.contains { if case .connectionLost = $0 { true } else { false } })
    }
}
