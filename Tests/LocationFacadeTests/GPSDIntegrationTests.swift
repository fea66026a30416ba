import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Integration tier: real gpsd, fed our own NMEA by gpsfake, watched by `gpspipe -w` and by
/// GPSDClient in the same run.
@Suite(
    "GPSDClient against real gpsd",
    .enabled(if: GPSFake.isAvailable && Repository.hasProgram("gpspipe"), "needs gpsd and gpsd-clients: scripts/test installs them"),
    .timeLimit(.minutes(2)))
struct GPSDIntegrationTests {
    @Test func ourClientReportsExactlyTheFixesGpspipeReports() async throws {
        let fake = try await GPSFake(log: Repository.fixture("nmea/greenwich-walk.nmea"), cycle: .milliseconds(5))
        defer { fake.stop() }
        let pipe = try ChildProcess("gpspipe", ["-w", "127.0.0.1:\(fake.port)"])
        let client = GPSDClient(
            host: "127.0.0.1", port: fake.port,
            configuration: .init(reconnectDelay: .seconds(30)))
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }

        #expect(await pipe.waitForLine { $0.contains(#""class":"WATCH""#) } != nil)
        await recorder.waitUntil { $0.states.contains(.watching) }
        fake.release()
        _ = await pipe.waitUntilExit()
        let log = await recorder.waitUntil { log in
            log.errors.contains { if case .connectionLost = $0 { true } else { false } }
        }

        let reference = ReferenceFix.fixes(inGPSPipeOutput: pipe.lines())
        #expect(reference.count > 50, "gpsd reported only \(reference.count) fixes")
        let problems = ReferenceFix.compare(log.locations, with: reference)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")

        // And gpsd decoded our NMEA to the track's own positions. (Not always its modes: gpsd takes an
        // epoch or two to notice a 3D fix has become 2D.)
        let track = Dictionary(Fixtures.greenwichWalk().fixes.map { ($0.time!, $0) }, uniquingKeysWith: { a, _ in a })
        for location in log.locations {
            let expected = try #require(track[location.time!])
            #expect(abs(location.latitude - expected.latitude) < 1e-6 && abs(location.longitude - expected.longitude) < 1e-6)
        }
    }

    @Test func managerTimesOutCancelsAndReportsUnreachableAgainstRealGPSD() async throws {
        // gpsd runs but the log is held back: connected, watching, no fixes.
        let fake = try await GPSFake(log: Repository.fixture("nmea/greenwich-walk.nmea"))
        let client = GPSDClient(host: "127.0.0.1", port: fake.port)
        let manager = LocationManager(source: client)

        let started = ContinuousClock.now
        await #expect(throws: LocationError.timedOut(after: .milliseconds(500), best: nil)) {
            try await manager.requestLocation(timeout: .milliseconds(500))
        }
        // The timeout's own timing is LocationManagerTests' (on a test clock, to just before and
        // just after it); here, the smoke test of the real-time path against a real gpsd: never
        // before the deadline, and after it within a bound a loaded two-core machine keeps (the
        // other tests of the run beside it: a 500 ms timeout has come after 3.9 s).
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(500) && waited < .seconds(30), "the timeout came after \(waited)")

        // A deadline far past the suite's time limit: "at once" is then anything before it.
        let request = Task { try await manager.requestLocation(timeout: .seconds(600)) }
        await manager.waitUntil(waitingRequests: 1)
        let cancelled = ContinuousClock.now
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        // At once, not after the request's 600 s; under ThreadSanitizer, beside the other suites,
        // "at once" has taken 1.7 s.
        #expect(ContinuousClock.now - cancelled < .seconds(30))

        fake.stop()
        _ = await fake.waitUntilExit()
        let gone = ContinuousClock.now
        await #expect(throws: LocationError.self) { try await manager.requestLocation(timeout: .seconds(600)) }
        #expect(ContinuousClock.now - gone < .seconds(30), "unreachable must not wait for the deadline")
    }
}
