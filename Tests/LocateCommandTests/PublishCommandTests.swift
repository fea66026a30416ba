import Foundation
import GPSCore
import Simulators
import Testing
import TestSupport

/// `locate publish` to an HTTP server (Python's http.server, Tests/Tools/http-recorder.py): every
/// position of a replay arrives through an outage, in the documented order; the drain, the signals,
/// and each exit code its help lists. Each waits on the command's lines and the server's requests.
@Suite(.tags(.childProcess), .timeLimit(.minutes(1)))
struct PublishCommandTests {
    static let walk = Repository.fixture("gpsd/greenwich-walk.json").path

    /// The exit codes `locate publish --help` lists, each produced by a test here (or in
    /// PublishMQTTCommandTests): 0 and 75 below, 77 in the refused login, the others in
    /// ``eachFailureHasItsExitCode(_:)``.
    static let exitCodes: Set<Int32> = [0, 64, 65, 66, 69, 73, 75, 77]

    /// The OwnTracks `tst` of each fix of the walk (whole seconds), in time order.
    static func walkTimes() throws -> [Int] {
        struct Report: Decodable {
            var `class`: String
            var time: String?
            var lat: Double?
            var mode: Int?
        }
        let times = try String(contentsOfFile: walk, encoding: .utf8).split(whereSeparator: \.isNewline).compactMap { line -> Int? in
            guard let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8)),
                  report.class == "TPV", report.lat != nil, (report.mode ?? 0) >= 2,
                  let time = report.time.flatMap({ try? Date(String($0.prefix(19)) + "Z", strategy: .iso8601) })
            else { return nil }
            return Int(time.timeIntervalSince1970)
        }
        return Array(Set(times)).sorted()
    }

    /// A folder of the test's own, removed at the end.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("publish-\(UUID())")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    }

    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(Repository.locateExecutable.path, ["publish"] + arguments, environment: environment)
    }

    /// Whether `delivered` is `times` as the outbox sends a backlog: in time order, or (when the
    /// sender looked before the run's own fix was queued) its newest first, then the rest in order.
    static func isBacklogOrder(_ delivered: [Int], of times: [Int]) -> Bool {
        delivered == times || delivered == [times[times.count - 1]] + times.dropLast()
    }

    /// The `tst` of each OwnTracks body the server answered 200, in the order they came.
    static func delivered(_ server: HTTPRecorder) -> [Int] {
        server.requests.filter { $0.status == 200 }.compactMap { request in
            (try? JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])?["tst"] as? Int
        }
    }

    /// The server answers 500 until the replay has ended (every position is queued), then 200:
    /// every position arrives once, the newest first (a map shows where the device is), then the
    /// backlog in time order; a line said the server could not be reached, another that it works.
    @Test func everyPositionArrivesAfterAnOutageNewestFirst() async throws {
        let folder = try Folder()
        let server = try await HTTPRecorder(failUntilReleased: true)
        let command = try Self.start([
            "--simulate", Self.walk, "--speed", "1000", "--to", server.url + "/pub", "--user", "alice", "--device", "van",
            "--outbox", folder.path("outbox.sqlite"), "--json",
        ])
        let unreachable = await command.waitForLine(on: .error) { $0.contains("cannot be reached") }
        #expect(unreachable?.hasPrefix("locate publish: \(server.url)/pub cannot be reached (HTTP 500") == true, "\(String(describing: unreachable))")
        #expect(await command.waitForLine(on: .error) { $0.contains("the recording ended; sending the") } != nil)
        server.release()
        #expect(await command.waitUntilExit() == 0, "\(command.lines(.error))")
        #expect(command.lines(.error).contains { $0.hasPrefix("locate publish: delivering to \(server.url)/pub again") })
        let times = try Self.walkTimes()
        #expect(command.lines().last == #"{"queued":\#(times.count),"sent":\#(times.count),"pending":0,"dropped":0}"#)
        _ = await server.request(server.requests.count)
        let delivered = Self.delivered(server)
        #expect(delivered == [times[times.count - 1]] + times.dropLast())
        let first = try #require(server.requests.first)
        #expect(first.headers["x-limit-u"] == "alice")
        #expect(first.headers["x-limit-d"] == "van")
    }

    /// Traccar's OsmAnd protocol: the device is the id, the position query items.
    @Test func osmAndSendsTheDeviceAsTheID() async throws {
        let folder = try Folder()
        let server = try await HTTPRecorder()
        let command = try Self.start([
            "--simulate", Self.walk, "--speed", "1000", "--to", server.url, "--format", "osmand", "--user", "alice", "--device", "van-7",
            "--outbox", folder.path("outbox.sqlite"),
        ])
        #expect(await command.waitUntilExit() == 0, "\(command.lines(.error))")
        let times = try Self.walkTimes()
        let request = try #require(await server.request(times.count))
        #expect(request.queryItems["id"] == "van-7")
        #expect(Set(server.requests.compactMap { $0.queryItems["timestamp"].flatMap(Int.init) }) == Set(times))
    }

    /// A server that never takes a position: the drain gives up at --drain-timeout (75), every
    /// position kept; the next run, to a server that works, sends them all, the backlog in time
    /// order. The password comes from a file and shows in no argument and no line.
    @Test func whatTheDrainCouldNotSendTheNextRunSends() async throws {
        let folder = try Folder()
        let outbox = folder.path("outbox.sqlite")
        let password = "pw-\(UUID().uuidString)"
        try (password + "\n").write(toFile: folder.path("password"), atomically: true, encoding: .utf8)
        let down = try await HTTPRecorder(failUntilReleased: true)
        let first = try Self.start([
            "--simulate", Self.walk, "--speed", "1000", "--to", "http://alice@127.0.0.1:\(down.port)/pub", "--user", "alice",
            "--device", "van", "--outbox", outbox, "--password-file", folder.path("password"), "--drain-timeout", "3", "--json",
        ])
        // Its arguments are read while it runs: the replay at 1000x takes 0.1 s and the drain its
        // --drain-timeout; an ended process not yet waited for has none (0.5 s was too short for a
        // loaded machine).
        #expect(await first.waitForLine(on: .error) { $0.contains("cannot be reached") } != nil)
        let arguments = (try? String(contentsOfFile: "/proc/\(first.processIdentifier)/cmdline", encoding: .utf8)) ?? ""
        #expect(arguments.contains("--password-file"))
        #expect(!arguments.contains(password))
        #expect(await first.waitUntilExit() == 75)
        let times = try Self.walkTimes()
        #expect(first.lines().last == #"{"queued":\#(times.count),"sent":0,"pending":\#(times.count),"dropped":0}"#)
        #expect(first.lines(.error).contains("locate publish: \(times.count) positions are still queued, kept in the outbox: the next run sends them first."))
        let authorization = "Basic " + Data("alice:\(password)".utf8).base64EncodedString()
        #expect(try #require(await down.request(1)).headers["authorization"] == authorization)

        // The next run: one fix of its own, an hour later.
        let later = folder.path("later.json")
        try #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2024-05-01T11:00:00.000Z","lat":51.48,"lon":-0.01}"#
            .appending("\n").write(toFile: later, atomically: true, encoding: .utf8)
        await down.stop()
        let up = try await HTTPRecorder(port: down.port)  // the same destination: its queue is this one
        let second = try Self.start(
            ["--simulate", later, "--to", "http://alice@127.0.0.1:\(up.port)/pub", "--user", "alice", "--device", "van", "--outbox", outbox, "--json"],
            environment: ["LOCATE_PUBLISH_PASSWORD": password])
        #expect(await second.waitUntilExit() == 0, "\(second.lines(.error))")
        #expect(second.lines().last == #"{"queued":1,"sent":\#(times.count + 1),"pending":0,"dropped":0}"#)
        _ = await up.request(times.count + 1)
        let delivered = Self.delivered(up)
        #expect(Self.isBacklogOrder(delivered.filter { $0 != 1_714_561_200 }, of: times), "\(delivered)")
        #expect(Set(delivered) == Set(times + [1_714_561_200]))
        #expect(up.requests.allSatisfy { $0.headers["authorization"] == authorization })
        for line in first.lines() + first.lines(.error) + second.lines() + second.lines(.error) {
            #expect(!line.contains(password))
        }
    }

    /// SIGINT ends publishing and starts the drain; a second one ends the drain at once (75),
    /// long before its 30 s. (The child starts with SIGINT at its default action: ChildProcess.)
    @Test func aSecondInterruptEndsTheDrainAtOnce() async throws {
        let folder = try Folder()
        let server = try await HTTPRecorder(failUntilReleased: true)
        let command = try Self.start([
            "--simulate", Self.walk, "--to", server.url, "--user", "alice", "--device", "van", "--outbox", folder.path("outbox.sqlite"), "--json",
        ])
        #expect(await command.waitForLine(on: .error) { $0.contains("cannot be reached") } != nil)
        command.send(signal: SIGINT)
        #expect(await command.waitForLine(on: .error) { $0.hasPrefix("locate publish: interrupted; sending the") } != nil)
        let start = ContinuousClock.now
        command.send(signal: SIGINT)
        #expect(await command.waitUntilExit() == 75)
        #expect(ContinuousClock.now - start < .seconds(20))
        let json = try #require(command.lines().last)
        #expect(json.hasPrefix(#"{"queued":"#) && json.contains(#""sent":0,"#) && !json.contains(#""pending":0,"#), "\(json)")
    }

    /// Runs `runs` times: starts a publish of the walk at 20 times its pace (5.5 s; a server that
    /// fails, no drain), `signal`s it when `ready` says so, and expects what the help promises
    /// for a signal: the end of publishing, with 75 and the positions kept, or 0 when it came
    /// before any was queued. A lost signal shows as the recording's end, 5 s later. Returns the
    /// runs that broke the promise, with how.
    static func signalEarly(
        runs: Int, start: (_ arguments: [String]) throws -> ChildProcess, ready: (ChildProcess) async -> Void
    ) async throws -> [String] {
        let server = try await HTTPRecorder(failUntilReleased: true)
        var broken: [String] = []
        for run in 0..<runs {
            let folder = try Folder()
            let signal = run.isMultiple(of: 2) ? SIGINT : SIGTERM
            let command = try start([
                "--simulate", walk, "--speed", "20", "--to", server.url, "--user", "alice", "--device", "van",
                "--outbox", folder.path("outbox.sqlite"), "--drain-timeout", "0",
            ])
            await ready(command)
            command.send(signal: signal)
            let status = await command.waitUntilExit()
            let errors = command.lines(.error)
            if ![0, 75].contains(status) || errors.contains(where: { $0.contains("the recording ended") }) {
                broken.append("run \(run), signal \(signal): exit \(status), \(errors.filter { !$0.contains("cannot be reached") })")
            }
        }
        return broken
    }

    /// A signal as soon as the command has said anything (here, that the server cannot be
    /// reached): still the drain and 75, every time. It used to be lost one run in 10 to 25: the
    /// command ignored SIGINT and SIGTERM, then let a Dispatch signal source catch them, which
    /// libdispatch sets up later, on a thread of its own; the command then published on.
    @Test func aSignalAsSoonAsItStartsIsHonoured() async throws {
        let broken = try await Self.signalEarly(runs: 30, start: { try Self.start($0) }) { command in
            _ = await command.waitForLine(on: .error) { _ in true }
        }
        #expect(broken.isEmpty, "\(broken)")
    }

    /// A signal at once after the start, while locate-publish is still being loaded, held back by
    /// the mask that `locate publish` hands over with (SIGINT and SIGTERM blocked): caught by
    /// locate-publish's first line, it drains and exits 75, every time. (Without the mask, a
    /// signal that comes before a program's first line ends it, as it would any program.)
    @Test func aSignalWhileItLoadsAfterTheHandOverIsHonoured() async throws {
        let executable = Repository.builtExecutable("locate-publish").path
        let broken = try await Self.signalEarly(
            runs: 20, start: { try ChildProcess(executable, $0, blockedSignals: [SIGINT, SIGTERM]) }, ready: { _ in })
        #expect(broken.isEmpty, "\(broken)")
    }

    /// A server that refuses the login: 77 at once, the positions kept; the password (from the
    /// environment) in no line.
    @Test func aRefusedLoginExits77() async throws {
        let folder = try Folder()
        let server = try await HTTPRecorder(statuses: [401])
        let password = "pw-\(UUID().uuidString)"
        let command = try Self.start(
            ["--simulate", Self.walk, "--to", "http://alice@127.0.0.1:\(server.port)/", "--user", "alice", "--device", "van",
             "--outbox", folder.path("outbox.sqlite"), "--json"],
            environment: ["LOCATE_PUBLISH_PASSWORD": password])
        #expect(await command.waitUntilExit() == 77)
        #expect(command.lines(.error).contains { $0.contains("refused the credentials (HTTP 401") }, "\(command.lines(.error))")
        let json = try #require(command.lines().last)
        #expect(json.contains(#""sent":0,"#) && !json.contains(#""pending":0,"#), "\(json)")
        for line in command.lines() + command.lines(.error) { #expect(!line.contains(password)) }
    }

    /// The other codes the help lists, each with the message that names the problem.
    @Test(arguments: [
        (["--to", "ftp://example.org"], 64, "Error: --to 'ftp://example.org' is not a broker or server URL"),
        (["--to", "mqtt://alice:hunter2@example.org"], 64, "Error: --to must not hold a password"),
        (["--to", "http://example.org", "--format", "homeassistant"], 64, "Error: --format homeassistant is Home Assistant's MQTT discovery"),
        (["--to", "mqtt://example.org", "--format", "osmand"], 64, "Error: --format osmand is Traccar's HTTP protocol"),
        (["--to", "http://example.org:70000"], 64, "Error: --to 'http://example.org:70000': the port must be a number from 1 to 65535"),
        (["--to", "mqtt://example.org/positions"], 64, "Error: --to 'mqtt://example.org/positions': an MQTT URL has no path"),
        (["--to", "http://127.0.0.1:9", "--simulate", "/nonexistent/walk.json"], 66, "locate publish: cannot read"),
        (["--to", "http://127.0.0.1:9", "--password-file", "/nonexistent/password"], 66, "locate publish: cannot read the password file"),
        (["--to", "mqtts://127.0.0.1:9", "--ca-file", "/nonexistent/ca.pem"], 66, "locate publish: cannot read the CA file /nonexistent/ca.pem."),
        (["--to", "https://127.0.0.1:9/", "--ca-file", "/nonexistent/ca.pem"], 66, "locate publish: cannot read the CA file /nonexistent/ca.pem."),
        (["--to", "http://127.0.0.1:9", "127.0.0.1:1"], 69, "locate publish: Cannot reach gpsd at 127.0.0.1:1"),
    ] as [([String], Int32, String)])
    func eachFailureHasItsExitCode(_ arguments: [String], _ code: Int32, _ message: String) async throws {
        let folder = try Folder()
        var all = arguments + ["--user", "alice", "--device", "van", "--outbox", folder.path("outbox.sqlite")]
        if !arguments.contains("--simulate") && !arguments.contains("127.0.0.1:1") { all += ["--simulate", Self.walk] }
        let result = try await Locate.run(["publish"] + all)
        #expect(result.status == code, "\(result.error)")
        #expect(result.error.first?.hasPrefix(message) == true, "\(result.error)")
        #expect(!result.error.joined().contains("hunter2"))
    }

    /// A file that is not an outbox is refused (73) and left as it was; a recording that is not
    /// one is 65.
    @Test func aFileThatIsNotAnOutboxOrARecordingIsRefused() async throws {
        let folder = try Folder()
        let notOurs = folder.path("notes.sqlite")
        try "my notes\n".write(toFile: notOurs, atomically: true, encoding: .utf8)
        let refused = try await Locate.run(["publish", "--simulate", Self.walk, "--to", "http://127.0.0.1:9", "--user", "a", "--device", "b", "--outbox", notOurs])
        #expect(refused.status == 73)
        #expect(refused.error.first?.hasPrefix("locate publish: cannot open the outbox \(notOurs)") == true, "\(refused.error)")
        #expect(try String(contentsOfFile: notOurs, encoding: .utf8) == "my notes\n")
        let notARecording = try await Locate.run(["publish", "--simulate", notOurs, "--to", "http://127.0.0.1:9", "--user", "a", "--device", "b", "--outbox", folder.path("outbox.sqlite")])
        #expect(notARecording.status == 65)
    }

    /// The help lists the codes the tests above produce, no more and no fewer.
    @Test func helpSaysEveryExitCode() async throws {
        let result = try await Locate.run(["publish", "--help"])
        #expect(result.status == 0)
        let help = ArgumentsAndExitCodesTests.unwrapped(result.output)
        let exits = try #require(help.firstRange(of: "Exits ")).upperBound
        let codes = Set(help[exits...].matches(of: /(?:^|; )(\d\d?) (?:when|for)/).compactMap { Int32($0.output.1) })
        #expect(codes == Self.exitCodes, "\(help[exits...])")
        #expect(help.contains("--password-file"))
        #expect(help.contains("LOCATE_PUBLISH_PASSWORD"))
    }
}

