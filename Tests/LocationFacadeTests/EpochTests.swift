import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Unit tier: a one-shot request returns its epoch whole, as gpsd reports an epoch before its
/// receiver has sent all of it, on a test clock.
@Suite("Whole epochs", .timeLimit(.minutes(1)))
struct EpochTests {
    static let second = Date(timeIntervalSince1970: 1_714_557_600)

    /// gpsd's reports of one epoch while it has not learnt the receiver's cycle, as it sent them
    /// for our NMEA at 4800 baud: after the RMC (2D, no accuracy), after the GGA (3D, altitude and
    /// horizontal accuracy), after the GSA (the vertical accuracy too).
    static func epoch(at time: Date = second, device: String? = "/dev/ttyUSB0") -> [Location] {
        let rmc = Location(
            latitude: 51.477891983, longitude: -0.00160685, speed: 2.991, course: 224.19, time: time, receivedAt: time, mode: .fix2D,
            device: device)
        var gga = rmc
        gga.mode = .fix3D
        gga.altitude = 30.242
        gga.ellipsoidalAltitude = 75.842
        gga.horizontalAccuracy = 17.1
        var gsa = gga
        gsa.verticalAccuracy = 29.9
        return [rmc, gga, gsa]
    }

    func manager(_ source: FakeLocationSource, _ clock: VirtualClock) -> LocationManager {
        LocationManager(source: source, clock: clock)
    }

    @Test func whatEachModeGives() {
        let (rmc, gga, gsa) = (Self.epoch()[0], Self.epoch()[1], Self.epoch()[2])
        #expect(!rmc.isComplete, "a 2D fix without a horizontal accuracy")
        #expect(!gga.isComplete, "a 3D fix without a vertical accuracy")
        #expect(gsa.isComplete)
        var flat = rmc
        flat.horizontalAccuracy = 8
        #expect(flat.isComplete, "a 2D fix gives no altitude")
        var haeOnly = gsa
        haeOnly.altitude = nil
        #expect(haeOnly.isComplete, "an altitude above the ellipsoid is an altitude")
        haeOnly.ellipsoidalAltitude = nil
        #expect(!haeOnly.isComplete)
    }

