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
        await world.feed([fed])
        let fix = try await request
        #expect(abs(fix.latitude - fed.latitude) < 1e-6 && abs(fix.longitude - fed.longitude) < 1e-6, "\(fix)")
        #expect(manager.waitingRequestCount == 0)
    }

    /// A stream: the positions fed, in the order fed. Four come at once, as from a receiver that
    /// caught up: the client may not read a location before GeoClue replaces it with the next (it
    /// keeps a client's last two), but what it reports is in order, and ends with the last one fed.
    static func updatesInOrder(_ world: some GeoClueWorld) async throws {
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let source = world.source()
        let watching = LocationEventRecorder(observing: source)
        let manager = LocationManager(source: source)
        var updates = manager.updates(buffering: .all).makeAsyncIterator()
        _ = await watching.waitUntil { $0.states.contains(.watching) }
        let fixes = (1...4).map(type(of: world).walk)
        await world.feed(fixes)
        var indices: [Int] = []
        while indices.last != fixes.count - 1, let next = try await updates.next() {
            guard let index = fixes.firstIndex(where: { abs($0.latitude - next.latitude) < 1e-6 && abs($0.longitude - next.longitude) < 1e-6 }) else {
                Issue.record("a position that was not fed: \(next)")
                return
            }
            if indices.last != index { indices.append(index) }  // the real GeoClue may report a position twice
        }
        #expect(indices == indices.sorted() && Set(indices).count == indices.count, "in the order fed: \(indices)")
    }

    /// The agent allows nothing: the request fails at once, as CoreLocation's `denied`.
    static func deniedByTheAgent(_ world: some GeoClueWorld) async throws {
        let agent = try await GeoClueAgent(bus: world.address, maximumAccuracy: .none)
        defer { agent.stop() }
        let source = world.source()
        let manager = LocationManager(source: source)
        let start = ContinuousClock.now
        let error = try await #require(throws: LocationError.self) { try await manager.requestLocation(timeout: .seconds(600)) }
        guard case let .notAuthorized(_, reason) = error else {
            Issue.record("not a refusal: \(error)")
            return
        }
        #expect(reason.contains("Geolocation disabled for UID"), "\(reason)")
        #expect(ContinuousClock.now - start < .seconds(30), "at once, not at the 600 s deadline")
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
        await world.feed([type(of: world).walk(1)])
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
        await world.feed([type(of: world).walk(0)])
        let first = try #require(try await updates.next())
        #expect(abs(first.latitude - type(of: world).walk(0).latitude) < 1e-6)

        await world.kill()
        _ = await events.waitUntil { log in log.errors.contains { if case .serviceLost = $0 { true } else { false } } }
        try await world.restart()
        #expect(await agent.waitUntilRegistered(times: 2))
        _ = await events.waitUntil { $0.states.filter { $0 == .watching }.count == 2 }
        let later = type(of: world).walk(10)
        await world.feed([later])
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
        // Never before the deadline; after it, as soon as a loaded machine lets the timer run (the
        // timeout's own timing is LocationManagerTests', on a test clock: this is the smoke test
        // of the real-time path through GeoClue).
        #expect(waited >= .milliseconds(1500) && waited < .seconds(30), "waited \(waited)")
    }
}

extension GeoClueScenarios {
    /// Two sources in one process go through its one connection to the bus, each with a client
    /// of its own: both get the position fed; one stopped deletes its client, and the other goes on.
    static func twoSourcesShareOneConnection(_ world: some GeoClueWorld) async throws {
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let observer = try DBusConnection(world.address)
        defer { observer.close() }
        let connectionsBefore = try await connections(on: observer)
        let first = world.source(desktopID: "org.example.First"), second = world.source(desktopID: "org.example.Second")
        let firstEvents = LocationEventRecorder(observing: first), secondEvents = LocationEventRecorder(observing: second)
        let firstManager = LocationManager(source: first)
        var firstUpdates = firstManager.updates(buffering: .all).makeAsyncIterator()
        let secondManager = LocationManager(source: second)
        var secondUpdates = secondManager.updates(buffering: .all).makeAsyncIterator()
        _ = await firstEvents.waitUntil { $0.states.contains(.watching) }
        _ = await secondEvents.waitUntil { $0.states.contains(.watching) }
        #expect(try await connections(on: observer) == connectionsBefore + 1, "two sources, one connection")
        #expect(try await clients(on: observer) == 2)

        let walk = type(of: world).walk
        await world.feed([walk(0)])
        #expect(try await firstUpdates.next().map { abs($0.latitude - walk(0).latitude) < 1e-6 } == true)
        #expect(try await secondUpdates.next().map { abs($0.latitude - walk(0).latitude) < 1e-6 } == true)

        first.stop()
        await first.waitUntilIdle()
        #expect(try await clients(on: observer) == 1, "the stopped source's client was deleted")
        await world.feed([walk(5)])
        var next = try await secondUpdates.next()
        // The real GeoClue may report a position twice.
        while let fix = next, abs(fix.latitude - walk(0).latitude) < 1e-6 { next = try await secondUpdates.next() }
        #expect(next.map { abs($0.latitude - walk(5).latitude) < 1e-6 } == true, "\(String(describing: next))")
        #expect(second.connectionState == .watching)
    }

    /// How many connections the bus has.
    private static func connections(on observer: DBusConnection) async throws -> Int {
        try await observer.call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "ListNames", returning: [String].self
        ).filter { $0.hasPrefix(":") }.count
    }

    /// How many clients GeoClue has: the nodes below its clients' path, as it introspects them.
    private static func clients(on observer: DBusConnection) async throws -> Int {
        let xml = try await observer.call(
            GeoClueNames.service, path: "/org/freedesktop/GeoClue2/Client", interface: "org.freedesktop.DBus.Introspectable",
            member: "Introspect", returning: String.self)
        return xml.components(separatedBy: "<node name=\"").count - 1
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

    @Test func twoSourcesShareOneConnection() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        try await GeoClueScenarios.twoSourcesShareOneConnection(world)
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

    @Test func twoSourcesShareOneConnection() async throws {
        let world = try await SystemWorld()
        defer { world.stop() }
        try await GeoClueScenarios.twoSourcesShareOneConnection(world)
    }
}
