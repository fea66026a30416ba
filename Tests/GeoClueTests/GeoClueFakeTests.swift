import DBus
import Foundation
import GeoClue
import GeoClueSimulators
import GPSCore
import LocationCore
import Simulators
import Testing
import TestSupport

/// What only the fake GeoClue can show: a sandboxed program asked about by desktop id, GeoClue or
/// the bus missing, cancellation, a replay on a virtual clock, the cached location, and the
/// source's own lifecycle.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct GeoClueFakeTests {
    static let desktopID = "org.example.GeoClueTests"

    /// As GeoClue does for a Flatpak program: the agent decides by desktop id.
    @Test func theAgentIsAskedAboutEachDesktopID() async throws {
        let world = try await FakeWorld(authorization: .askAgentForEachApplication)
        defer { world.stop() }
        let agent = try await GeoClueAgent(allowing: [Self.desktopID], bus: world.address)
        defer { agent.stop() }
        let allowed = LocationManager(source: world.source(desktopID: Self.desktopID))
        async let fix = allowed.requestLocation(timeout: .seconds(20))
        await world.feed([FakeWorld.walk(0)])
        #expect(try await fix.latitude == FakeWorld.walk(0).latitude)

        let refused = LocationManager(source: world.source(desktopID: "org.example.Stranger"))
        let error = try await #require(throws: LocationError.self) { try await refused.requestLocation(timeout: .seconds(20)) }
        guard case let .notAuthorized(service, reason) = error else {
            Issue.record("not a refusal: \(error)")
            return
        }
        #expect(service == "GeoClue (org.freedesktop.GeoClue2)")
        #expect(reason == "'org.example.Stranger' disallowed by user")
    }

    @Test func aBusWithoutGeoClueFailsAtOnceNamingTheBus() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let manager = LocationManager(source: GeoClueLocationSource(desktopID: Self.desktopID, bus: .address(bus.address)))
        let start = ContinuousClock.now
        let error = try await #require(throws: LocationError.self) { try await manager.requestLocation(timeout: .seconds(600)) }
        // At once: not at the request's timeout (on a loaded machine, a bus round trip or two can take seconds).
        #expect(ContinuousClock.now - start < .seconds(30))
        guard case let .serviceUnavailable(_, busName, reason) = error else {
            Issue.record("not unavailable: \(error)")
            return
        }
        #expect(busName == "the bus at \(bus.address)")
        #expect(reason.contains("no program owns org.freedesktop.GeoClue2"))
        #expect(error.description.hasPrefix("GeoClue (org.freedesktop.GeoClue2) is not available on the bus at unix:path="))
    }

    @Test func noBusFailsAtOnceNamingTheAddress() async throws {
        let manager = LocationManager(source: GeoClueLocationSource(desktopID: Self.desktopID, bus: .address("unix:path=/nonexistent/bus")))
        // A deadline past the suite's time limit: the refusal must come first, however loaded
        // the machine (beside every other test, a 20 s deadline came first).
        let error = try await #require(throws: LocationError.self) { try await manager.requestLocation(timeout: .seconds(600)) }
        guard case let .serviceUnavailable(_, busName, _) = error else {
            Issue.record("not unavailable: \(error)")
            return
        }
        #expect(busName == "the bus at unix:path=/nonexistent/bus")
    }

    @Test func aCancelledRequestEndsAtOnceAndTheSourceStops() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let source = world.source()
        let events = LocationEventRecorder(observing: source)
        let manager = LocationManager(source: source)
        let request = Task { try await manager.requestLocation(timeout: .seconds(600)) }
        _ = await events.waitUntil { $0.states.contains(.watching) }
        let start = ContinuousClock.now
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        #expect(ContinuousClock.now - start < .seconds(30), "at once, not at the 600 s deadline")
        let log = await events.waitUntil { $0.states.last == .stopped }
        #expect(log.states.last == .stopped)
        #expect(manager.waitingRequestCount == 0)
    }

    /// The fake driven by a recording replayed on a virtual clock: the fixes come in the
    /// recording's order, as the clock moves, and say they are simulated.
    @Test func aReplayOnAVirtualClockPlaysThroughTheFake() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let clock = VirtualClock()
        let recording = try ReplayRecording(contentsOf: Repository.fixture("gpx/greenwich-walk.gpx"))
        let device = recording.device(clock: clock)
        let fake = try await FakeGeoClue(bus: bus.address, source: device)
        defer { fake.stop() }
        let agent = try await GeoClueAgent(bus: .address(bus.address))
        defer { agent.stop() }
        let source = GeoClueLocationSource(desktopID: Self.desktopID, bus: .address(bus.address))
        let events = LocationEventRecorder(observing: source)
        let manager = LocationManager(source: source)
        var updates = manager.updates(buffering: .all).makeAsyncIterator()
        _ = await events.waitUntil { $0.states.contains(.watching) }
        let expected = try recording.readTimeline().compactMap { entry -> Location? in
            if case let .location(fix) = entry.event { fix } else { nil }
        }.prefix(5)
        var seen: [Location] = []
        for _ in expected {
            await clock.advance(by: .seconds(1))
            // Each second of the clock, the fix due then, and nothing else.
            let next = try #require(try await updates.next())
            seen.append(next)
        }
        #expect(seen.map(\.latitude) == expected.map(\.latitude))
        #expect(seen.map(\.time) == expected.map(\.time))
        #expect(seen.allSatisfy { $0.isSimulated })
    }

    /// `maximumAge` takes the location GeoClue already has (its client's `Location`), aged by its
    /// timestamp: a fresh one at once, an old one not.
    @Test func theCachedLocationIsAgedByItsTimestamp() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let source = world.source()
        let events = LocationEventRecorder(observing: source)
        let manager = LocationManager(source: source)
        var updates = manager.updates().makeAsyncIterator()
        _ = await events.waitUntil { $0.states.contains(.watching) }
        var fresh = FakeWorld.walk(3)
        fresh.time = Date().addingTimeInterval(-5)
        await world.feed([fresh])
        _ = try await updates.next()
        source.requestLatestFix()
        let cached = await events.waitUntil { !$0.cachedLocations.isEmpty }.events.compactMap { event -> Duration? in
            if case let .cachedLocation(_, age) = event { age } else { nil }
        }
        let age = try #require(cached.first)
        #expect(age >= .seconds(5) && age < .seconds(15), "\(age)")
        let atOnce = try await manager.requestLocation(timeout: .milliseconds(300), maximumAge: .seconds(60))
        #expect(atOnce.latitude == fresh.latitude)
    }

    /// A refusal is final: the source stops, and does not ask again.
    @Test func aRefusalStopsTheSource() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: world.address, maximumAccuracy: .none)
        defer { agent.stop() }
        let source = world.source()
        let events = LocationEventRecorder(observing: source)
        source.start()
        let log = await events.waitUntil { $0.states.last == .stopped }
        #expect(log.errors.contains { if case .notAuthorized = $0 { true } else { false } })
        await source.waitUntilIdle()
        #expect(events.log.states.filter { if case .connecting = $0 { true } else { false } }.count == 1)
        #expect(source.connectionState == .stopped)
        #expect(world.fake.clientsMade == 1, "the refused source asked again")
    }

    /// GeoClue gone while the source's GetClient waits for an agent, and back: the source asks the
    /// new GeoClue, which makes its first client.
    @Test func vanishingWhileWaitingForAnAgent() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        let source = world.source(notice: .milliseconds(100))
        let events = LocationEventRecorder(observing: source)
        source.start()
        defer { source.stop() }
        _ = await events.waitUntil { log in log.errors.contains { if case .awaitingAuthorization = $0 { true } else { false } } }
        await world.kill()
        _ = await events.waitUntil { log in log.errors.contains { if case .serviceLost = $0 { true } else { false } } }
        try await world.restart()
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        _ = await events.waitUntil { $0.states.contains(.watching) }
        let manager = DBusProxy(
            try DBusConnection(world.address), destination: GeoClueNames.service, path: GeoClueNames.managerPath, interface: GeoClueNames.manager)
        #expect(world.fake.clientCount == 1)
        let mine = try await manager.call("GetClient")
        #expect(mine == [.objectPath("/org/freedesktop/GeoClue2/Client/2")], "the first client of the new run was the source's")
    }

    /// GetClient gives a program its one client; CreateClient a new one each time; a program that
    /// leaves the bus takes its clients with it.
    @Test func clientsBelongToTheirProgram() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let program = try DBusConnection(world.address)
        let manager = DBusProxy(program, destination: GeoClueNames.service, path: GeoClueNames.managerPath, interface: GeoClueNames.manager)
        let first = try await manager.call("GetClient")
        #expect(try await manager.call("GetClient") == first)
        let created = try await manager.call("CreateClient")
        #expect(created != first)
        #expect(world.fake.clientCount == 2)
        program.close()
        await world.fake.waitUntil(clients: 0)
    }

    /// The client's distance threshold: a fix closer than it to the last one reported is not
    /// reported. And a client that starts gets the latest location at once, as from GeoClue.
    @Test func thresholdsAndTheLatestLocationAtStart() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let source = GeoClueLocationSource(configuration: .init(
            desktopID: Self.desktopID, distanceThreshold: 100, bus: world.address))
        let events = LocationEventRecorder(observing: source)
        let manager = LocationManager(source: source)
        var updates = manager.updates(buffering: .all).makeAsyncIterator()
        _ = await events.waitUntil { $0.states.contains(.watching) }
        let start = FakeWorld.walk(0)
        var near = start
        near.latitude += 0.0001  // 11 m
        var far = start
        far.latitude += 0.01  // 1.1 km
        await world.feed([start, near, far])
        let first = try #require(try await updates.next())
        let second = try #require(try await updates.next())
        #expect(first.latitude == start.latitude && second.latitude == far.latitude, "\(first), \(second)")

        let late = LocationManager(source: world.source())
        let atStart = try await late.requestLocation(timeout: .seconds(20))
        #expect(atStart.latitude == far.latitude)
    }

    /// Stopped while waiting to reconnect (GeoClue gone), the source reports nothing after
    /// `.stopped`, and stays stopped.
    @Test func nothingFollowsStopped() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let source = world.source()
        let events = LocationEventRecorder(observing: source)
        source.start()
        _ = await events.waitUntil { $0.states.contains(.watching) }
        await world.kill()
        _ = await events.waitUntil { log in log.states.contains { if case .waitingToReconnect = $0 { true } else { false } } }
        source.stop()
        try await world.restart()
        await source.waitUntilIdle()
        #expect(events.log.states.last == .stopped)
        #expect(world.fake.clientsMade == 0, "the stopped source made a client")
    }

    /// A source let go without `stop()` ends its connection to the bus.
    @Test func aSourceLetGoLeavesTheBus() async throws {
        let world = try await FakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: world.address)
        defer { agent.stop() }
        let observer = try DBusConnection(world.address)
        defer { observer.close() }
        func names() async throws -> Int {
            try await observer.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "ListNames")
                .first?.arrayValue?.count ?? 0
        }
        let before = try await names()
        var source: GeoClueLocationSource? = world.source()
        let events = LocationEventRecorder(observing: source!)
        source?.start()
        _ = await events.waitUntil { $0.states.contains(.watching) }
        #expect(try await names() == before + 1)
        source = nil
        await waitUntil { (try? await names()) == before }
    }

    @Test func geoClueUnknownsAreNil() {
        let properties: [String: DBusValue] = [
            "Latitude": 48.8584, "Longitude": 2.2945, "Accuracy": 12.5, "Altitude": .double(-Double.greatestFiniteMagnitude),
            "Speed": -1.0, "Heading": -1.0, "Description": "", "Timestamp": .structure([.uint64(1_700_000_000), .uint64(250_000)]),
        ]
        let fix = Location(geoClueProperties: properties)
        #expect(fix?.altitude == nil && fix?.speed == nil && fix?.course == nil)
        #expect(fix?.mode == .fix2D && fix?.horizontalAccuracy == 12.5 && fix?.isSimulated == false)
        #expect(fix?.time == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(Location(geoClueProperties: ["Latitude": 1.0]) == nil)
    }

    @Test func accuracyLevelsForRequestedMetres() {
        #expect(GeoClueAccuracyLevel(forAccuracy: 10) == .exact)
        #expect(GeoClueAccuracyLevel(forAccuracy: 999) == .exact)
        #expect(GeoClueAccuracyLevel(forAccuracy: 1_000) == .street)
        #expect(GeoClueAccuracyLevel(forAccuracy: 5_000) == .neighborhood)
        #expect(GeoClueAccuracyLevel(forAccuracy: 15_000) == .city)
        #expect(GeoClueAccuracyLevel(forAccuracy: 1_000_000) == .country)
    }
}
