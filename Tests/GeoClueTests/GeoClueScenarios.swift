import DBus
import Foundation
import GeoClue
import GeoClueSimulators
import LocationCore
import Simulators
import Testing
import TestSupport

/// What a program using GeoClue through a LocationManager meets, played against the fake GeoClue
/// and against the real one (Debian's GeoClue 2.6 on a private bus, fed NMEA): the same code, so
/// that the fake is held to the real service.
enum GeoClueScenarios {
    /// One fix: the position fed.
    static func oneShot(_ world: some GeoClueWorld) async throws {
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let manager = LocationManager(source: world.source())
        async let request = manager.requestLocation(timeout: .seconds(20))
        let fed = type(of: world).walk(0)
        let feeder = Task {
            while !Task.isCancelled {
                await world.feed(fed)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { feeder.cancel() }
        let fix = try await request
        #expect(abs(fix.latitude - fed.latitude) < 1e-6 && abs(fix.longitude - fed.longitude) < 1e-6, "\(fix)")
        #expect(manager.waitingRequestCount == 0)
    }

    /// A stream: each position fed, in the order fed. Each is fed (again every 200 ms, as a
    /// receiver repeats itself) until it comes out of the stream, then the next.
    static func updatesInOrder(_ world: some GeoClueWorld) async throws {
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let source = world.source()
        let watching = LocationEventRecorder(observing: source)
        let manager = LocationManager(source: source)
        var updates = manager.updates(buffering: .all).makeAsyncIterator()
        _ = await watching.waitUntil { $0.states.contains(.watching) }
        var seen: [Location] = []
        for fed in (0..<4).map(type(of: world).walk) {
            let feeder = Task {
                while !Task.isCancelled {
                    await world.feed(fed)
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            defer { feeder.cancel() }
            while let next = try await updates.next() {
                if let last = seen.last, abs(last.latitude - next.latitude) < 1e-9 { continue }  // the one before, again
                seen.append(next)
                break
            }
        }
        let fixes = (0..<4).map(type(of: world).walk)
        #expect(seen.count == 4)
        #expect(zip(seen, fixes).allSatisfy { abs($0.latitude - $1.latitude) < 1e-6 && abs($0.longitude - $1.longitude) < 1e-6 }, "\(seen)")
    }

    /// The agent allows nothing: the request fails at once, as CoreLocation's `denied`.
    static func deniedByTheAgent(_ world: some GeoClueWorld) async throws {
        let agent = try await GeoClueAgent(bus: world.address, maximumAccuracy: .none)
        defer { agent.stop() }
        let source = world.source()
        let manager = LocationManager(source: source)
        let start = ContinuousClock.now
        let error = try await #require(throws: LocationError.self) { try await manager.requestLocation(timeout: .seconds(20)) }
        guard case let .notAuthorized(_, reason) = error else {
            Issue.record("not a refusal: \(error)")
            return
        }
        #expect(reason.contains("Geolocation disabled for UID"), "\(reason)")
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    /// No agent yet: the request waits and the source says why; once an agent registers, the
    /// fix comes.
    static func waitsForAnAgent(_ world: some GeoClueWorld) async throws {
        let source = world.source(notice: .milliseconds(300))
        let events = LocationEventRecorder(observing: source)
        let manager = LocationManager(source: source)
        async let request = manager.requestLocation(timeout: .seconds(30))
        let log = await events.waitUntil { log in log.errors.contains { if case .awaitingAuthorization = $0 { true } else { false } } }
        #expect(!log.states.contains(.watching))
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let feeder = Task {
            while !Task.isCancelled {
                await world.feed(type(of: world).walk(1))
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { feeder.cancel() }
        let fix = try await request
        #expect(abs(fix.latitude - type(of: world).walk(1).latitude) < 1e-6)
    }

    /// GeoClue crashes and comes back mid-watch: the source says it lost it, connects again (the
    /// agent registers again), and the next fix arrives on the same stream.
    static func survivesARestart(_ world: some GeoClueWorld) async throws {
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let source = world.source()
        let events = LocationEventRecorder(observing: source)
        let manager = LocationManager(source: source)
        var updates = manager.updates(buffering: .all).makeAsyncIterator()
        _ = await events.waitUntil { $0.states.contains(.watching) }
        await world.feed(type(of: world).walk(0))
        let first = try #require(try await updates.next())
        #expect(abs(first.latitude - type(of: world).walk(0).latitude) < 1e-6)

        await world.kill()
        _ = await events.waitUntil { log in log.errors.contains { if case .serviceLost = $0 { true } else { false } } }
        try await world.restart()
        #expect(await agent.waitUntilRegistered(times: 2))
        _ = await events.waitUntil { $0.states.filter { $0 == .watching }.count == 2 }
        let later = type(of: world).walk(10)
        let feeder = Task {
            while !Task.isCancelled {
                await world.feed(later)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { feeder.cancel() }
        var next = try #require(try await updates.next())
        while abs(next.latitude - first.latitude) < 1e-9 { next = try #require(try await updates.next()) }
        #expect(abs(next.latitude - later.latitude) < 1e-6, "\(next)")
    }

    /// No fix comes: the request times out on time.
    static func timesOutOnTime(_ world: some GeoClueWorld) async throws {
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let manager = LocationManager(source: world.source())
        let start = ContinuousClock.now
        let error = try await #require(throws: LocationError.self) { try await manager.requestLocation(timeout: .milliseconds(1500)) }
        let waited = ContinuousClock.now - start
        guard case .timedOut = error else {
            Issue.record("not a timeout: \(error)")
            return
        }
        #expect(waited >= .milliseconds(1500) && waited < .milliseconds(2500), "waited \(waited)")
    }
}

@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct GeoClueAgainstTheFakeTests {
    @Test func oneShot() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        try await GeoClueScenarios.oneShot(world)
    }

    @Test func updatesInOrder() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        try await GeoClueScenarios.updatesInOrder(world)
    }

    @Test func deniedByTheAgent() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        try await GeoClueScenarios.deniedByTheAgent(world)
    }

    @Test func waitsForAnAgent() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        try await GeoClueScenarios.waitsForAnAgent(world)
    }

    @Test func survivesARestart() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        try await GeoClueScenarios.survivesARestart(world)
    }

    @Test func timesOutOnTime() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        try await GeoClueScenarios.timesOutOnTime(world)
    }
}

@Suite(
    .enabled(if: PrivateBus.isAvailable && SystemGeoClue.isAvailable, "\(SystemGeoClue.unavailableReason ?? "needs dbus-daemon")"),
    .timeLimit(.minutes(1)))
struct GeoClueAgainstTheRealOneTests {
    @Test func oneShot() async throws {
        let world = try await SystemWorld()
        defer { world.stop() }
        try await GeoClueScenarios.oneShot(world)
    }

    @Test func updatesInOrder() async throws {
        let world = try await SystemWorld()
        defer { world.stop() }
        try await GeoClueScenarios.updatesInOrder(world)
    }

    @Test func deniedByTheAgent() async throws {
        let world = try await SystemWorld()
        defer { world.stop() }
        try await GeoClueScenarios.deniedByTheAgent(world)
    }

    @Test func waitsForAnAgent() async throws {
        let world = try await SystemWorld()
        defer { world.stop() }
        try await GeoClueScenarios.waitsForAnAgent(world)
    }

    @Test func survivesARestart() async throws {
        let world = try await SystemWorld()
        defer { world.stop() }
        try await GeoClueScenarios.survivesARestart(world)
    }

    @Test func timesOutOnTime() async throws {
        let world = try await SystemWorld()
        defer { world.stop() }
        try await GeoClueScenarios.timesOutOnTime(world)
    }
}
