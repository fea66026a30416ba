import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Integration tier: `locate once` against real gpsd fed our NMEA by gpsfake.
@Suite(
    "locate once against real gpsd",
    .enabled(if: GPSFake.isAvailable && Repository.hasProgram("gpspipe"), "needs gpsd and gpsd-clients: scripts/test installs them"),
    .timeLimit(.minutes(2)))
struct OnceAgainstGPSDTests {
    @Test func locateOncePrintsTheFirstQualifyingFixGpsdSent() async throws {
        let fake = try await GPSFake(log: Repository.fixture("nmea/greenwich-walk.nmea"), cycle: .milliseconds(5))
        defer { fake.stop() }
        let address = "127.0.0.1:\(fake.port)"
        let pipe = try ChildProcess("gpspipe", ["-w", address])
        let once = try Locate.start(["once", address, "--min-mode", "3d", "--format", "json", "--timeout", "30", "--verbose"])
        #expect(await pipe.waitForLine { $0.contains(#""class":"WATCH""#) } != nil)
        #expect(await once.waitForLine(on: .error) { $0.hasSuffix(": watching") } != nil)
        fake.release()
        #expect(await once.waitUntilExit() == 0)
        _ = await pipe.waitUntilExit()
        let printed = try JSONDecoder().decode(Location.self, from: Data(try #require(once.lines().first).utf8))
        let first3D = try #require(ReferenceFix.fixes(inGPSPipeOutput: pipe.lines()).first { $0.mode == 3 })
        #expect(first3D.differences(from: printed).isEmpty, "\(first3D.differences(from: printed))")
    }

    @Test func noFixWithinTheTimeoutExits75() async throws {
        let fake = try await GPSFake(log: Repository.fixture("nmea/greenwich-walk.nmea"))  // held: no data
        defer { fake.stop() }
        let result = try await Locate.run(["once", "127.0.0.1:\(fake.port)", "--timeout", "1"])
        #expect(result.status == 75)
        #expect(result.error == ["locate once: No fix arrived within 1 s."])
    }
}
