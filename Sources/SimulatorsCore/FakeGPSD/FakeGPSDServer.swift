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

/// A fake gpsd on 127.0.0.1 that speaks gpsd's JSON protocol well enough for real clients
/// (`GPSDClient`, `gpspipe -w`, Python's `gps` module, `cgps`), serving a ``GPSDScript``.
///
/// ```swift
/// let server = FakeGPSDServer(script: .fixes(track), pace: .asFastAsClientsRead)
/// let port = try server.start()                 // an ephemeral port
/// let client = GPSDClient(host: "127.0.0.1", port: port)
/// // ...
/// await server.waitUntilFinished()
/// server.shutdown()
/// ```
///
/// It answers the VERSION banner on connect, `?WATCH` (enable, disable, json, device),
/// `?POLL;`, `?DEVICES;` and `?VERSION;`. Its answer to `?POLL;` carries, as gpsd's does, the
/// time of its host clock: a clock on the script's own time line, so that a client finds a held
/// fix exactly as old as it is on the server's clock (scaled by a recorded pace's speed). That
/// clock runs from the time of the latest TPV sent, never backwards; a client that asks
/// `GPSDClient.Configuration.hostClock` to trust it (`.synchronized`) gets the fix's true age. Like gpsd, it has one timeline shared by all clients:
/// a client sees the reports sent while it is watching. The timeline starts at the first WATCH
/// (as gpsd opens a device for its first watcher), at once, or when you call ``play()``.
///
/// It is honest about being a fake: its VERSION `rev` says so, and the reports built from
/// locations carry gpsd's "simulated" status. Faults (``GPSDFault``) are performed on demand.
public final class FakeGPSDServer: Sendable {
    /// How fast the script plays.
    public enum Pace: Sendable, Hashable {
        /// At the script's offsets divided by `speed`, on the server's clock.
        case recorded(speed: Double)
        /// As fast as the slowest watching client reads; the timeline waits while no one watches,
        /// so a client that reconnects misses nothing.
        case asFastAsClientsRead
    }

    /// When the timeline starts.
    public enum StartPolicy: Sendable, Hashable {
        /// At the first WATCH, as gpsd starts reading a device for its first watcher.
        case onFirstWatch
        /// As soon as the server starts.
        case immediately
        /// When ``FakeGPSDServer/play()`` is called.
        case manually
    }

    /// A snapshot of what the server is doing, for tests that wait on it.
    public struct Status: Sendable, Hashable {
        /// Listening (false between the halves of a restart, and after shutdown).
        public var isListening: Bool
        /// Open client connections.
        public var connections: Int
        /// Connections that asked for reports with WATCH.
        public var watchers: Int
        /// Script reports sent so far (to whoever was watching).
        public var sentReports: Int
        /// The whole script has been sent.
        public var isFinished: Bool
        /// No bytes are waiting to be written to any client.
        public var isFlushed: Bool
        /// Connections accepted since the server started.
        public var acceptedConnections: Int
        /// Requests (`?WATCH`, `?POLL;`...) received since the server started.
        public var requests: Int
    }

