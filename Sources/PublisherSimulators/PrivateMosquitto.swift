import Foundation
import GPSCore
import SimulatorsCore

/// A real mosquitto broker of a test's own: a config file of its own in a folder of its own, a
/// plain listener (and a TLS one, with a certificate authority the test makes with openssl) on
/// free ports of 127.0.0.1, persistence in its folder so that a ``stop()`` and ``start()`` keep
/// the sessions and queued messages of persistent clients, as a broker restarted by its service
/// manager does.
///
/// Readers are clients we did not write: ``subscribe(_:clientID:)`` runs `mosquitto_sub`.
///
/// A real broker, not a fake: for your own tests of what you publish (with
/// ``RecordingDestination`` where no broker is needed), as this package's own tests use it.
///
/// ```swift
/// let broker = try await PrivateMosquitto()
/// let subscriber = try await broker.subscribe("owntracks/#")
/// let destination = try MQTTDestination(.ownTracks(host: "127.0.0.1", port: Int(broker.port), user: "alice", device: "van"))
/// // ... publish, then:
/// _ = await subscriber.waitFor { $0.count == 3 }
/// await broker.stop()
/// ```
public final class PrivateMosquitto: Sendable {
    /// The plain listener's port.
    public let port: UInt16
    /// The TLS listener's port, when asked for.
    public let tlsPort: UInt16?
    /// The folder of the config, the persistence file and the certificates.
    public let folder: URL
    private let process: Locked<ChildProcess?>

    /// The files of the test's certificate authority and the broker's certificate (for 127.0.0.1).
    public var caFile: String { folder.appendingPathComponent("ca.crt").path }
    /// A second, unrelated authority: a client trusting it must refuse the broker.
    public var otherCAFile: String { folder.appendingPathComponent("other-ca.crt").path }