    @Test func theRequestTakesTheEpochOnceItIsWholeNotItsFirstReport() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        let request = Task { try await manager.requestLocation(timeout: .seconds(10)) }
        await source.waitUntilStarted()
        let epoch = Self.epoch()
        source.send(.location(epoch[0]))
        await clock.advance(by: .milliseconds(150))   // the GGA at 4800 baud
        source.send(.location(epoch[1]))
        await clock.advance(by: .milliseconds(150))
        #expect(manager.waitingRequestCount == 1, "still waiting for the GSA")
        source.send(.location(epoch[2]))
        let fix = try await request.value
        #expect(fix == epoch[2].simulated)
        #expect(fix.horizontalAccuracy == 17.1 && fix.verticalAccuracy == 29.9 && fix.altitude == 30.242)
    }

    @Test func aCompleteFixReturnsAtOnce() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        async let fix = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.epoch()[2]))
        #expect(try await fix == Self.epoch()[2].simulated)   // the clock never moved
    }

    @Test func theWaitEndsOneSecondAfterTheFirstReportWithTheNewestOfTheEpoch() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        #expect(manager.configuration.epochWait == .seconds(1), "the documented default")
        let request = Task { try await manager.requestLocation(timeout: .seconds(10)) }
        await source.waitUntilStarted()
        source.send(.location(Self.epoch()[0]))
        await clock.advance(by: .milliseconds(300))
        source.send(.location(Self.epoch()[1]))    // a receiver that sends no GSA
        await clock.advance(by: .milliseconds(700) - .nanoseconds(1))
        #expect(manager.waitingRequestCount == 1)
        await clock.advance(by: .nanoseconds(1))
        #expect(try await request.value == Self.epoch()[1].simulated, "the epoch's last report, with its altitude")
    }

    @Test func theReceiversNextEpochEndsTheWait() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        let next = Self.epoch(at: Self.second + 1)
        async let held = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.epoch()[0]))
        source.send(.location(Self.epoch()[1]))
        source.send(.location(next[0]))           // incomplete too: the held epoch is all there is
        #expect(try await held == Self.epoch()[1].simulated)

        async let newer = manager.requestLocation(timeout: .seconds(10))
        await manager.waitUntil(waitingRequests: 1)
        source.send(.location(next[1]))
        source.send(.location(Self.epoch(at: Self.second + 2)[2]))   // complete: taken at once
        #expect(try await newer == Self.epoch(at: Self.second + 2)[2].simulated)
    }

    @Test func anotherReceiversReportNeitherEndsNorJoinsTheEpoch() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        async let fix = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.epoch()[1]))
        source.send(.location(Self.epoch(at: Self.second + 1, device: "/dev/ttyUSB1")[1]))
        #expect(manager.waitingRequestCount == 1)
        source.send(.location(Self.epoch()[2]))
        #expect(try await fix == Self.epoch()[2].simulated)
    }

    @Test func aLostFixEndsTheWaitWithTheHeldOne() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        async let fix = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.epoch()[1]))
        source.send(.noFix(device: "/dev/ttyUSB1", time: Self.second))   // another receiver's
        #expect(manager.waitingRequestCount == 1)
        source.send(.noFix(device: "/dev/ttyUSB0", time: Self.second + 1))
        #expect(try await fix == Self.epoch()[1].simulated)
    }

    @Test func theDeadlineReturnsTheHeldFixInsteadOfTimingOut() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        let request = Task { try await manager.requestLocation(timeout: .milliseconds(500)) }
        await source.waitUntilStarted()
        await clock.advance(by: .milliseconds(200))
        source.send(.location(Self.epoch()[0]))
        await clock.advance(by: .milliseconds(300) - .nanoseconds(1))
        #expect(manager.waitingRequestCount == 1)
        await clock.advance(by: .nanoseconds(1))   // the deadline, before the epoch's wait would end
        #expect(try await request.value == Self.epoch()[0].simulated)
    }

    @Test func theCriteriaChooseWhichReportsAreHeld() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        async let threeD = manager.requestLocation(timeout: .seconds(10), minimumMode: .fix3D)
        async let accurate = manager.requestLocation(timeout: .seconds(10), desiredAccuracy: 20)
        await manager.waitUntil(waitingRequests: 2)
        for report in Self.epoch() { source.send(.location(report)) }
        #expect(try await threeD == Self.epoch()[2].simulated)
        #expect(try await accurate == Self.epoch()[2].simulated)
    }

    @Test func aSourceThatReportsWholeFixesIsTakenAtItsWord() async throws {
        let (source, clock) = (FakeLocationSource(), VirtualClock())   // as GeoClue, a GPX replay, your own source
        #expect(!source.reportsEpochsInParts)
        let manager = LocationManager(source: source, clock: clock)
        async let fix = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.epoch()[1]))   // no vertical accuracy, and none will come
        #expect(try await fix == Self.epoch()[1].simulated)   // the clock never moved
    }

    @Test func gpsdAndReplaysOfItsLogsReportEpochsInParts() throws {
        #expect(GPSDClient(host: "127.0.0.1", port: 2947).reportsEpochsInParts)
        let script = GPSDScript.fixes(SyntheticTrack.generate(count: 2))
        #expect(ReplayLocationSource(script: script).reportsEpochsInParts)
        #expect(try ReplayRecording(contentsOf: Repository.fixture("gpsd/greenwich-walk.json")).device().reportsEpochsInParts)
        #expect(try !ReplayRecording(contentsOf: Repository.fixture("gpx/greenwich-walk.gpx")).device().reportsEpochsInParts)
        #expect(!ReplayLocationSource(locations: SyntheticTrack.generate(count: 2)).reportsEpochsInParts)
    }

    @Test func withoutAnEpochWaitTheFirstReportThatQualifiesIsTheAnswer() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = LocationManager(source: source, clock: clock, configuration: .init(epochWait: .zero))
        async let fix = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.epoch()[0]))
        #expect(try await fix == Self.epoch()[0].simulated)
    }

    @Test func anIncompleteFixAtHandIsHeldOnlyUntilItsEpochsWaitEnds() async throws {
        let (source, clock) = (FakeLocationSource(reportsEpochsInParts: true), VirtualClock())
        let manager = manager(source, clock)
        let first = Task { try await manager.requestLocation(timeout: .milliseconds(100)) }
        await source.waitUntilStarted()
        source.send(.location(Self.epoch()[1]))
        await clock.advance(by: .milliseconds(100))
        #expect(try await first.value == Self.epoch()[1].simulated)
        // The manager's latest is that fix, 100 ms old: a request that takes it waits out the
        // rest of its epoch's second; one made after that second takes it at once.
        let second = Task { try await manager.requestLocation(timeout: .seconds(10), maximumAge: .seconds(30)) }
        await manager.waitUntil(waitingRequests: 1)
        await clock.advance(by: .milliseconds(900))
        #expect(try await second.value == Self.epoch()[1].simulated)
        await clock.advance(by: .seconds(1))
        #expect(try await manager.requestLocation(timeout: .seconds(10), maximumAge: .seconds(30)) == Self.epoch()[1].simulated)
    }
}
