import Foundation
import Simulators
import Testing
import TestSupport

/// What `locate publish` says on standard error, each line once and true when it speaks: the count
/// of what is queued when delivery works again, a refused login, gpsd lost and back; and
/// `--reconnect`, refused when it is not MIN-MAX and kept to by the MQTT client and the sending.
@Suite(.tags(.childProcess), .timeLimit(.minutes(1)))
struct PublishLinesTests {
    typealias Folder = PublishCommandTests.Folder

    /// "the recording ended; sending the N queued positions for up to 30 s." → N.
    static func queued(inDrainLine line: String?) -> Int? {
        line?.components(separatedBy: "sending the ").dropFirst().first?.split(separator: " ").first.flatMap { Int($0) }
    }

    /// A backlog, then the server takes one batch (20) and holds the next request: nothing moves
    /// while the line is read, and it must say what the outbox holds then, the backlog less 20.
    @Test func deliveringAgainSaysWhatIsQueuedWhenItSpeaks() async throws {
        let folder = try Folder()
        let server = try await HTTPRecorder(failUntilReleased: true, holdAfterRelease: 20)
        let command = try PublishCommandTests.start([
            "--simulate", PublishCommandTests.walk, "--speed", "1000", "--to", server.url + "/pub", "--user", "alice", "--device", "van",
            "--outbox", folder.path("outbox.sqlite"), "--reconnect", "0.05-0.2", "--json",
        ])
        let draining = await command.waitForLine(on: .error) { $0.contains("the recording ended; sending the") }
        let backlog = try #require(Self.queued(inDrainLine: draining), "\(String(describing: draining))")
        #expect(backlog == (try PublishCommandTests.walkTimes()).count)
        server.release()
        let again = await command.waitForLine(on: .error) { $0.contains("again;") }
        #expect(again == "locate publish: delivering to \(server.url)/pub again; \(backlog - 20) queued.")
        command.send(signal: SIGINT)
        #expect(await command.waitUntilExit() == 75, "\(command.lines(.error))")
        #expect(command.lines().last?.contains(#""pending":\#(backlog - 20),"#) == true, "\(command.lines())")
    }

    /// A refused login ends the run with one line that says so (and what is kept), not two.
    @Test func aRefusedMQTTLoginIsSaidOnce() async throws {
        let folder = try Folder()
        let broker = try await PrivateMosquitto(users: ["alice": "right-password"])
        let command = try PublishCommandTests.start(
            ["--to", "mqtt://alice@127.0.0.1:\(broker.port)", "--user", "alice", "--device", "van", "--simulate", PublishCommandTests.walk,
             "--speed", "1000", "--outbox", folder.path("outbox.sqlite")],
            environment: ["LOCATE_PUBLISH_PASSWORD": "wrong"])
        #expect(await command.waitUntilExit() == 77, "\(command.lines(.error))")
        let refusals = command.lines(.error).filter { $0.contains("refused the credentials") }
        #expect(refusals.count == 1, "\(command.lines(.error))")
        #expect(refusals.first?.hasSuffix("kept in the outbox.") == true, "\(refusals)")
        await broker.stop()
    }

    @Test func aRefusedHTTPLoginIsSaidOnce() async throws {
        let folder = try Folder()
        let server = try await HTTPRecorder(statuses: [401])
        let command = try PublishCommandTests.start(
            ["--simulate", PublishCommandTests.walk, "--to", "http://alice@127.0.0.1:\(server.port)/", "--user", "alice", "--device", "van",
             "--outbox", folder.path("outbox.sqlite")],
            environment: ["LOCATE_PUBLISH_PASSWORD": "wrong"])
        #expect(await command.waitUntilExit() == 77)
        #expect(command.lines(.error).filter { $0.contains("refused the credentials (HTTP 401") }.count == 1, "\(command.lines(.error))")
    }

