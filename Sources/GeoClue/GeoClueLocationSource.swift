#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import GPSCore
import LocationCore
import Logging

/// Positions from GeoClue, the location service of Linux phones and desktops, over D-Bus: a
/// `LocationSource` for a `LocationManager`, as `GPSDClient` is for gpsd.
///
/// ```swift
/// let source = GeoClueLocationSource(desktopID: "org.example.BikeComputer")
/// let manager = LocationManager(source: source)
/// let fix = try await manager.requestLocation(timeout: .seconds(30))
/// ```
///
/// GeoClue merges what the machine has (a modem's GPS through ModemManager, an NMEA source,
/// Wi-Fi, a static location) and asks the user's agent (the desktop's or phone's shell: Phosh,
/// GNOME Shell) whether a program may know where it is. Two things a program must get right:
/// - **The desktop id** is how GeoClue (and the agent) knows the program: the name of its
///   `.desktop` file without the extension. GeoClue's configuration
///   (`/etc/geoclue/geoclue.conf`) can allow or refuse a desktop id outright.
/// - **An agent** must be running for the user: GeoClue gives no location to anyone until one
///   has registered. A desktop or phone session has one; a headless machine (a bike computer on a
///   Raspberry Pi) can run `GeoClueAgent` from the `GeoClueSimulators` module, or geoclue's own
///   demo agent. Until then, requests wait, and the source reports
///   `LocationError.awaitingAuthorization(service:reason:)`.
///
/// It goes through the process's one connection to the bus (`DBusConnection.shared(_:)`), which
/// every source and Bluetooth sensor of the program shares, with a GeoClue client of its own
/// (`CreateClient`, GeoClue 2.5 and later), stopped and deleted when the source stops.
///
/// What it reports:
/// - every `LocationUpdated` of its GeoClue client as a `LocationEvent.location(_:)`;
/// - `LocationError.serviceUnavailable(service:bus:reason:)` when there is no bus or no
///   GeoClue on it (a request fails at once, as for an unreachable gpsd);
/// - `LocationError.notAuthorized(service:reason:)` when GeoClue or the agent refuses (final,
///   like CoreLocation's `denied`: the source stops);
/// - `LocationError.serviceLost(service:reason:)` when GeoClue goes away, and connects again,
///   with backoff, when it is back.
public final class GeoClueLocationSource: LocationSource {
    /// What to ask GeoClue for, and how to reconnect.
    public struct Configuration: Sendable, Hashable {
        /// The program's desktop id (its `.desktop` file's name without the extension), by which
        /// GeoClue and the agent authorize it.
        public var desktopID: String
        /// The accuracy asked for.
        public var accuracyLevel: GeoClueAccuracyLevel
        /// Report a new position only once it is this many metres from the last (0: any).
        public var distanceThreshold: UInt32
        /// Report a new position only once this many seconds have passed since the last (0: any).
        public var timeThreshold: UInt32
        /// The bus GeoClue is on: the system bus by default.
        public var bus: DBusConnection.Address
        /// The wait before the first reconnect; it doubles with each failure.
        public var reconnectDelay: Duration
        /// The longest wait between reconnects.
        public var maximumReconnectDelay: Duration
        /// How long GeoClue may hold a request before the source says it is waiting for
        /// authorization (for an agent to register).
        public var authorizationNotice: Duration

        /// A configuration for the program `desktopID` asking for `accuracyLevel`.
        public init(
            desktopID: String, accuracyLevel: GeoClueAccuracyLevel = .exact, distanceThreshold: UInt32 = 0, timeThreshold: UInt32 = 0,
            bus: DBusConnection.Address = .system, reconnectDelay: Duration = .milliseconds(250),
            maximumReconnectDelay: Duration = .seconds(20), authorizationNotice: Duration = .seconds(2)
        ) {
            self.desktopID = desktopID
            self.accuracyLevel = accuracyLevel
            self.distanceThreshold = distanceThreshold
            self.timeThreshold = timeThreshold
            self.bus = bus
            self.reconnectDelay = reconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
            self.authorizationNotice = authorizationNotice
        }
    }

