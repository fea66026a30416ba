import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Integration tier: `GPSFake` waits for clients through gpsd's own log of them, so a client
/// that says nothing when it watches (a command under test) still gets the log from its start.
@Suite(
    "gpsfake with gpsd logging its clients",
    .enabled(if: GPSFake.isAvailable && Repository.hasProgram("gpspipe"), "needs gpsd, gpsd-clients and python3-gps: scripts/test installs them"),
    .timeLimit(.minutes(1)))
struct GPSFakeTests {
    @Test func clientsCountedAsWatchingGetTheWholeLog() async throws {
        let fake = try await GPSFake(log: Repository.fixture("nmea/greenwich-walk.nmea"), cycle: .milliseconds(2), logsClients: true)
        defer { fake.stop() }
        let first = try ChildProcess("gpspipe", ["-w", "127.0.0.1:\(fake.port)"])
        try #require(await Self.counts(first, asWatcher: 1, of: fake))
        let second = try ChildProcess("gpspipe", ["-w", "127.0.0.1:\(fake.port)"])
        try #require(await Self.counts(second, asWatcher: 2, of: fake))
        fake.release()
        _ = await first.waitUntilExit()
        _ = await second.waitUntilExit()

        let firstFixes = ReferenceFix.fixes(inGPSPipeOutput: first.lines()).map(\.description)
        let secondFixes = ReferenceFix.fixes(inGPSPipeOutput: second.lines()).map(\.description)
        #expect(firstFixes.count > 100, "gpsd reported \(firstFixes.count) fixes of the walk's 110 seconds")
        #expect(secondFixes == firstFixes, "the second client, counted as watching before the release, missed nothing")
    }

    /// Whether gpsd's log counts `client` as its `count`th watcher before the client ends; says
    /// what the client and gpsd printed when it does not.
    static func counts(_ client: ChildProcess, asWatcher count: Int, of fake: GPSFake) async -> Bool {
        let counted = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await fake.waitForWatchers(count) }
            group.addTask {
                _ = await client.waitUntilExit()
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !counted {
            Issue.record(
                """
                gpsd never counted \(client.commandLine) as watching (it exited with \(client.exitStatus.map(String.init) ?? "nothing yet")); \
                it said: \(client.lines(.error).suffix(3)); gpsd's log ends: \(fake.output(.error).suffix(5))
                """)
        }
        return counted
    }

    @Test func waitingForWatchersEndsWhenGpsfakeDoes() async throws {
        let fake = try await GPSFake(log: Repository.fixture("nmea/greenwich-walk.nmea"), logsClients: true)
        fake.stop()
        #expect(await fake.waitForWatchers(1) == false)
    }
}
