import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Integration tier: real gpsd replaying its own regression logs, recorded from many real receivers
/// (NMEA, SiRF, u-blox, Garmin, Trimble, AIS...). `locate watch --json` must report exactly the fixes
/// `gpspipe -w` reports in the same run, no more and no fewer; and for every NMEA log, the fakes
/// must report what gpsd reports (`theFakesReportWhatGpsdReports`, in GPSDCorpusConformance.swift).
///
/// Both are read from one pass over the logs (``GPSDCorpus/pass``): one gpsd per log, watched by
/// `gpspipe -w` (with `-r` for an NMEA log: the receiver's sentences, which gpsd relays before the
/// reports they cause) and by `locate watch`; for an NMEA log, then, the same log played by the
/// in-process replay and by the fake gpsd (read by `gpspipe -w` too), which take no gpsd.
///
/// The logs are gpsd's, not ours: `scripts/fetch-gpsd-logs` downloads them from Debian's source
/// archive into `.cache/` (or set GPSD_TEST_LOGS to a folder of `*.log` files).
@Suite(
    "locate watch and the fakes against real gpsd replaying real receivers",
    .enabled(if: GPSDCorpus.isAvailable, "gpsd's regression logs are not in .cache (run scripts/fetch-gpsd-logs), or gpsd-clients is missing"),
    .tags(.corpus, .realGPSD, .childProcess), .timeLimit(.minutes(5)))
struct GPSDCorpusTests {
    @Test func theCorpusCoversManyReceivers() {
        // 154 logs in gpsd 3.22; 128 of them produce fixes (6,882 in all), the rest are AIS, RTCM or no-fix.
        #expect(GPSDCorpus.logs.count >= 150)
    }

    @Test func locateWatchReportsWhatGpsdReports() async {
        let runs = await GPSDCorpus.pass.value
        #expect(runs.count == GPSDCorpus.logs.count)
        for run in runs {
            #expect(run.problems.isEmpty, "\(run.log): \(run.problems.joined(separator: "\n"))")
        }
    }
}

enum GPSDCorpus {
    static let logs: [String] = GPSDRegressionLogs.logs.map(\.path)

    static var isAvailable: Bool {
        !logs.isEmpty && GPSFake.isAvailable && Repository.hasProgram("gpspipe")
    }

    /// What one log gave.
    struct Run: Sendable {
        var log: String
        /// How `locate watch` differed from gpspipe, or why the run failed.
        var problems: [String]
        /// What `gpspipe -w` (`-w -r`, for an NMEA log) printed.
        var gpsd: [String] = []
        /// The drivers gpsd said it read the log with (its DEVICE reports).
        var drivers: Set<String> = []
        /// For an NMEA log: how the in-process replay and the fake gpsd compare with gpsd, or why
        /// they could not be compared.
        var replay: GPSDConformance.Outcome?
        var fakeGPSD: GPSDConformance.Outcome?
        var fakeFailure: String?
    }

    /// The pass over every log, six at a time: each runs gpsfake, gpsd, gpspipe and locate, and
    /// all 154 at once (as a parameterized test would run them) starve the machine and every
    /// other test. Run once, for the tests that read it.
    static let pass = Task<[Run], Never> {
        await withTaskGroup(of: Run.self) { group in
            var pending = logs[...]
            for _ in 0..<6 {
                guard let log = pending.popFirst() else { break }
                group.addTask { await run(log: log) }
            }
            var runs: [Run] = []
            while let run = await group.next() {
                runs.append(run)
                if let log = pending.popFirst() { group.addTask { await Self.run(log: log) } }
            }
            return runs.sorted { $0.log < $1.log }
        }
    }

