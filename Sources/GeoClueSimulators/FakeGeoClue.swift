#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import GeoClue
import GPSCore
import LocationCore

/// A fake GeoClue on a bus of your own: the `org.freedesktop.GeoClue2` service, its manager, its
/// clients and their locations, with positions from any `LocationSource` (a replay of a GPX,
/// gpsd JSON or NMEA recording on a virtual clock, a `FakeLocationSource`). It can refuse, vanish
/// and come back, for tests of code that uses GeoClue, without GeoClue or a system bus.
///
/// ```swift
/// let bus = try await PrivateBus()
/// let clock = VirtualClock()
/// let fake = try await FakeGeoClue(bus: bus.address, source: try ReplayRecording(contentsOf: walk).device(clock: clock))
/// let agent = try await GeoClueAgent(bus: .address(bus.address))
/// let manager = LocationManager(source: GeoClueLocationSource(desktopID: "org.example.App", bus: .address(bus.address)))
/// ```
///
/// It behaves as Debian's GeoClue 2.6 was measured to, unless told otherwise:
/// - `GetClient` answers only once an agent has registered for the caller's user (`AddAgent` with
///   an id of ``agentWhitelist``); GeoClue reads the agent's `MaxAccuracyLevel` meanwhile.
/// - `Start` is refused ("Geolocation disabled for UID n") while that level is `none`; a program
///   is otherwise allowed without asking the agent, as GeoClue does for every program that is
///   not sandboxed. With ``Authorization/askAgentForEachApplication`` it asks the agent's
///   `AuthorizeApp` for each desktop id, as GeoClue does for Flatpak programs.
/// - Each fix becomes a new `Location` object, the client's `Location` property points to it, and
///   `LocationUpdated(old, new)` says so, once the client's distance and time thresholds allow.
///
/// Where it differs on purpose: it reports the source's accuracy as is (GeoClue blurs a location
/// to the level allowed), and says in each location's `Description` that it is simulated (which
/// `GeoClueLocationSource` reads into `Location.isSimulated`). As GeoClue, it drops the clients of
/// a program that leaves the bus, and gives a client that starts the latest location at once.
public final class FakeGeoClue: Sendable {
    /// How programs are authorized.
    public enum Authorization: Sendable, Hashable {
        /// As GeoClue 2.6 treats a program that is not sandboxed: allowed whenever the agent's
        /// `MaxAccuracyLevel` is above `none`.
        case asGeoClue
        /// As GeoClue treats a sandboxed program: the agent's `AuthorizeApp` decides, by desktop id.
        case askAgentForEachApplication
    }

    /// The agent ids GeoClue takes (Debian's `[agent] whitelist`).
    public static let defaultAgentWhitelist: Set<String> = [
        "geoclue-demo-agent", "gnome-shell", "io.elementary.desktop.agent-geoclue2", "sm.puri.Phosh", "lipstick",
    ]

    /// The bus it is on.
    public let busAddress: String
    /// The agent ids it takes.
    public let agentWhitelist: Set<String>
    /// How it authorizes programs.
    public let authorization: Authorization
    let source: any LocationSource
    let core: ObservedState<FakeGeoClueState>
    let fixes: AsyncStream<Location>.Continuation
    private let publisher: Task<Void, Never>
    private let observation: LocationObservation

    /// Starts the service on the bus at `bus` (a `PrivateBus`'s address), fed by `source`, and
    /// returns once it owns its name.
    ///
    /// - Throws: `DBusError` when the bus cannot be reached or the name is taken.
    public init(
        bus: String, source: any LocationSource, authorization: Authorization = .asGeoClue,
        agentWhitelist: Set<String> = FakeGeoClue.defaultAgentWhitelist
    ) async throws {
        busAddress = bus
        self.source = source
        self.authorization = authorization
        self.agentWhitelist = agentWhitelist
        let core = ObservedState(FakeGeoClueState())
        self.core = core
        // One task publishes the fixes, in the order the source gave them.
        let (stream, continuation) = AsyncStream.makeStream(of: Location.self)
        fixes = continuation
        observation = source.addObserver { event in
            if case let .location(fix) = event { continuation.yield(fix) }
        }
        publisher = Task {
            for await fix in stream { await FakeGeoClueService.publish(fix, core: core) }
        }
        try await comeBack()
    }

