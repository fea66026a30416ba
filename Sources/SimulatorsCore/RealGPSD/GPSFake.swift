#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore

/// A private, real gpsd fed from a log file by gpsfake's machinery (the `gps.fake` Python module of
/// Debian's python3-gps), for tests.
///
/// gpsd starts reading a device at its first watcher, so a second client would miss the start of
/// the log. This wrapper holds the log back until you call ``release()``: connect every client
/// first, then let the log play. (`gpsfake -i` does the same by prompting before each sentence,
/// but it crashes on binary logs in gpsd 3.22, so we drive `gps.fake.TestSession` directly.)
///
/// ```swift
/// let fake = try await GPSFake(log: URL(fileURLWithPath: "fixtures/nmea/greenwich-walk.nmea"))
/// // ...connect clients to 127.0.0.1:fake.port and wait until they watch...
/// fake.release()
/// _ = await fake.waitUntilExit()   // gpsd exits when the log is done; clients see it close
/// ```
///
/// A client that says nothing when it watches (a program under test, run as a child process)
/// can be waited for through gpsd's own log: start with `logsClients: true` and wait with
/// ``waitForWatchers(_:)`` before ``release()``.
public final class GPSFake: Sendable {
    /// The port the private gpsd listens on, on 127.0.0.1.
    public let port: UInt16
    /// The log being played.
    public let log: URL
    /// Whether gpsd logs its clients' requests (see ``init(log:cycle:port:logsClients:)``).
    public let logsClients: Bool
    private let process: ChildProcess

    private static let python = "/usr/bin/python3"

    /// Like gpsfake -1 -W 1 -c CYCLE -P PORT -o OPTIONS LOG, with the first sentence held until a
    /// line arrives on stdin. gpsd inherits the driver's standard error.
    ///
    /// gps.fake names gpsd's control socket after the driver's process id, in TMPDIR, and gpsd
    /// leaves the file behind when it is stopped. When an earlier driver's id came round again,
    /// gps.fake found the old file, took gpsd for ready, could not connect, and silently never
    /// added the device: gpsd then reported nothing at all for the log (seen for a few of the
    /// hundred logs of a corpus run, with a thousand such files in /tmp). So the control socket
    /// lives in a folder of the driver's own, and adding the device must succeed.
    private static let driver = """
        import os, select, shutil, signal, socket, sys, tempfile, time
        folder = tempfile.mkdtemp(prefix="gpsfake-")
        os.environ["TMPDIR"] = folder  # read by gps.fake for its control socket
        import gps.fake as gpsfake
        port, cycle, log, options = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
        released = False
        def hook(index, fake):
            global released
            if not released:
                sys.stdout.write("gpsfake: ready\\n")
                sys.stdout.flush()
                # select(), not a blocking read: a read restarts after a signal and SIGTERM would
                # never get through while the log is held.
                while not select.select([sys.stdin], [], [], 1)[0]:
                    pass
                if sys.stdin.readline() == "":
                    raise SystemExit(1)
                released = True
            if index >= len(fake.testload.sentences):
                return False
            time.sleep(cycle)
            return True
        def add_device(path):
            # gps.fake's own gives up in silence when gpsd is not yet listening on the socket.
            deadline = time.time() + 10
            while True:
                control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    control.connect(session.daemon.control_socket)
                    break
                except OSError:
                    control.close()
                    if time.time() > deadline:
                        raise SystemExit("gpsfake: gpsd's control socket never took a connection")
                    time.sleep(0.01)
            control.sendall(("+%s\\r\\n\\x00" % path).encode())
            reply = control.recv(12)
            control.close()
            if not reply.startswith(b"OK"):
                raise SystemExit("gpsfake: gpsd did not add %s: %r" % (path, reply))
        session = gpsfake.TestSession(options=options, prefix="", predump=False, port=port, slow=False,
                                      tcp=False, timeout=0.3, udp=False, verbose=0)
        session.daemon.add_device = add_device
        try:
            session.spawn()
            # TestSession.spawn() makes SIGTERM clean up without exiting; exit, through cleanup() below.
            signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(1))
            session.gps_add(log, speed=4800, pred=hook, oneshot=True)
            session.run()
        finally:
            session.cleanup()
            shutil.rmtree(folder, ignore_errors=True)
        """

