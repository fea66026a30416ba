import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
import Workout

/// `workout record` against real gpsd replaying gpsd's own regression log of a Telit HE910,
/// which sends three fixes without a time before it knows the date: the recording used to end
/// with 74 at its first fix.
///
/// The log is gpsd's, not ours: `scripts/fetch-gpsd-logs` downloads it into `.cache/` (or set
/// GPSD_TEST_LOGS to a folder holding `telit-he910.log`).
@Suite(
    "workout record against real gpsd replaying a real receiver",
    .enabled(if: RealReceiverLog.isAvailable, RealReceiverLog.whyNot),
    .timeLimit(.minutes(3)))
struct RecordingRealGPSDTests {
    @Test func aTelitHE910SendingTimelessFixesFirstIsRecorded() async throws {
        let folder = NSTemporaryDirectory() + "record-telit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/workouts.sqlite"

        // As the issue ran it: gpsfake -c 0.05, the log held until everyone watches.
        let gpsfake = try await GPSFake(log: RealReceiverLog.telit, cycle: .milliseconds(50))
        defer { gpsfake.stop() }
        // gpspipe, the reference, sees what gpsd sends; the recorder reaches gpsd through a
        // relay that says when gpsd has answered its WATCH (gpsd then reads the device for it).
        let pipe = try ChildProcess("gpspipe", ["-w", "127.0.0.1:\(gpsfake.port)"])
        defer { pipe.terminate() }
        let relay = try ChildProcess("/usr/bin/python3", ["-c", Self.relay, "\(gpsfake.port)"])
        defer { relay.terminate() }
        let listening = await relay.waitForLine { $0.hasPrefix("listening ") }
        let relayPort = try #require(listening.flatMap { Int($0.dropFirst("listening ".count)) }, "\(relay.lines(.error))")
        let recorder = try ChildProcess(
            Repository.builtExecutable("workout").path,
            ["record", "127.0.0.1:\(relayPort)", "--store", store, "--activity", "running", "--auto-pause", "--json"])
        defer { recorder.terminate() }
        #expect(await pipe.waitForLine { $0.contains(#""class":"WATCH""#) } != nil, "gpspipe never watched: \(pipe.lines(.error))")
        #expect(await relay.waitForLine { $0 == "watching" } != nil, "the recorder never watched: \(recorder.lines(.error))")
        gpsfake.release()

        // The log played, gpsd goes away; the recorder closing its connection shows it has read all.
        _ = await gpsfake.waitUntilExit()
        _ = await relay.waitUntilExit()
        recorder.send(signal: SIGINT)
        let status = await recorder.waitUntilExit()
        let outcome = RecordingOutcome(status: status, output: recorder.lines(.output), errors: recorder.lines(.error))

        let fixes = try pipe.lines().compactMap { line -> [String: Any]? in
            guard line.contains(#""class":"TPV""#) else { return nil }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["lat"] != nil && object["lon"] != nil ? object : nil
        }
        let timelessFirst = fixes.prefix { $0["time"] == nil }.count
        #expect(timelessFirst == 3, "the log's first three fixes have no time")

        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.input["fix_without_time_before_first"] == timelessFirst, "\(outcome.input)")
        #expect(outcome.errors(containing: "\(timelessFirst) fixes without a time before the first timed fix, dropped.").count == 1)
        // Every fix gpsd sent is saved, or dropped by a rule and counted.
        let dropped = InputIssueCounts.dropped(outcome.input)
        #expect(outcome.points.map { $0 + dropped } == fixes.count, "\(outcome.points ?? -1) saved, \(dropped) dropped, \(fixes.count) sent: \(outcome.input)")
        #expect(outcome.start.map { RFC3339.string(from: $0).hasPrefix("2019-03-12") } == true, "the receiver's own dates")
    }

    /// A relay from a port of its own to gpsd's, for one client: prints `listening PORT`, then
    /// `watching` once gpsd has answered the client's WATCH; when gpsd closes, it passes the end
    /// on and exits once the client has closed its side too (it has read everything).
    static let relay = #"""
        import socket, sys, threading
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        def say(line):  # one write: a reader never sees half a line
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        say("listening %d" % server.getsockname()[1])
        client, _ = server.accept()
        server.close()
        gpsd = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        def pump(source, sink, announce):
            seen = b""
            while True:
                try:
                    data = source.recv(65536)
                    if data:
                        sink.sendall(data)
                except OSError:
                    data = b""
                if not data:
                    break
                if announce and b'"class":"WATCH"' in seen + data:
                    say("watching")
                    announce = False
                seen = (seen + data)[-64:]
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        upstream = threading.Thread(target=pump, args=(client, gpsd, False))
        upstream.start()
        pump(gpsd, client, True)
        upstream.join()
        """#
}

/// gpsd's regression log of a Telit HE910, where `scripts/fetch-gpsd-logs` puts it.
enum RealReceiverLog {
    static let telit: URL = {
        let folder = ProcessInfo.processInfo.environment["GPSD_TEST_LOGS"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? Repository.root.appendingPathComponent(".cache/gpsd-3.22/test/daemon")
        return folder.appendingPathComponent("telit-he910.log")
    }()

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: telit.path) && GPSFake.isAvailable && Repository.hasProgram("gpspipe")
    }

    static var whyNot: Comment {
        "needs gpsd's regression log \(telit.path) (run scripts/fetch-gpsd-logs), gpsd, python3-gps and gpspipe"
    }
}

/// The `input` counts of `workout record --json` for what was dropped.
enum InputIssueCounts {
    static func dropped(_ input: [String: Int]) -> Int {
        InputIssue.allCases.filter { $0.outcome == .dropped }.reduce(0) { $0 + (input[$1.rawValue] ?? 0) }
    }
}
