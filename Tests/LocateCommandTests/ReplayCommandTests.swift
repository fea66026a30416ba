import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// `locate replay` serves a recorded log to gpsd clients: ours, and `gpspipe -w`.
@Suite("locate replay", .timeLimit(.minutes(1)))
struct ReplayCommandTests {
    static let walk = Repository.fixture("gpsd/greenwich-walk.json")

    /// The fixes in our recorded walk, as gpsd reported them.
    static func recordedFixes() throws -> [ReferenceFix] {
        let fixes = ReferenceFix.fixes(inGPSDLog: try String(contentsOf: walk, encoding: .utf8))
        #expect(fixes.count == 106, "the recorded walk has 106 fixes")
        return fixes
    }

    func startReplay(_ extra: [String] = []) async throws -> (ChildProcess, String) {
        let replay = try Locate.start(["replay", Self.walk.path, "--port", "0", "--fast"] + extra)
        let address = try #require(await replay.waitForLine { $0.hasPrefix("127.0.0.1:") })
        return (replay, address)
    }

    /// SIGINT or SIGTERM as soon as the address is printed ("once ready") ends the replay
    /// cleanly (0), every time. The signal used to find the default action, which ends the
    /// process by the signal, or the `SIG_IGN` that preceded the Dispatch source libdispatch sets
    /// up later, which loses it (the replay then served on). (A lost one fails by the time limit.)
    @Test func aSignalAsSoonAsItIsReadyEndsIt() async throws {
        for run in 0..<30 {
            let (replay, _) = try await startReplay()
            let signal = run.isMultiple(of: 2) ? SIGINT : SIGTERM
            replay.send(signal: signal)
            #expect(await replay.waitUntilExit() == 0, "run \(run), signal \(signal)")
        }
    }

    @Test func ourClientReceivesEveryRecordedFix() async throws {
        let (replay, address) = try await startReplay(["--exit-when-done"])
        let endpoint = try GPSDAddress(parsing: address)
        let client = GPSDClient(host: endpoint.host, port: endpoint.port)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }

        let reference = try Self.recordedFixes()
        let log = await recorder.waitUntil { $0.locations.count >= reference.count }
        #expect(await replay.waitUntilExit() == 0)
        let problems = ReferenceFix.compare(log.locations, with: reference)
        #expect(problems.isEmpty, "\(problems)")
        #expect(log.locations.allSatisfy { $0.isSimulated && $0.device == "/dev/pts/1" })
    }

    @Test(.enabled(if: Repository.hasProgram("gpspipe"), "needs gpspipe (gpsd-clients)"))
    func gpspipeReadsItAsItReadsGPSD() async throws {
        let (replay, address) = try await startReplay()
        defer { replay.terminate() }
        let reference = try Self.recordedFixes()
        let pipe = try ChildProcess("gpspipe", ["-w", "-n", "\(reference.count + 20)", address])
        #expect(await pipe.waitUntilExit() == 0)
        let served = ReferenceFix.fixes(inGPSPipeOutput: pipe.lines())
        #expect(served.count > 40)
        #expect(served.map(\.fields) == reference.prefix(served.count).map { fix in
            var fields = fix.fields
            fields["status"] = 8
            return fields
        })
        #expect(pipe.lines().first?.contains(#""class":"VERSION""#) == true)
    }

    @Test func aMissingFileExits66() async throws {
        let result = try await Locate.run(["replay", "/nonexistent/walk.json", "--port", "0"])
        #expect(result.status == 66)
        #expect(result.error == ["locate replay: cannot read /nonexistent/walk.json: No such file or directory."])
    }

    @Test func aBadFileExits65NamingTheLine() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json")
        try "{\"class\":\"TPV\",\"mode\":1}\nnot json\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Locate.run(["replay", file.path, "--port", "0"])
        #expect(result.status == 65)
        #expect(result.error == ["locate replay: \(file.path):2: not a gpsd JSON report: not json"])
    }

    @Test(arguments: [["--speed", "0"], ["--speed", "-2"], ["--port", "70000"]])
    func badUsageExits64(arguments: [String]) async throws {
        let result = try await Locate.run(["replay", Self.walk.path] + arguments)
        #expect(result.status == 64)
    }
}