    /// What it asks GeoClue for.
    public var configuration: Configuration { runner.configuration }
    private let runner: GeoClueRunner

    /// A source for the program `desktopID` on `bus`, asking for `accuracyLevel`; the waits
    /// between reconnects and before saying that GeoClue awaits authorization are timed on
    /// `clock`. Nothing happens until ``start()``.
    public convenience init(
        desktopID: String, accuracyLevel: GeoClueAccuracyLevel = .exact, bus: DBusConnection.Address = .system,
        clock: some Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "GeoClue.GeoClueLocationSource")
    ) {
        self.init(configuration: Configuration(desktopID: desktopID, accuracyLevel: accuracyLevel, bus: bus), clock: clock, logger: logger)
    }

    /// A source for the program `desktopID` asking for the accuracy level that serves a
    /// request's `desiredAccuracy` of `metres` (see ``GeoClueAccuracyLevel/init(forAccuracy:)``).
    public convenience init(
        desktopID: String, desiredAccuracy metres: Double, bus: DBusConnection.Address = .system,
        clock: some Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "GeoClue.GeoClueLocationSource")
    ) {
        self.init(desktopID: desktopID, accuracyLevel: GeoClueAccuracyLevel(forAccuracy: metres), bus: bus, clock: clock, logger: logger)
    }

    /// A source as `configuration` says. Nothing happens until ``start()``.
    public init(
        configuration: Configuration, clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "GeoClue.GeoClueLocationSource")
    ) {
        var logger = logger
        logger[metadataKey: "geoclue.desktop_id"] = "\(configuration.desktopID)"
        runner = GeoClueRunner(configuration: configuration, clock: ElapsedClock(clock), logger: logger)
    }

    deinit {
        runner.stop()
    }

    /// Where the connection to GeoClue stands.
    public var connectionState: ConnectionState {
        runner.connectionState
    }

    /// Registers `handler` for every event from now on (fixes, connection changes, errors), one
    /// at a time and in order, until the returned observation is cancelled or released.
    public func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
        runner.observers.add(handler)
    }

    /// Asks GeoClue for a client of its own and starts it, in a task of its own.
    /// Returns at once; calling it while started does nothing.
    public func start() {
        runner.start()
    }

    /// Stops the client, disconnects and stops reconnecting. Returns at once; observers then hear
    /// `ConnectionState.stopped`. At most an event already being delivered still arrives after it.
    public func stop() {
        runner.stop()
    }

    /// Asks GeoClue for the location its client holds (the client's `Location` property). The
    /// answer arrives as `LocationEvent.cachedLocation(_:age:)`, its age from the fix's
    /// `Timestamp`; there is none before GeoClue has a position. Asked before the client is
    /// started, it is asked once it is.
    public func requestLatestFix() {
        runner.requestLatestFix()
    }

    /// Returns once the task of the last run has ended (after ``stop()``, or a refusal) and its
    /// events have reached the observers: for tests that check what a stopped source no longer does.
    package func waitUntilIdle() async {
        await runner.waitUntilIdle()
    }
}

/// The state and the task behind a ``GeoClueLocationSource``. The task holds this, not the
/// source, so a source let go without `stop()` stops (its `deinit` does it).
final class GeoClueRunner: Sendable {
    let configuration: GeoClueLocationSource.Configuration
    let clock: ElapsedClock
    let logger: Logger
    let observers = LocationObservers()
    /// Every event goes through here, in the order it was let through, to one task that sends
    /// them to the observers: events come from several tasks (the session, a poll, the
    /// authorization notice, `stop()`), and observers hear them one at a time, in that order.
    private let events: AsyncStream<Delivery>.Continuation
    private let sender: Task<Void, Never>

    private enum Delivery: Sendable {
        case event(LocationEvent)
        /// Resumed once everything before it has been sent.
        case barrier(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var generation: UInt64 = 0
        var task: Task<Void, Never>?
        /// The task of the last run, once stopped, for `waitUntilIdle()`.
        var lastTask: Task<Void, Never>?
        var connection: ConnectionState = .stopped
        /// The started client, for `requestLatestFix()`.
        var client: DBusProxy?
        /// A `requestLatestFix()` asked before the client was started.
        var pollPending = false
    }