    /// gpsd restarted mid-run: one line when it goes, one when it is back, and the run goes on
    /// (positions from it carry the device's default tracker id, `n5` for `van-5`).
    @Test func gpsdLostMidRunIsSaidOnceAndWhenItIsBack() async throws {
        let folder = try Folder()
        let gpsd = FakeGPSDServer(script: .fixes(SyntheticTrack.generate(count: 5, seed: 3)), pace: .asFastAsClientsRead)
        let port = try gpsd.start()
        defer { gpsd.shutdown() }
        let server = try await HTTPRecorder()
        let command = try PublishCommandTests.start([
            "127.0.0.1:\(port)", "--to", server.url + "/pub", "--user", "alice", "--device", "van-5", "--outbox", folder.path("outbox.sqlite"),
        ])
        let first = try #require(await server.request(1))
        #expect((try? JSONSerialization.jsonObject(with: Data(first.body.utf8)) as? [String: Any])?["tid"] as? String == "n5", "\(first.body)")
        try await gpsd.restart(downtime: .milliseconds(500))
        let back = await command.waitForLine(on: .error) { $0.contains("is back;") }
        #expect(back == "locate publish: gpsd at 127.0.0.1:\(port) is back; publishing its fixes again.")
        command.send(signal: SIGINT)
        #expect(await command.waitUntilExit() == 0, "\(command.lines(.error))")
        let lost = command.lines(.error).filter { $0.contains("Lost the connection to gpsd") }
        #expect(lost == ["locate publish: Lost the connection to gpsd at 127.0.0.1:\(port): gpsd closed the connection. Reconnecting; publishing resumes when it is back."],
                "\(command.lines(.error))")
        #expect(command.lines(.error).filter { $0.contains("is back;") }.count == 1)
    }

    @Test(arguments: ["5-1", "0-10", "1", "1-", "-1-5", "a-b", "1-inf", "nan-2", "1-2-3", ""])
    func aReconnectThatIsNotMinMaxIsRefused(_ text: String) async throws {
        let result = try await Locate.run(["publish", "--to", "http://127.0.0.1:9", "--user", "a", "--device", "b", "--reconnect", text])
        #expect(result.status == 64)
        #expect(result.error.first == "Error: --reconnect '\(text)': give MIN-MAX seconds, MIN above 0 and MAX at least MIN (such as 1-60, 0.5-10, or 5-5 for a steady 5 s).",
                "\(result.error)")
    }

    /// The server fails every request: with --reconnect 0.05-0.1 the twelfth try comes within a
    /// second or so; by the default (1 s doubling to 60 s) it would take seven minutes.
    @Test func theSendingKeepsToReconnect() async throws {
        let folder = try Folder()
        let server = try await HTTPRecorder(fail: 1000)
        let command = try PublishCommandTests.start([
            "--simulate", PublishCommandTests.walk, "--speed", "1000", "--to", server.url, "--user", "alice", "--device", "van",
            "--outbox", folder.path("outbox.sqlite"), "--reconnect", "0.05-0.1",
        ])
        #expect(await server.request(12) != nil)
        command.send(signal: SIGINT)
        #expect(await command.waitUntilExit() == 75, "\(command.lines(.error))")
    }

    /// A "broker" that closes each connection at once: with --reconnect 0.05-0.1 the MQTT client
    /// comes back ten times within a second or so; by the default it would take over eight minutes.
    @Test func theMQTTClientKeepsToReconnect() async throws {
        let folder = try Folder()
        let closer = try ChildProcess("python3", ["-c", Self.closingListener])
        defer { closer.terminate() }
        let listening = try #require(await closer.waitForLine { $0.hasPrefix("listening ") })
        let port = try #require(Int(listening.dropFirst("listening ".count)))
        let command = try PublishCommandTests.start([
            "--simulate", PublishCommandTests.walk, "--speed", "1000", "--to", "mqtt://127.0.0.1:\(port)", "--user", "alice", "--device", "van",
            "--outbox", folder.path("outbox.sqlite"), "--reconnect", "0.05-0.1",
        ])
        #expect(await closer.waitForLine { $0 == "accepted 10" } != nil)
        command.send(signal: SIGINT)
        #expect(await command.waitUntilExit() == 75, "\(command.lines(.error))")
    }

    /// Listens on a free loopback port, says which, and closes each connection as it comes,
    /// counting them: an MQTT client there never gets a CONNACK and tries again.
    static let closingListener = """
        import socket
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        print("listening %d" % listener.getsockname()[1], flush=True)
        count = 0
        while True:
            connection, _ = listener.accept()
            connection.close()
            count += 1
            print("accepted %d" % count, flush=True)
        """
}
