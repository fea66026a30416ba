import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Integration tier: real gpsd replaying its own regression logs, recorded from many real receivers
/// (NMEA, SiRF, u-blox, Garmin, Trimble, AIS...). `locate watch --json` must report exactly the fixes
/// `gpspipe -w` reports in the same run, no more and no fewer.
///
/// The logs are gpsd's, not ours: `scripts/fetch-gpsd-logs` downloads them from Debian's source
/// archive into `.cache/` (or set GPSD_TEST_LOGS to a folder of `*.log` files).
@Suite(
    "locate watch against real gpsd replaying real receivers",
    .enabled(if: GPSDCorpus.isAvailable, "gpsd's regression logs are not in .cache (run scripts/fetch-gpsd-logs), or gpsd-clients is missing"),
    .timeLimit(.minutes(5)))
struct GPSDCorpusTests {
    @Test func theCorpusCoversManyReceivers() {
        // 154 logs in gpsd 3.22; 128 of them produce fixes (6,882 in all), the rest are AIS, RTCM or no-fix.
        #expect(GPSDCorpus.logs.count >= 150)
    }

    /// Every log, six at a time: each one runs gpsfake, gpsd, gpspipe and locate, and all 154 at
    /// once (as a parameterized test would run them) starve the machine and every other test.
    @Test func locateWatchReportsWhatGpsdReports() async {
        await withTaskGroup(of: Void.self) { group in
            var pending = GPSDCorpus.logs[...]
            for _ in 0..<6 {
                guard let log = pending.popFirst() else { break }
                group.addTask { await Self.compare(log: log) }
            }
            while await group.next() != nil {
                if let log = pending.popFirst() { group.addTask { await Self.compare(log: log) } }
            }
        }
    }

    static func compare(log: String) async {
        let name = URL(fileURLWithPath: log).lastPathComponent
        do {
            // gpspipe is the reference, so a gpsd that fails it gets new chances: under load
            // gpsd 3.22 now and then resets a client that connects while it is still setting up,
            // and once in a while the private gpsd gpsfake started is gone (seen about once in 50
            // runs of the whole corpus). Each attempt starts a fresh gpsfake.
            var attempt: (fake: GPSFake, pipe: ChildProcess)?
            var failures: [String] = []
            for _ in 0..<3 where attempt == nil {
                let fake = try await GPSFake(log: URL(fileURLWithPath: log), cycle: .milliseconds(2))
                let pipe = try ChildProcess("gpspipe", ["-w", "127.0.0.1:\(fake.port)"])
                if await pipe.waitForLine(where: { $0.contains(#""class":"WATCH""#) }) != nil {
                    attempt = (fake, pipe)
                } else {
                    failures.append("\(pipe.lines(.error))")
                    pipe.terminate()
                    fake.stop()
                }
            }
            guard let (fake, pipe) = attempt else {
                Issue.record("\(name): gpspipe never watched, in 3 runs of gpsfake: \(failures)")
                return
            }
            defer { fake.stop() }
            let address = "127.0.0.1:\(fake.port)"
            let watch = try Locate.start(["watch", address, "--json", "--verbose", "--reconnect-for", "0"])
            defer { pipe.terminate(); watch.terminate() }

            #expect(await watch.waitForLine(on: .error) { $0.hasSuffix(": watching") } != nil, "\(name): locate never watched")
            fake.release()
            _ = await pipe.waitUntilExit()
            let status = await watch.waitUntilExit()
            #expect(status == 69, "\(name): locate watch should end when gpsd goes away: \(watch.lines(.error).suffix(2))")

            let reference = ReferenceFix.fixes(inGPSPipeOutput: pipe.lines())
            let ours = try watch.lines().map { try JSONDecoder().decode(Location.self, from: Data($0.utf8)) }
            let problems = ReferenceFix.compare(ours, with: reference)
            #expect(problems.isEmpty, "\(name): \(problems.joined(separator: "\n"))")
        } catch {
            Issue.record("\(name): \(error)")
        }
    }
}

enum GPSDCorpus {
    static let logs: [String] = GPSDRegressionLogs.logs.map(\.path)

    static var isAvailable: Bool {
        !logs.isEmpty && GPSFake.isAvailable && Repository.hasProgram("gpspipe")
    }
}
