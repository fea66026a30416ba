import Foundation
import Simulators
import Testing
import TestSupport

/// `locate publish --reconnect`: refused when it is not MIN-MAX, and kept to by the MQTT client and
/// the sending.
@Suite(.tags(.childProcess), .timeLimit(.minutes(1)))
struct PublishLinesTests {
    typealias Folder = PublishCommandTests.Folder

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