    static func run(log: String) async -> Run {
        let name = URL(fileURLWithPath: log).lastPathComponent
        var run = Run(log: name, problems: [])
        // gpsd relays an NMEA receiver's sentences to a client that asks (gpspipe -r), which the
        // comparison of the fakes needs; a binary receiver it would switch to NMEA for it.
        let isNMEA = (try? await GPSDRegressionLogs.gpsdecode(URL(fileURLWithPath: log))).map { GPSDRegressionLogs.isNMEA(drivers: $0.drivers) } ?? false
        do {
            // gpspipe is the reference, so a gpsd that fails it gets new chances: under load
            // gpsd 3.22 now and then resets a client that connects while it is still setting up,
            // and once in a while the private gpsd gpsfake started is gone (seen about once in 50
            // runs of the whole corpus). Each attempt starts a fresh gpsfake.
            var attempt: (fake: GPSFake, pipe: ChildProcess)?
            var failures: [String] = []
            for _ in 0..<3 where attempt == nil {
                let fake = try await GPSFake(log: URL(fileURLWithPath: log), cycle: .milliseconds(2))
                let pipe = try ChildProcess("gpspipe", (isNMEA ? ["-w", "-r"] : ["-w"]) + ["127.0.0.1:\(fake.port)"])
                if await pipe.waitForLine(where: { $0.contains(#""class":"WATCH""#) }) != nil {
                    attempt = (fake, pipe)
                } else {
                    failures.append("\(pipe.lines(.error))")
                    pipe.terminate()
                    fake.stop()
                }
            }
            guard let (fake, pipe) = attempt else {
                run.problems.append("gpspipe never watched, in 3 runs of gpsfake: \(failures)")
                return run
            }
            defer { fake.stop() }
            let address = "127.0.0.1:\(fake.port)"
            let watch = try Locate.start(["watch", address, "--json", "--verbose", "--reconnect-for", "0"])
            defer { pipe.terminate(); watch.terminate() }

            if await watch.waitForLine(on: .error, where: { $0.hasSuffix(": watching") }) == nil {
                run.problems.append("locate never watched")
            }
            fake.release()
            _ = await pipe.waitUntilExit()
            let status = await watch.waitUntilExit()
            if status != 69 { run.problems.append("locate watch should end when gpsd goes away (69), not \(status): \(watch.lines(.error).suffix(2))") }

            run.gpsd = pipe.lines()
            let reference = ReferenceFix.fixes(inGPSPipeOutput: run.gpsd)
            let ours = try watch.lines().map { try JSONDecoder().decode(Location.self, from: Data($0.utf8)) }
            run.problems += ReferenceFix.compare(ours, with: reference)
            run.drivers = Set(run.gpsd.compactMap { line in
                guard line.contains(#""class":"DEVICE""#) else { return nil }
                return (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["driver"] as? String
            })
            if isNMEA {
                do {
                    try await compareTheFakes(log: URL(fileURLWithPath: log), with: &run)
                } catch {
                    run.fakeFailure = "\(error)"
                }
            }
        } catch {
            run.problems.append("\(error)")
        }
        return run
    }

    /// The fakes playing `log`, compared with gpsd's reports of it: the in-process replay's
    /// events, and what `gpspipe -w` reads from the fake gpsd serving it as fast as it reads.
    static func compareTheFakes(log: URL, with run: inout Run) async throws {
        let recording: ReplayRecording
        do {
            recording = try ReplayRecording(contentsOf: log)
        } catch {
            // A log the replays refuse (no sentence with a position): gpsd must report nothing either.
            run.replay = GPSDConformance.compare(replay: [], gpsdOutput: run.gpsd)
            run.fakeGPSD = GPSDConformance.compare(fakeGPSDOutput: [], gpsdOutput: run.gpsd)
            return
        }
        run.replay = GPSDConformance.compare(replay: try recording.readTimeline(), gpsdOutput: run.gpsd)
        let server = FakeGPSDServer(recording: recording, pace: .asFastAsClientsRead)
        let port = try server.start()
        let pipe = try ChildProcess("gpspipe", ["-w", "127.0.0.1:\(port)"])
        defer { pipe.terminate() }
        await server.waitUntilFinished()
        server.shutdown()  // gpspipe ends when gpsd goes
        _ = await pipe.waitUntilExit()
        run.fakeGPSD = GPSDConformance.compare(fakeGPSDOutput: pipe.lines(), gpsdOutput: run.gpsd)
    }
}
