import Clocks
import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Protocol tier: a fix gpsd holds and hands over on `?POLL;` is as old through the fake gpsd as
/// in the in-process replay (`ReplayScenarioTests.aStaleCachedFixAnswersOnlyARequestThatAcceptsItsAge`):
/// the fake's answer carries its host clock, as gpsd's does, on the script's time line.
@Suite("A held fix's age through the fake gpsd", .timeLimit(.minutes(1)))
struct HeldFixAgeTests {
    static let scenario = ReplayScenario.staleCachedFix(silentFor: .seconds(120))

    /// The fake gpsd on a test clock, 60 s after it sent the scenario's one fix.
    func silentFor60Seconds() async throws -> (FakeGPSDServer, UInt16) {
        let clock = TestClock()
        let server = FakeGPSDServer(script: Self.scenario.script, pace: .recorded(speed: 1), startPolicy: .immediately, clock: clock)
        let port = try server.start()
        await server.waitUntil { $0.sentReports == 1 }
        await clock.advance(by: .seconds(60))
        return (server, port)
    }

    /// What `client` hears when it asks for the fix gpsd holds.
    func held(through client: GPSDClient) async throws -> (location: Location, age: Duration?) {
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        client.requestLatestFix()
        let log = await recorder.waitUntil { !$0.cachedLocations.isEmpty }
        let age = log.events.lazy.compactMap { event -> Duration?? in
            if case let .cachedLocation(_, age) = event { age } else { nil }
        }.first
        // (A wait cut short by the time limit returns the log as it is: an issue, not a crash of
        // the whole run.)
        return (try #require(log.cachedLocations.first, "no held fix came"), age ?? nil)
    }

    @Test func aClientThatTrustsTheFakesClockGetsTheFixsTrueAge() async throws {
        let (server, port) = try await silentFor60Seconds()
        defer { server.shutdown() }
        let client = GPSDClient(host: "127.0.0.1", port: port, configuration: .init(hostClock: .synchronized))
        defer { client.stop() }
        let (fix, age) = try await held(through: client)
        #expect(fix.time == Self.scenario.locations[0].time)
        #expect(age == .seconds(60), "as the in-process replay reports it")
        let sinceReceived = Date().timeIntervalSince(fix.receivedAt)
        #expect(sinceReceived >= 60 && sinceReceived < 90, "received 60 s ago, not when it was asked for (\(sinceReceived) s)")
    }

    @Test func aClientThatDoesNotTrustItCannotTell() async throws {
        let (server, port) = try await silentFor60Seconds()
        defer { server.shutdown() }
        let client = GPSDClient(host: "127.0.0.1", port: port, configuration: .init(hostClock: .unsynchronized))
        defer { client.stop() }
        let (fix, age) = try await held(through: client)
        #expect(age == nil)
        #expect(fix.receivedAt == fix.time, "its own GPS time, when its age is unknown")
    }

    @Test func aManagerTakesTheHeldFixOnlyForAMaximumAgeItMeets() async throws {
        let (server, port) = try await silentFor60Seconds()
        defer { server.shutdown() }
        let client = GPSDClient(host: "127.0.0.1", port: port, configuration: .init(hostClock: .synchronized))
        let clock = VirtualClock()
        let manager = LocationManager(source: client, clock: clock)
        // Observing after the manager: an event the recorder has seen, the manager has handled.
        let recorder = LocationEventRecorder(observing: client)
        let strict = Task { try await manager.requestLocation(timeout: .seconds(5), maximumAge: .seconds(30)) }
        await recorder.waitUntil { !$0.cachedLocations.isEmpty }  // the request's ?POLL;
        #expect(manager.waitingRequestCount == 1, "60 s old: too old for 30 s")
        await clock.advance(by: .seconds(5))
        let error = await #expect(throws: LocationError.self) { try await strict.value }
        guard case let .timedOut(_, best, _)? = error else {
            Issue.record("expected a time-out, got \(String(describing: error))")
            return
        }
        #expect(best?.time == Self.scenario.locations[0].time, "the stale fix is the best seen")
        let lenient = try await manager.requestLocation(timeout: .seconds(5), maximumAge: .seconds(90))
        #expect(lenient.time == Self.scenario.locations[0].time)
        #expect(lenient.age() >= .seconds(60), "it says how old it is")
    }
}
