import DBus
import Foundation
import GeoClue
import GeoClueSimulators
import LocationFacade
import Simulators
import Testing
import TestSupport

/// `locate once|watch --geoclue` against the fake GeoClue and the real one, and `locate replay
/// --nmea-socket` feeding the real one: output, exit codes, usage.
@Suite("locate --geoclue", .enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct GeoClueCommandTests {
    static let walk = Repository.fixture("nmea/greenwich-walk.nmea")

    /// The real GeoClue fed by `locate replay --nmea-socket`: `locate once --geoclue` prints a
    /// position of the walk (GeoClue reads the NMEA's 6 decimals of minutes: within 5 cm).
    @Test(.enabled(if: SystemGeoClue.isAvailable, "\(SystemGeoClue.unavailableReason ?? "")"))
    func oncePrintsAPositionFromTheRealGeoClueFedByAReplay() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let socket = bus.folder + "/nmea.sock"
        let replay = try Locate.start(["replay", Self.walk.path, "--nmea-socket", socket])
        defer { replay.terminate() }
        #expect(await replay.waitForLine { $0 == socket } == socket)
        let geoclue = try await SystemGeoClue(bus: bus, nmeaSocket: socket)
        defer { geoclue.stop() }
        let agent = try await GeoClueAgent(bus: .address(bus.address))
        defer { agent.stop() }
        let result = try await Locate.run(["once", "--geoclue", "--bus", bus.address, "--format", "json", "--timeout", "20"])
        #expect(result.status == 0, "\(result.error)")
        let fix = try JSONDecoder().decode(Location.self, from: Data(try #require(result.output.first).utf8))
        let recorded = try ReplayRecording(contentsOf: Self.walk).readTimeline().compactMap { entry -> Location? in
            if case let .location(fix) = entry.event { fix } else { nil }
        }
        let nearest = try #require(recorded.min { $0.distance(to: fix) < $1.distance(to: fix) })
        #expect(nearest.distance(to: fix) < 0.05, "\(fix) is \(nearest.distance(to: fix)) m from the nearest recorded fix")
    }

    /// `locate watch --geoclue` from the real GeoClue fed by a replay: the positions of the walk,
    /// in its order.
    @Test(.enabled(if: SystemGeoClue.isAvailable, "\(SystemGeoClue.unavailableReason ?? "")"))
    func watchPrintsTheReplayedWalkInOrderFromTheRealGeoClue() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let socket = bus.folder + "/nmea.sock"
        let replay = try Locate.start(["replay", Self.walk.path, "--nmea-socket", socket, "--speed", "4"])
        defer { replay.terminate() }
        #expect(await replay.waitForLine { $0 == socket } == socket)
        let geoclue = try await SystemGeoClue(bus: bus, nmeaSocket: socket)
        defer { geoclue.stop() }
        let agent = try await GeoClueAgent(bus: .address(bus.address))
        defer { agent.stop() }
        let result = try await Locate.run(["watch", "--geoclue", "--bus", bus.address, "--json", "--count", "5"])
        #expect(result.status == 0, "\(result.error)")
        let printed = try result.output.map { try JSONDecoder().decode(Location.self, from: Data($0.utf8)) }
        let recorded = try ReplayRecording(contentsOf: Self.walk).readTimeline().compactMap { entry -> Location? in
            if case let .location(fix) = entry.event { fix } else { nil }
        }
        let places = printed.map { fix in recorded.firstIndex { $0.distance(to: fix) < 0.05 } }
        #expect(places.count == 5 && places.allSatisfy { $0 != nil }, "\(printed)")
        let indices = places.compactMap { $0 }
        #expect(indices == indices.sorted(), "in the walk's order: \(indices)")
    }

    @Test func watchPrintsEachFixOfTheFakeInOrderAsJSON() async throws {
        let world = try await CommandFakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: .address(world.bus.address))
        defer { agent.stop() }
        let watch = try Locate.start(["watch", "--geoclue", "--bus", world.bus.address, "--json", "--count", "4"])
        let track = SyntheticTrack.generate(count: 4, seed: 3)
        await world.device.waitUntilStarted()
        for fix in track {
            world.device.send(.location(fix))
            _ = await watch.waitForLine { line in line.contains(String(fix.latitude)) }
        }
        #expect(await watch.waitUntilExit() == 0, "\(watch.lines(.error))")
        let printed = try watch.lines().map { try JSONDecoder().decode(Location.self, from: Data($0.utf8)) }
        #expect(printed.map(\.latitude) == track.map(\.latitude))
        #expect(printed.allSatisfy { $0.isSimulated })
    }

    @Test func refusedByTheAgentExits77() async throws {
        let world = try await CommandFakeWorld()
        defer { world.stop() }
        let agent = try await GeoClueAgent(bus: .address(world.bus.address), maximumAccuracy: .none)
        defer { agent.stop() }
        let once = try await Locate.run(["once", "--geoclue", "--bus", world.bus.address])
        #expect(once.status == 77)
        #expect(once.error.last?.hasPrefix("locate once: GeoClue (org.freedesktop.GeoClue2) refused this program its location: Geolocation disabled for UID") == true, "\(once.error)")
        let watch = try await Locate.run(["watch", "--geoclue", "--bus", world.bus.address])
        #expect(watch.status == 77, "\(watch.error)")
    }

    @Test func noGeoClueOnTheBusExits69() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let once = try await Locate.run(["once", "--geoclue", "--bus", bus.address])
        #expect(once.status == 69)
        #expect(once.error == [
            "locate once: GeoClue (org.freedesktop.GeoClue2) is not available on the bus at \(bus.address): no program owns "
                + "org.freedesktop.GeoClue2 there, and the bus cannot start one. Is it installed, and does the bus's policy let this program reach it?",
        ])
        let watch = try await Locate.run(["watch", "--geoclue", "--bus", "unix:path=/nonexistent/bus"])
        #expect(watch.status == 69)
        #expect(watch.error.first?.contains("the bus at unix:path=/nonexistent/bus") == true, "\(watch.error)")
    }

    @Test func noAgentTimesOutSayingWhy() async throws {
        let world = try await CommandFakeWorld()
        defer { world.stop() }
        // 10 s from the command's start, which a loaded machine delays: room to reach GeoClue and
        // be told to wait for an agent before the deadline.
        let once = try await Locate.run(["once", "--geoclue", "--bus", world.bus.address, "--timeout", "10"])
        #expect(once.status == 75)
        #expect(once.error.contains { $0.contains("is waiting for this program to be authorized") }, "\(once.error)")
        #expect(once.error.last?.contains("No fix arrived within 10 s") == true, "\(once.error)")
    }

    @Test(arguments: [
        (["once", "--desktop-id", "x"], "--desktop-id, --geoclue-accuracy and --bus are for GeoClue: add --geoclue."),
        (["once", "--geoclue", "127.0.0.1:2947"], "--geoclue asks GeoClue, not gpsd: give either a server or --geoclue, not both."),
        (["watch", "--geoclue-accuracy", "city"], "--desktop-id, --geoclue-accuracy and --bus are for GeoClue: add --geoclue."),
        (["once", "--geoclue", "--geoclue-accuracy", "precise"], "The value 'precise' is invalid for '--geoclue-accuracy <geoclue-accuracy>'."),
        (["replay", "walk.nmea", "--nmea-socket", "/tmp/x", "--fast"], "--nmea-socket serves the recording to GeoClue, at its recorded pace: drop --via-gpsd and --fast."),
    ])
    func usageErrorsExit64(arguments: [String], message: String) async throws {
        let result = try await Locate.run(arguments)
        #expect(result.status == 64)
        #expect(result.error.contains { $0.contains(message) }, "\(result.error)")
    }
}

/// The fake GeoClue on a private bus, fed by a FakeLocationSource the test drives.
final class CommandFakeWorld: Sendable {
    let bus: PrivateBus
    let device = FakeLocationSource()
    let fake: FakeGeoClue

    init() async throws {
        bus = try await PrivateBus()
        fake = try await FakeGeoClue(bus: bus.address, source: device)
    }

    func stop() {
        fake.stop()
        bus.stop()
    }
}
