import Foundation
import LocationFacade
import Simulators
import Synchronization
import Testing
import TestSupport

/// The fake gpsd must be good enough for real clients other than ours.
@Suite("The fake gpsd serves real gpsd clients", .timeLimit(.minutes(1)))
struct FakeGPSDRealClientTests {
    static let track = SyntheticTrack.generate(count: 12, seed: 3)

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gps/gps.py"), "needs python3-gps"))
    func pythonGPSModuleReadsTheFixes() async throws {
        let server = FakeGPSDServer(script: .fixes(Self.track), pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let client = """
            import gps, sys
            session = gps.gps(host="127.0.0.1", port=sys.argv[1], mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
            seen = 0
            for report in session:
                if report.get("class") == "TPV":
                    print("%.9f %.9f %s %d" % (report.lat, report.lon, report.time, report.status))
                    seen += 1
                    if seen == int(sys.argv[2]):
                        break
            session.send("?POLL;")
            for report in session:
                if report.get("class") == "POLL":
                    print("POLL %d %.9f" % (report.active, report.tpv[0]["lat"]))
                    break
            """
        let python = try ChildProcess("/usr/bin/python3", ["-c", client, "\(port)", "\(Self.track.count)"])
        #expect(await python.waitUntilExit() == 0, "\(python.lines(.error))")
        let expected = Self.track.map {
            String(format: "%.9f %.9f %@ 8", $0.latitude, $0.longitude, RFC3339.string(from: $0.time!))
        } + [String(format: "POLL 1 %.9f", Self.track.last!.latitude)]
        #expect(python.lines() == expected)
    }

    @Test(.enabled(if: Repository.hasProgram("gpspipe"), "needs gpspipe (gpsd-clients)"))
    func gpspipeReadsTheReportsVerbatim() async throws {
        let script = GPSDScript.fixes(Self.track)
        let server = FakeGPSDServer(script: script, pace: .asFastAsClientsRead)
        let port = try server.start()
        defer { server.shutdown() }
        let pipe = try ChildProcess("gpspipe", ["-w", "-n", "\(script.entries.count + 3)", "127.0.0.1:\(port)"])
        #expect(await pipe.waitUntilExit() == 0)
        let lines = pipe.lines()
        #expect(lines.prefix(3).map { GPSDScript.classAndDevice(of: $0).className } == ["VERSION", "DEVICES", "WATCH"])
        #expect(Array(lines.dropFirst(3)) == script.entries.map(\.line))
    }
}

extension Stage.Alone {
    /// The fake gpsd against a held concurrency pool. Alone in `scripts/test`: it holds every
    /// thread of the pool on purpose, for as long as the track takes to come (up to 10 s), and
    /// every test of the process beside it would wait that long.
    @Suite("The fake gpsd serves while the concurrency pool is held", .timeLimit(.minutes(1)))
    struct FakeGPSDHeldPoolTests {
        /// The fake's timeline keeps time on a thread of its own. A test process runs many tests at
        /// once, and when they hold every thread of the concurrency pool (SQLite waiting on a busy
        /// store, a synchronous import) a timeline on the pool stalled for seconds: a 3-second
        /// `locate once` beside them timed out. Here every pool thread is held until the client has
        /// had the whole track, or for 10 s: the track must come while they are held.
        @Test func servesOnTimeWhileEveryThreadOfTheConcurrencyPoolIsHeld() async throws {
            let server = FakeGPSDServer(script: .fixes(FakeGPSDRealClientTests.track), pace: .recorded(speed: 20))
            let port = try server.start()
            defer { server.shutdown() }
            let client = GPSDClient(host: "127.0.0.1", port: port)
            // Every pool thread blocks on this until the whole track has come: a blocking wait, as
            // SQLite's busy wait is, bounded at 10 s.
            let width = ProcessInfo.processInfo.activeProcessorCount
            let arrived = DispatchSemaphore(value: 0)
            final class Count: Sendable { let value = Mutex(0) }
            let received = Count()
            let observation = client.addObserver { event in
                guard case .location = event, received.value.withLock({ $0 += 1; return $0 }) == FakeGPSDRealClientTests.track.count else { return }
                for _ in 0..<width { arrived.signal() }
            }
            defer { withExtendedLifetime(observation) { client.stop() } }
            client.start()
            let holders = (0..<width).map { _ in
                Task.detached { arrived.wait(timeout: .now() + 10) == .success }
            }
            for holder in holders {
                #expect(await holder.value, "the track came while the pool was held")
            }
        }
    }
}