    deinit {
        publisher.cancel()
        fixes.finish()
        observation.cancel()
        source.stop()
        core.withLock { $0.service }?.close()
    }

    /// Takes the service off the bus, as GeoClue exiting does: its name goes, and its clients with it.
    public func vanish() {
        let service = core.withLock { state in
            defer {
                state.service = nil
                state.clients = [:]
                state.agents = [:]
                state.sourceStarted = false
                state.nextClient = 1
                state.run += 1
            }
            return state.service
        }
        // Calls still waiting for an agent go with the service that took them.
        let waiting = core.withLock { state in
            defer { state.waitingForAgent = [] }
            return state.waitingForAgent.map(\.continuation)
        }
        for waiter in waiting { waiter.resume() }
        service?.close()
        source.stop()
    }

    /// Puts the service (back) on the bus, as GeoClue starting does: no clients, no agents yet.
    public func comeBack() async throws {
        let service = try await FakeGeoClueService(fake: self)
        core.withLock { $0.service = service }
    }

    /// Takes the service off the bus for good.
    public func stop() {
        vanish()
    }

    /// How many clients it has now (a program that leaves the bus takes its own).
    public var clientCount: Int {
        core.withLock { $0.clients.count }
    }

    /// How many clients it has made since it (last) came on the bus, gone ones included.
    public var clientsMade: Int {
        core.withLock { $0.nextClient - 1 }
    }

    /// How many clients are started.
    public var activeClientCount: Int {
        core.withLock { $0.clients.values.filter(\.active).count }
    }

    /// Returns once it has `count` clients (at once if it has), or when the task is cancelled:
    /// for a test, the event it waits for, where it polled ``clientCount``.
    package func waitUntil(clients count: Int) async {
        await core.waitUntil { $0.clients.count == count }
    }

    /// Returns once at least `count` of its clients are started (at once if they are), or when
    /// the task is cancelled: for a test, where it polled ``activeClientCount``.
    package func waitUntil(activeClients count: Int) async {
        await core.waitUntil { state in state.clients.values.count(where: \.active) >= count }
    }

    /// The fixes published so far (each a `LocationUpdated`).
    public var publishedFixes: Int {
        core.withLock { $0.published }
    }
}

/// What the fake knows, behind one lock: its connection, clients and agents.
struct FakeGeoClueState: Sendable {
    struct Client: Sendable {
        var path: String
        var owner: String
        var exported: DBusExportedInterface
        var active = false
        var nextLocation = 0
        var locationPath: String?
        var lastPublished: Location?
        var lastPublishedAt: Date?
        /// The serial of the newest fix sent to it (``FakeGeoClueState/latestFix``'s).
        var lastSerial = 0
        /// Its newest location objects, newest first.
        var locations: [DBusExportedInterface] = []
    }

    struct Agent: Sendable {
        var name: String
        var maximumAccuracy: UInt32
    }

    var service: FakeGeoClueService?
    var clients: [String: Client] = [:]
    var nextClient = 1
    /// The registered agents, by user id.
    var agents: [UInt32: Agent] = [:]
    /// `GetClient` calls waiting for an agent of their user.
    var waitingForAgent: [(uid: UInt32, continuation: CheckedContinuation<Void, Never>)] = []
    var published = 0
    var sourceStarted = false
    /// The source's latest fix, which a client that starts gets at once, as from GeoClue, with its
    /// serial: the source's fixes are numbered from 1 as they come.
    var latestFix: (fix: Location, serial: Int)?
    /// Counts the runs on the bus (each ``FakeGeoClue/vanish()`` ends one).
    var run = 0
}