/// Under systemd (`Type=notify`): READY=1 once publishing, WATCHDOG=1 at half `WATCHDOG_USEC`,
/// STOPPING=1 at the drain, each a datagram to `$NOTIFY_SOCKET` (here read by Python, a reader we
/// did not write).
@Suite(.tags(.childProcess), .timeLimit(.minutes(1)))
struct PublishSystemdTests {
    static let reader = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(sys.argv[1])
        print("listening", flush=True)
        while True:
            print(s.recv(4096).decode(), flush=True)
        """

    @Test func itTellsSystemdWhenReadyAndWhileAlive() async throws {
        let folder = try PublishCommandTests.Folder()
        let socket = folder.path("notify")
        let reader = try ChildProcess("python3", ["-c", Self.reader, socket])
        defer { reader.terminate() }
        #expect(await reader.waitForLine { $0 == "listening" } != nil)
        let server = try await HTTPRecorder(failUntilReleased: true)
        let command = try PublishCommandTests.start(
            ["--simulate", PublishCommandTests.walk, "--to", server.url, "--user", "alice", "--device", "van",
             "--outbox", folder.path("outbox.sqlite"), "--drain-timeout", "0"],
            environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "200000"])
        #expect(await reader.waitForLine { $0 == "READY=1" } != nil)
        // Two pings: the watchdog goes on while the broker is down.
        let pings = Locked(0)
        #expect(await reader.waitForLine(unfinished: false) { line in
            pings.withLock { count in
                if line == "WATCHDOG=1" { count += 1 }
                return count >= 2
            }
        } != nil)
        command.send(signal: SIGTERM)
        #expect(await reader.waitForLine { $0 == "STOPPING=1" } != nil)
        #expect(await command.waitUntilExit() == 75)
    }
}
