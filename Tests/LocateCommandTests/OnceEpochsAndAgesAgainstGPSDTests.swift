import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Integration tier: `locate once` against real gpsd, where gpsd's own behaviour decides: the age
/// of the fix it holds (`--max-age`), and an epoch it reports in parts (`--epoch-wait`).
@Suite(
    "locate once: held fixes and whole epochs against real gpsd",
    .enabled(if: GPSFake.isAvailable && Repository.hasProgram("gpspipe"), "needs gpsd and gpsd-clients: scripts/test installs them"),
    .timeLimit(.minutes(2)))
struct OnceEpochsAndAgesAgainstGPSDTests {
    /// Real gpsd reading a receiver that sent one fix dated `time`, then went quiet: gpsd holds it
    /// and answers `?POLL;` with it. Dating the fix in the past stands for waiting that long.
    func gpsdHolding(fixDated time: Date) async throws -> (gpsd: PrivateGPSD, device: FakeSerialDevice, fix: Location) {
        let device = try FakeSerialDevice()
        let gpsd = try await PrivateGPSD(devices: [device.path])
        var fix = SyntheticTrack.generate(count: 1, seed: 16)[0]
        fix.time = Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down))   // NMEA's resolution
        let client = GPSDClient(host: "127.0.0.1", port: gpsd.port)
        let recorder = LocationEventRecorder(observing: client)
        client.start()
        defer { client.stop() }
        await recorder.waitUntil { $0.states.contains(.watching) }
        // gpsd takes a moment to find the receiver's speed and may miss its first sentences: the
        // receiver repeats its epoch, at a serial line's pace, until gpsd has reported all of it.
        let sentences = NMEAEncoder.epoch(for: fix)
        let receiver = Task {
            while !Task.isCancelled {
                device.write(sentences)
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        await recorder.waitUntil { [time = fix.time] in $0.locations.contains { $0.time == time && $0.isComplete } }
        receiver.cancel()
        await receiver.value
        return (gpsd, device, fix)
    }

    @Test func aFixHeldLongerThanMaxAgeIsNotPrinted() async throws {
        let (gpsd, device, fix) = try await gpsdHolding(fixDated: Date() - 20)
        defer { gpsd.stop(); _ = device }
        let address = "127.0.0.1:\(gpsd.port)"
        // The issue: with --max-age 5, a fix gpsd had held for 16.9 s was printed, received "now".
        // (The deadlines count from the command's start, which a loaded machine delays: 5 s for
        // the one that must pass, with gpsd's answer seen; 30 s for the one that ends at the answer.)
        let strict = try await Locate.run(["once", address, "--max-age", "5", "--gpsd-clock", "synchronized", "--timeout", "5"])
        #expect(strict.status == 75, "\(strict.output) \(strict.error)")
        #expect(strict.output.isEmpty)
        let held = RFC3339.string(from: try #require(fix.time))
        #expect(strict.error.first?.contains("the best seen was \(held)") == true, "\(strict.error)")

        let lenient = try await Locate.run(["once", address, "--max-age", "60", "--gpsd-clock", "synchronized", "--timeout", "30", "--format", "json"])
        #expect(lenient.status == 0, "\(lenient.error)")
        let printed = try JSONDecoder().decode(Location.self, from: Data(try #require(lenient.output.first).utf8))
        #expect(printed.time == fix.time)
        let time = try #require(fix.time)
        #expect(abs(printed.receivedAt.timeIntervalSince(time)) < 2, "received when gpsd got it, 20 s ago: \(printed.receivedAt)")
        #expect(printed.age() >= .seconds(20))
    }

    @Test func anUntrustedClockMakesTheHeldFixNoAnswer() async throws {
        let (gpsd, device, fix) = try await gpsdHolding(fixDated: Date())
        defer { gpsd.stop(); _ = device }
        let address = "127.0.0.1:\(gpsd.port)"
        let untrusted = try await Locate.run(["once", address, "--max-age", "60", "--gpsd-clock", "unsynchronized", "--timeout", "1"])
        #expect(untrusted.status == 75)
        // By default the kernel decides for a gpsd on this machine (it says unsynchronized here).
        let automatic = try await Locate.run(["once", address, "--max-age", "60", "--timeout", "1", "--format", "%time"])
        let time = try #require(fix.time)
        if KernelClock.isSynchronized() == true {
            #expect(automatic.status == 0 && automatic.output == [RFC3339.string(from: time)])
        } else {
            #expect(automatic.status == 75, "\(automatic.output)")
        }
    }

    /// The walk's NMEA from its first fix on, for three seconds: gpsd sees a receiver with a fix
    /// from its first sentence, before it has learnt which sentence ends an epoch.
    static func logWithAFixFromTheStart() throws -> URL {
        let (nmea, _) = Fixtures.greenwichWalk()
        let lines = nmea.split(whereSeparator: \.isNewline)
        let start = try #require(lines.firstIndex { $0.hasPrefix("$GPRMC") && $0.split(separator: ",")[2] == "A" })
        var kept: [Substring] = []
        var seconds = 0
        for line in lines[start...] {
            if line.hasPrefix("$GPRMC") { seconds += 1 }
            if seconds > 3 { break }
            kept.append(line)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fix-from-start-\(UUID()).nmea")
        try (kept.joined(separator: "\r\n") + "\r\n").write(to: url, atomically: true, encoding: .ascii)
        return url
    }

    @Test func locateOncePrintsTheEpochWholeNotItsFirstReport() async throws {
        let log = try Self.logWithAFixFromTheStart()
        defer { try? FileManager.default.removeItem(at: log) }
        // A sentence every 100 ms, as a receiver at 4800 baud sends them.
        let fake = try await GPSFake(log: log, cycle: .milliseconds(100))
        defer { fake.stop() }
        let address = "127.0.0.1:\(fake.port)"
        let pipe = try ChildProcess("gpspipe", ["-w", address])
        let whole = try Locate.start(["once", address, "--format", "json", "--timeout", "30", "--verbose"])
        let first = try Locate.start(["once", address, "--format", "json", "--timeout", "30", "--epoch-wait", "0", "--verbose"])
        #expect(await pipe.waitForLine { $0.contains(#""class":"WATCH""#) } != nil)
        #expect(await whole.waitForLine(on: .error) { $0.hasSuffix(": watching") } != nil)
        #expect(await first.waitForLine(on: .error) { $0.hasSuffix(": watching") } != nil)
        fake.release()
        #expect(await whole.waitUntilExit() == 0)
        #expect(await first.waitUntilExit() == 0)
        _ = await pipe.waitUntilExit()

        let reports = ReferenceFix.fixes(inGPSPipeOutput: pipe.lines())
        let epoch = reports.filter { $0.time == reports.first?.time }
        try #require(epoch.count > 1, "gpsd reported the first epoch in one piece, which this test needs it not to: \(reports)")
        let printedWhole = try JSONDecoder().decode(Location.self, from: Data(try #require(whole.lines().first).utf8))
        let printedFirst = try JSONDecoder().decode(Location.self, from: Data(try #require(first.lines().first).utf8))
        #expect(epoch.last!.differences(from: printedWhole).isEmpty, "\(epoch.last!.differences(from: printedWhole))")
        #expect(printedWhole.isComplete && printedWhole.horizontalAccuracy != nil && printedWhole.altitude != nil)
        #expect(epoch.first!.differences(from: printedFirst).isEmpty, "\(epoch.first!.differences(from: printedFirst))")
        #expect(!printedFirst.isComplete, "gpsd's first report of the epoch, as a plain libgps client takes it")
    }
}