    private let state = Locked(State())

    init(configuration: GeoClueLocationSource.Configuration, clock: ElapsedClock, logger: Logger) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        let (stream, continuation) = AsyncStream.makeStream(of: Delivery.self)
        events = continuation
        sender = Task { [observers] in
            for await delivery in stream {
                switch delivery {
                case let .event(event): observers.send(event)
                case let .barrier(continuation): continuation.resume()
                }
            }
        }
    }

    deinit {
        events.finish()
    }

    var connectionState: ConnectionState {
        state.withLock { $0.connection }
    }

    func start() {
        state.withLock { state in
            guard state.task == nil else { return }
            state.generation += 1
            let generation = state.generation
            state.task = Task { [self] in await run(generation: generation) }
        }
    }

    func stop() {
        let task: Task<Void, Never>? = state.withLock { state in
            defer {
                state.lastTask = state.task ?? state.lastTask
                state.task = nil
                state.client = nil
                state.pollPending = false
                state.generation += 1
            }
            return state.task
        }
        guard let task else { return }
        task.cancel()
        deliver(.connectionChanged(.stopped), generation: nil)
    }

    func requestLatestFix() {
        let client: DBusProxy? = state.withLock { state in
            if state.client == nil, state.task != nil { state.pollPending = true }
            return state.client
        }
        guard let client else { return }
        let generation = state.withLock { $0.generation }
        Task { [self] in await poll(client, generation: generation) }
    }

    /// Sends `event` to the observers, unless it comes from a run that has been stopped
    /// (`generation` is `nil` for `stop()`'s own `.stopped`). Let through under the lock that
    /// stopping takes, so nothing a stopped run says follows its `.stopped`.
    func deliver(_ event: LocationEvent, generation: UInt64?) {
        state.withLock { state in
            if let generation, generation != state.generation { return }
            if case let .connectionChanged(connection) = event { state.connection = connection }
            events.yield(.event(event))
        }
    }

    /// Waits until every event let through so far has been sent to the observers.
    func waitUntilDelivered() async {
        await withCheckedContinuation { continuation in
            if case .terminated = events.yield(.barrier(continuation)) { continuation.resume() }
        }
    }

    /// Keeps the client of the run `generation` for `requestLatestFix()`, and answers a request
    /// made while it was starting; `nil` forgets it.
    func adopt(_ client: DBusProxy?, generation: UInt64) {
        let pollNow = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.client = client
            defer { state.pollPending = false }
            return client != nil && state.pollPending
        }
        if pollNow, let client { Task { [self] in await poll(client, generation: generation) } }
    }

    func waitUntilIdle() async {
        let task = state.withLock { $0.task ?? $0.lastTask }
        await task?.value
        await waitUntilDelivered()
    }

    /// Ends the run `generation` by itself (GeoClue refused): the source is stopped, as if by `stop()`.
    func endRun(generation: UInt64) {
        let ended = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.lastTask = state.task
            state.task = nil
            state.client = nil
            state.generation += 1
            return true
        }
        if ended { deliver(.connectionChanged(.stopped), generation: nil) }
    }

    /// Reads the client's `Location` and reports it as the cached fix.
    private func poll(_ client: DBusProxy, generation: UInt64) async {
        do {
            let path = try await client.property("Location", as: String.self)
            guard path != "/" else { return }
            let properties = try await client.connection.properties(
                GeoClueLocationProperties.self, of: GeoClueNames.location, at: path, on: client.destination)
            guard let fix = Location(geoClue: properties) else { return }
            // The fix's own time says how old it is; GeoClue keeps its latest location for as long
            // as it runs. A fix dated in the future (a clock set wrong) counts as new.
            let age = fix.time.map { max(0, Date().timeIntervalSince($0)) } ?? 0
            deliver(.cachedLocation(fix, age: .milliseconds(Int64(age * 1000))), generation: generation)
        } catch {
            logger.debug("GeoClue's latest location could not be read", metadata: ["error": "\(error)"])
        }
    }
}