    /// An error starting or restarting the server.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        public var description: String
        /// Whether the port was taken (EADDRINUSE).
        var addressInUse = false
    }

    /// The reports it serves, whole: the script it was made with, or (for a server reading a
    /// recording as it plays) the whole recording read now.
    public var script: GPSDScript {
        switch reports {
        case let .script(script): script
        case let .stream(open): GPSDScript(entries: (try? open().collect()) ?? [])  // unreadable: empty; the recording's readScript() says why
        }
    }

    let reports: Reports
    /// How fast.
    public let pace: Pace
    /// When the timeline starts.
    public let startPolicy: StartPolicy
    /// The faults it performs.
    public let faults: [GPSDFault]
    /// Whether the script starts again after its end, its times moved on by ``GPSDScript/loopLength``
    /// each pass (faults act in the first pass only).
    public let loops: Bool

    let clock: ElapsedClock
    let core: ServerCore

    /// Creates a server; nothing listens until ``start()``.
    ///
    /// - Parameters:
    ///   - script: the reports to serve.
    ///   - pace: recorded pace (scaled), or as fast as clients read.
    ///   - startPolicy: when the timeline starts.
    ///   - faults: misbehaviours to perform.
    ///   - loop: start the script again after its end, with its times moved on.
    ///   - port: the port to listen on; 0 (the default) picks a free one.
    ///   - clock: the clock for pacing, stalls and restarts; a `TestClock` makes it deterministic.
    public convenience init(
        script: GPSDScript,
        pace: Pace = .recorded(speed: 1),
        startPolicy: StartPolicy = .onFirstWatch,
        faults: [GPSDFault] = [],
        loop: Bool = false,
        port: UInt16 = 0,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            reports: .script(script), devices: script.devices, pace: pace, startPolicy: startPolicy, faults: faults,
            loop: loop, port: port, clock: clock)
    }

    /// Creates a server of `recording`, read as it plays: a file of any length is served in
    /// constant memory, and the server listens at once. The devices announced are those of the
    /// recording's first report; others join the list as they appear. If the recording cannot be
    /// read to its end, the timeline stops there and ``readError`` says why.
    public convenience init(
        recording: ReplayRecording,
        pace: Pace = .recorded(speed: 1),
        startPolicy: StartPolicy = .onFirstWatch,
        faults: [GPSDFault] = [],
        loop: Bool = false,
        port: UInt16 = 0,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        let open: @Sendable () throws(ReplayRecording.ReadError) -> any ReplayStream<GPSDScript.Entry> = {
            try recording.scriptStream()
        }
        let first = (try? open().next())?.device  // unreadable: no device; the timeline then fails with readError
        self.init(
            reports: .stream(open), devices: first.map { [$0] } ?? [], pace: pace, startPolicy: startPolicy,
            faults: faults, loop: loop, port: port, clock: clock)
    }

    init(
        reports: Reports, devices: [String], pace: Pace, startPolicy: StartPolicy, faults: [GPSDFault], loop: Bool,
        port: UInt16, clock: some Clock<Duration>
    ) {
        self.loops = loop
        if case let .recorded(speed) = pace {
            precondition(speed > 0 && speed.isFinite, "a recorded pace needs a positive speed")
        }
        self.reports = reports
        self.pace = pace
        self.startPolicy = startPolicy
        self.faults = faults
        self.clock = ElapsedClock(clock)
        let rate = if case let .recorded(speed) = pace { speed } else { 1.0 }
        self.core = ServerCore(
            devices: devices, requestedPort: port, ignoresWatch: faults.contains(.ignoreWatch), clock: self.clock, timeRate: rate)
    }

    /// Why the recording could not be read to its end, if the timeline stopped for that.
    public var readError: ReplayRecording.ReadError? {
        core.readError
    }

    deinit {
        core.shutdown()
    }

    /// Starts listening and returns the port. Throws ``StartError`` when the port cannot be bound.
    @discardableResult
    public func start() throws -> UInt16 {
        let port = try core.listen()
        core.launchIOThread()
        let waitsForWatchers = startPolicy == .onFirstWatch
        // The timeline keeps time on a thread of its own: on a busy concurrency pool (the tests
        // of a whole package run beside it) a report due now must not wait seconds for a thread.
        let executor = DedicatedThreadExecutor()
        let timeline = Task(executorPreference: executor) { [core, reports, pace, faults, loops, clock] in
            await Self.runTimeline(
                core: core, reports: reports, pace: pace, faults: faults, loop: loops, waitsForWatchers: waitsForWatchers,
                clock: clock)
            executor.finish()
        }
        core.adoptTimeline(timeline)
        if startPolicy == .immediately { play() }
        return port
    }

    /// The port it listens on (0 before ``start()``).
    public var port: UInt16 {
        core.boundPort
    }

    /// Starts the timeline now (for ``StartPolicy/manually``; harmless otherwise).
    public func play() {
        core.play()
    }

    /// Closes every connection and stops listening and playing. The server cannot be started again.
    public func shutdown() {
        core.shutdown()
    }

    /// Restarts like a gpsd being restarted: every connection is closed and the port stops
    /// listening; after `downtime` on the server's clock it listens on the same port again.
    /// The timeline carries on.
    public func restart(downtime: Duration = .zero) async throws {
        await core.goDown()
        if downtime > .zero {
            try await clock.sleep(for: downtime)
        }
        // The port may be held for a moment by a client's own socket: a connection attempt to a
        // port in the ephemeral range can be given that very port as its source, and connect to
        // itself. Real gpsd would fail to restart then; a fake used in tests tries for a second.
        var attempts = 0
        while true {
            do {
                try core.relisten()
                return
            } catch let error as StartError where error.addressInUse && attempts < 50 {
                attempts += 1
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// What the server is doing now.
    public var status: Status {
        core.status
    }

    /// Returns once `condition` holds for the server's status (or the server shuts down, or the
    /// task is cancelled). Use it instead of sleeping in tests.
    public func waitUntil(_ condition: @escaping @Sendable (Status) -> Bool) async {
        await core.waitUntil(condition)
    }

    /// Returns once at least `count` clients are watching.
    public func waitForWatchers(_ count: Int = 1) async {
        await waitUntil { $0.watchers >= count }
    }

    /// Returns once the whole script has been sent and written out to the clients.
    public func waitUntilFinished() async {
        await waitUntil { $0.isFinished && $0.isFlushed }
    }
}