    /// Whether gpsd and gpsfake's Python module are installed (`apt-get install gpsd python3-gps`).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: python)
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gps/fake.py")
            && ["/usr/sbin/gpsd", "/usr/bin/gpsd", "/usr/local/sbin/gpsd"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// An error starting gpsfake, with what it printed.
    public struct StartError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Starts a gpsd on `port` (a free one by default) fed from `log` with `cycle` between
    /// sentences, and returns once it is listening and holding the log until ``release()``.
    ///
    /// With `logsClients`, gpsd runs with `-D 2` and logs each request from a client and each
    /// report it sends one, so that ``waitForWatchers(_:)`` can tell when a client is watching.
    /// The log is held in memory while the fake runs: a line per report and client.
    ///
    /// A free port found by binding to port 0 can be taken by someone else before gpsd binds it
    /// (tests running in parallel do exactly that), so without an explicit port a start that fails
    /// is tried again on another port, up to three times.
    public init(log: URL, cycle: Duration = .milliseconds(5), port: UInt16? = nil, logsClients: Bool = false) async throws {
        let seconds = TextBytes.fixed(GPSDScript.seconds(cycle), decimals: 4)
        var failures: [String] = []
        for _ in 0..<(port == nil ? 3 : 1) {
            let candidate = try port ?? Self.freePort()
            let process = try ChildProcess(
                Self.python, ["-c", Self.driver, "\(candidate)", seconds, log.path, logsClients ? "-D 2" : ""])
            if await process.waitForLine(where: { $0 == "gpsfake: ready" }) != nil, await Self.acceptsConnections(candidate) {
                self.port = candidate
                self.log = log
                self.logsClients = logsClients
                self.process = process
                return
            }
            process.terminate()  // if it is still there, its gpsd never listened
            let status = await process.waitUntilExit()
            failures.append("status \(status) on port \(candidate): " + process.lines(.error).suffix(2).joined(separator: " | "))
        }
        throw StartError(description: "gpsfake on \(log.path) did not start: " + failures.joined(separator: "; "))
    }

    /// Waits until `count` different clients have asked gpsd to watch (`?WATCH={"enable":true...`),
    /// as gpsd's own log says, and returns `true`; `false` if gpsfake ends first, or the task is
    /// cancelled. gpsd logs a request as it takes it, before it reads the device again: the log
    /// released after this reaches every one of them from its first sentence. Only for a fake
    /// started with `logsClients: true`.
    ///
    /// ```swift
    /// let fake = try await GPSFake(log: log, logsClients: true)
    /// let recorder = try Process.run(URL(fileURLWithPath: "/usr/local/bin/workout"),
    ///                                arguments: ["record", "127.0.0.1:\(fake.port)"])   // says nothing when it watches
    /// guard await fake.waitForWatchers(1) else { return }
    /// fake.release()
    /// ```
    public func waitForWatchers(_ count: Int) async -> Bool {
        precondition(logsClients, "GPSFake.waitForWatchers(_:) reads gpsd's log of its clients: start the fake with logsClients: true")
        let watchers = Locked(Set<Substring>())
        return await process.waitForLine(on: .error) { line in
            // gpsd:CLIENT: <= client(1): ?WATCH={"enable":true,"json":true};\x0a
            guard let request = line.firstRange(of: "<= client("), line.contains(#"?WATCH={"enable":true"#),
                  let end = line[request.upperBound...].firstIndex(of: ")") else { return false }
            let client = line[request.upperBound..<end]
            return watchers.withLock { watchers in
                watchers.insert(client)
                return watchers.count >= count
            }
        } != nil
    }

    /// What gpsfake and its gpsd have printed so far on `stream` (gpsd logs to standard error).
    package func output(_ stream: ChildProcess.Stream) -> [String] {
        process.lines(stream)
    }

    /// Lets the log play: every sentence is fed, then gpsd is stopped.
    public func release() {
        process.write("go\n")
    }

    /// Waits until gpsfake (and so its gpsd) has exited; returns its exit status.
    public func waitUntilExit() async -> Int32 {
        await process.waitUntilExit()
    }

    /// Stops gpsfake and its gpsd now (``waitUntilExit()`` returns once both are gone).
    public func stop() {
        process.terminate()
    }

    /// Whether gpsd accepts a TCP connection on `port` within ten seconds. gpsd opens its control
    /// socket, where gpsfake adds the device, before its TCP listener: on a busy machine the log
    /// can be ready before a client can connect. A refused connect returns at once, so this tries
    /// every 20 ms; nothing tells us sooner.
    package static func acceptsConnections(_ port: UInt16) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while ContinuousClock.now < deadline {
            if Sockets.canConnect(port: port) { return true }
            try? await Task.sleep(for: .milliseconds(20))  // cancellation only; the deadline bounds the loop
        }
        return false
    }

    /// A TCP port on 127.0.0.1 that nothing was using a moment ago, below the kernel's ephemeral
    /// range and not handed out before by this process.
    ///
    /// An ephemeral port (what binding to port 0 gives) can become the source port of anyone's
    /// outgoing connection before gpsd binds it; gpsd then listens on IPv6 only and a client of
    /// 127.0.0.1 is refused. Ports below the ephemeral range are never taken that way.
    public static func freePort() throws -> UInt16 {
        let lowestEphemeral = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))  // unreadable: Linux's default below
            .flatMap { UInt16($0.split(whereSeparator: \.isWhitespace).first ?? "") } ?? 32768
        let range = UInt16(10_000)..<max(UInt16(10_001), lowestEphemeral)
        for _ in 0..<200 {
            let candidate = UInt16.random(in: range)
            guard handedOut.withLock({ $0.insert(candidate).inserted }) else { continue }
            if let (socket, _) = try? Sockets.listen(port: candidate) {  // taken: try another
                close(socket)
                return candidate
            }
        }
        throw StartError(description: "no free TCP port found on 127.0.0.1 between \(range.lowerBound) and \(range.upperBound)")
    }

    private static let handedOut = Locked(Set<UInt16>())
}
