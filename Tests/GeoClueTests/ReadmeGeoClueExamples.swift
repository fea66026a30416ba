import DBus
import Foundation
import GeoClue
import GeoClueSimulators
import LocationCore
import Simulators
import Testing
import TestSupport

/// The README's GeoClue examples, as printed.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs dbus-daemon: scripts/test installs it"), .timeLimit(.minutes(1)))
struct ReadmeGeoClueExamples {
    /// The program's own code, for a machine with GeoClue on its system bus: compiled here, run by
    /// `whereAmIOnThePrivateBus()` below with the bus given explicitly.
    func whereAmI() async throws -> Location {
        // GeoClue knows the program by its desktop id: the name of its .desktop file, without ".desktop".
        let source = GeoClueLocationSource(desktopID: "org.example.BikeComputer", accuracyLevel: .exact)
        let manager = LocationManager(source: source)
        let fix = try await manager.requestLocation(timeout: .seconds(30))
        return fix
    }

    /// A headless machine's agent, as printed (for the system bus).
    func headlessAgent() async throws -> GeoClueAgent {
        let agent = try await GeoClueAgent(allowing: ["org.example.BikeComputer"], maximumAccuracy: .exact)
        return agent
    }

    /// The test example: the fake GeoClue replaying a walk on a virtual clock.
    @Test func theFakeExampleGivesTheWalk() async throws {
        let recording = try ReplayRecording(contentsOf: Repository.fixture("gpx/greenwich-walk.gpx"))
        let bus = try await PrivateBus()
        let clock = VirtualClock()
        let fake = try await FakeGeoClue(bus: bus.address, source: recording.device(clock: clock))
        let agent = try await GeoClueAgent(bus: .address(bus.address))
        let source = GeoClueLocationSource(desktopID: "org.example.App", bus: .address(bus.address))
        let manager = LocationManager(source: source, clock: clock)
        defer {
            agent.stop()
            fake.stop()
            bus.stop()
        }
        let events = LocationEventRecorder(observing: source)
        var updates = manager.updates(buffering: .all).makeAsyncIterator()
        _ = await events.waitUntil { $0.states.contains(.watching) }
        await clock.advance(by: .seconds(1))
        let fix = try #require(try await updates.next())
        #expect(fix.isSimulated && abs(fix.latitude - 51.4779) < 0.001)
    }
}