    /// Whether mosquitto and its clients are installed (`scripts/install-deps`).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
    }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes the config (and with `tls`, the certificates; with `users`, a password file that
    /// every client must then log in with) and starts the broker; returns once it listens.
    ///
    /// A port found free can be taken before mosquitto binds it (by another test process of the
    /// run): mosquitto then says "Address already in use", and it is started again on new ports.
    public init(tls: Bool = false, users: [String: String] = [:]) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Run as root, mosquitto drops privileges to the user "mosquitto", who cannot write the
        // persistence file in this folder: it stays this process's user.
        let user = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        var settings = """
            user \(user)
            per_listener_settings false
            allow_anonymous \(users.isEmpty)
            persistence true
            persistence_location \(folder.path)/
            autosave_interval 0
            max_queued_messages 0
            max_inflight_messages 0
            log_dest stderr
            log_type error
            log_type warning
            log_type notice
            log_type information

            """
        if !users.isEmpty {
            let passwords = folder.appendingPathComponent("passwords").path
            _ = FileManager.default.createFile(atPath: passwords, contents: nil)
            for (user, password) in users {
                let (status, error) = try await Self.run("/usr/bin/mosquitto_passwd", ["-b", passwords, user, password])
                guard status == 0 else { throw StartError(description: "mosquitto_passwd failed: \(error)") }
            }
            settings += "password_file \(passwords)\n"
        }
        if tls { try await Self.makeCertificates(in: folder) }
        let folder = folder
        let (port, tlsPort, child) = try await Self.launch(configuration: folder.appendingPathComponent("mosquitto.conf"), attempts: 5) {
            let port = try GPSFake.freePort()
            let tlsPort = tls ? try GPSFake.freePort() : nil
            var config = settings + "listener \(port) 127.0.0.1\n"
            if let tlsPort {
                config += """
                    listener \(tlsPort) 127.0.0.1
                    cafile \(folder.path)/ca.crt
                    certfile \(folder.path)/server.crt
                    keyfile \(folder.path)/server.key

                    """
            }
            try config.write(to: folder.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
            return (port, tlsPort)
        }
        self.port = port
        self.tlsPort = tlsPort
        process = Locked(child)
    }

    /// Configures ports with `configure` and starts mosquitto, again on new ports while the
    /// ports were taken, at most `attempts` times.
    private static func launch(
        configuration: URL, attempts: Int, configure: () throws -> (port: UInt16, tlsPort: UInt16?)
    ) async throws -> (port: UInt16, tlsPort: UInt16?, child: ChildProcess) {
        var attempt = 1
        while true {
            let (port, tlsPort) = try configure()
            do {
                return (port, tlsPort, try await run(configuration: configuration))
            } catch let error as StartError where error.description.contains("Address already in use") && attempt < attempts {
                attempt += 1
            }
        }
    }

    deinit {
        process.withLock { $0 }?.terminate()
        try? FileManager.default.removeItem(at: folder)  // best effort: the folder is temporary
    }

    /// Starts the broker (again, after ``stop()``) on the same ports; returns once it listens.
    public func start() async throws {
        let child = try await Self.run(configuration: folder.appendingPathComponent("mosquitto.conf"))
        process.withLock { $0 = child }
    }

    /// Starts mosquitto with the config file at `configuration`; returns once it listens.
    private static func run(configuration: URL) async throws -> ChildProcess {
        let child = try ChildProcess("/usr/sbin/mosquitto", ["-c", configuration.path])
        let running = await child.waitForLine(on: .error) { $0.contains(" running") }
        guard running != nil else {
            throw StartError(description: "mosquitto did not start: " + (child.lines() + child.lines(.error)).suffix(5).joined(separator: " | "))
        }
        return child
    }

    /// Stops the broker (SIGTERM: it saves its persistence file) and waits for it to end.
    public func stop() async {
        guard let child = process.withLock({ $0 }) else { return }
        child.terminate()
        _ = await child.waitUntilExit()
    }

    /// What the broker logged since its last start.
    public var log: [String] {
        process.withLock { $0 }?.lines(.error) ?? []
    }

    /// Starts `mosquitto_sub` on `topic` at QoS 1 with a persistent session (`-c`) under
    /// `clientID`, and returns once the broker acknowledged the subscription.
    public func subscribe(_ topic: String, clientID: String = "sub-\(UUID().uuidString.prefix(8))") async throws -> MosquittoSubscriber {
        // stdbuf: mosquitto_sub's standard output is a pipe here, which stdio would buffer by the block.
        let child = try ChildProcess(
            "/usr/bin/stdbuf",
            ["-oL", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-q", "1", "-c", "-i", clientID, "-d", "-v"])
        guard await child.waitForLine(where: { $0.contains("received SUBACK") }) != nil else {
            throw StartError(description: "mosquitto_sub did not subscribe: " + (child.lines() + child.lines(.error)).suffix(5).joined(separator: " | "))
        }
        return MosquittoSubscriber(process: child, topicPrefix: String(topic.prefix { $0 != "#" && $0 != "+" }))
    }

    /// A certificate authority, the broker's certificate for 127.0.0.1 signed by it, and another
    /// authority that signed nothing here. EC keys: quick to make.
    static func makeCertificates(in folder: URL) async throws {
        let path = folder.path
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: "\(path)/san.ext", atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + key + ["-keyout", "\(path)/ca.key", "-out", "\(path)/ca.crt", "-days", "2", "-subj", "/CN=swift-gps-facade test CA"],
            ["req", "-x509"] + key + ["-keyout", "\(path)/other-ca.key", "-out", "\(path)/other-ca.crt", "-days", "2", "-subj", "/CN=another CA"],
            ["req"] + key + ["-keyout", "\(path)/server.key", "-out", "\(path)/server.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", "\(path)/server.csr", "-CA", "\(path)/ca.crt", "-CAkey", "\(path)/ca.key", "-CAcreateserial",
             "-out", "\(path)/server.crt", "-days", "2", "-extfile", "\(path)/san.ext"],
        ]
        for step in steps {
            let (status, error) = try await run("/usr/bin/openssl", step)
            guard status == 0 else { throw StartError(description: "openssl \(step[0]) failed: \(error.joined(separator: " | "))") }
        }
    }

    /// Runs `executable` to its end, with no input; returns its exit status and what it said on
    /// standard error.
    private static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, error: [String]) {
        let process = try ChildProcess(executable, arguments)
        process.closeInput()
        let status = await process.waitUntilExit()
        return (status, process.lines(.error))
    }
}

/// `mosquitto_sub`'s messages, as it prints them (`-v`: the topic, a space, the payload).
public final class MosquittoSubscriber: Sendable {
    private let process: ChildProcess
    private let topicPrefix: String

    init(process: ChildProcess, topicPrefix: String) {
        self.process = process
        self.topicPrefix = topicPrefix
    }

    deinit {
        process.terminate()
    }

    /// The messages so far: topic and payload.
    public var messages: [(topic: String, payload: String)] {
        process.lines().compactMap { line in
            guard line.hasPrefix(topicPrefix), let space = line.firstIndex(of: " ") else { return nil }
            return (String(line[..<space]), String(line[line.index(after: space)...]))
        }
    }

    /// Returns once `condition` holds for the messages so far, each line counted once (a message
    /// delivered twice prints the same line twice), checked as each line comes; `false` when
    /// mosquitto_sub ended first. `condition` runs under the process's lock: it must not read
    /// ``messages``.
    @discardableResult
    public func waitFor(_ condition: @escaping @Sendable ([(topic: String, payload: String)]) -> Bool) async -> Bool {
        let prefix = topicPrefix
        let seen = Locked((lines: Set<String>(), messages: [(topic: String, payload: String)]()))
        // Whole lines only: a payload cut by a read mid-line would count as a message of its own.
        let found = await process.waitForLine(unfinished: false) { line in
            seen.withLock { seen in
                if line.hasPrefix(prefix), let space = line.firstIndex(of: " "), seen.lines.insert(line).inserted {
                    seen.messages.append((String(line[..<space]), String(line[line.index(after: space)...])))
                }
                return condition(seen.messages)
            }
        }
        return found != nil
    }

    /// Stops mosquitto_sub.
    public func stop() {
        process.terminate()
    }
}
