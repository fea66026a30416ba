import DBus
import GPSCore
import Logging

/// A GeoClue agent: the part of a desktop's or phone's shell (GNOME Shell, Phosh) that GeoClue
/// asks whether a program may know where the user is. GeoClue gives no location to anyone until an
/// agent has registered for the user.
///
/// A desktop or phone session runs its own. This one is for the machines that have none: a bike
/// computer on a Raspberry Pi, a boat's navigation box, a test. It registers under an id that
/// GeoClue's configuration allows (`[agent] whitelist=` in `/etc/geoclue/geoclue.conf`; Debian
/// allows `geoclue-demo-agent`), says how exact a location the user allows at most, and answers
/// GeoClue's questions about programs by their desktop ids.
///
/// ```swift
/// let agent = try await GeoClueAgent(allowing: ["org.example.BikeComputer"])
/// defer { agent.stop() }
/// let source = GeoClueLocationSource(desktopID: "org.example.BikeComputer")
/// ```
///
/// GeoClue reads the agent's `MaxAccuracyLevel` while the agent's own `AddAgent` call is still
/// waiting for its answer: an agent that blocked its connection on that call could not answer, and
/// GeoClue would then refuse every program. This one's connection keeps serving while it waits.
/// When GeoClue restarts, the agent registers again.
///
/// An agent has a connection of its own, not the process's shared one: GeoClue knows an agent by
/// its connection's name, and an agent stopped leaves the bus with it.
///
/// What GeoClue 2.6 asks, and when: it calls `AuthorizeApp` only for sandboxed programs (Flatpak).
/// Any other program is a "system" one to it: it is allowed when the agent's maximum accuracy is
/// above `none`, and refused ("Geolocation disabled for UID n") when it is `none`.
public final class GeoClueAgent: Sendable {
    /// The id it registers under.
    public let id: String
    private let connection: DBusConnection
    private let exported: DBusExportedInterface
    private let watcher: Task<Void, Never>
    private let state: Locked<State>

    private struct State {
        var registrations = 0
        var failure: DBusError?
        /// Set once the agent is stopped or its connection has ended: waiting ends with `false`.
        var ended = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: (count: Int, continuation: CheckedContinuation<Bool, Never>)] = [:]
    }

    /// How the agent answers `AuthorizeApp`: the accuracy allowed to the program `desktopID` that
    /// asked for `requested`, or `nil` to refuse it.
    public typealias Decision = @Sendable (_ desktopID: String, _ requested: GeoClueAccuracyLevel) -> GeoClueAccuracyLevel?

    /// Puts an agent on `bus` and registers it with GeoClue (now, and each time GeoClue comes
    /// back), allowing at most `maximumAccuracy`, and answering for each program by `decide`.
    ///
    /// - Throws: `DBusError` when there is no bus.
    public init(
        bus: DBusConnection.Address = .system, id: String = "geoclue-demo-agent", maximumAccuracy: GeoClueAccuracyLevel = .exact,
        decide: @escaping Decision = { _, requested in requested }, logger: Logger = Logger(label: "GeoClue.GeoClueAgent")
    ) async throws {
        self.id = id
        let connection = try DBusConnection(bus)
        let state = Locked(State())
        var agent = DBusInterface(GeoClueNames.agent)
        agent.addProperty("MaxAccuracyLevel", .uint32(maximumAccuracy.rawValue))
        agent.addMethod("AuthorizeApp", input: "su", output: "bu") { call in
            // sd-bus has checked the signature (su) before the handler runs.
            let question = try DBusValue.decode(AuthorizeApp.self, from: call.arguments)
            let (desktopID, requested) = (question.desktopID, GeoClueAccuracyLevel(rawValue: question.requested) ?? .exact)
            let allowed = decide(desktopID, requested)
            logger.debug("GeoClue asked about a program", metadata: ["desktop_id": "\(desktopID)", "allowed": "\(allowed.map(String.init(describing:)) ?? "no")"])
            return [.boolean(allowed != nil && allowed != GeoClueAccuracyLevel.none), .uint32(allowed?.rawValue ?? 0)]
        }
        do {
            exported = try await connection.export(agent, at: GeoClueNames.agentPath)
        } catch {
            connection.close()
            throw error
        }
        self.connection = connection
        self.state = state
        // Register whenever GeoClue has an owner: now if it runs, and again after each restart.
        let owners = try await connection.nameOwners(of: GeoClueNames.service)
        watcher = Task {
            defer { Self.end(state) }  // the connection ended (or the agent stopped)
            for await owner in owners where owner != nil {
                do {
                    _ = try await connection.call(
                        GeoClueNames.service, path: GeoClueNames.managerPath, interface: GeoClueNames.manager, member: "AddAgent", [.string(id)])
                    Self.registered(state)
                } catch let error as DBusError {
                    logger.warning("GeoClue did not take the agent", metadata: ["error": "\(error)"])
                    state.withLock { $0.failure = error }
                } catch {
                    return
                }
            }
        }
    }

    /// A convenience agent that allows exactly the programs in `desktopIDs` (with GeoClue 2.6, every
    /// program that is not sandboxed is allowed anyway while `maximumAccuracy` is above `none`).
    public convenience init(
        allowing desktopIDs: Set<String>, bus: DBusConnection.Address = .system, id: String = "geoclue-demo-agent",
        maximumAccuracy: GeoClueAccuracyLevel = .exact
    ) async throws {
        try await self.init(bus: bus, id: id, maximumAccuracy: maximumAccuracy) { desktopID, requested in
            desktopIDs.contains(desktopID) ? min(requested, maximumAccuracy) : nil
        }
    }

    deinit {
        watcher.cancel()
        connection.close()
    }

    /// How many times GeoClue has taken the agent (once per GeoClue run).
    public var registrations: Int {
        state.withLock { $0.registrations }
    }

    /// Why GeoClue last refused to take the agent (an id it does not allow), if it did.
    public var registrationError: DBusError? {
        state.withLock { $0.failure }
    }

    /// Returns `true` once GeoClue has taken the agent `count` times in all, `false` if the agent
    /// stops first or the task is cancelled.
    public func waitUntilRegistered(times count: Int = 1) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Bool? = state.withLock { state in
                    if state.registrations >= count { return true }
                    if state.ended || Task.isCancelled { return false }
                    state.waiters[id] = (count, continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
        }
    }

    /// The most exact location the user allows; GeoClue hears of a change at once.
    public var maximumAccuracy: GeoClueAccuracyLevel {
        get { (try? exported.value(of: "MaxAccuracyLevel")?.decode(UInt32.self)).flatMap { GeoClueAccuracyLevel(rawValue: $0) } ?? .none }  // ours: always a UInt32
        set { try? exported.setValue(.uint32(newValue.rawValue), for: "MaxAccuracyLevel") }  // a declared UInt32: cannot fail
    }

    /// Takes the agent off the bus.
    public func stop() {
        watcher.cancel()
        connection.close()
        Self.end(state)
    }

    /// Ends every wait with `false`, and any to come.
    private static func end(_ state: Locked<State>) {
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }

    private static func registered(_ state: Locked<State>) {
        let ready = state.withLock { state in
            state.registrations += 1
            state.failure = nil
            let registrations = state.registrations
            let ready = state.waiters.filter { $0.value.count <= registrations }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume(returning: true) }
    }
}

/// The arguments of the agent's `AuthorizeApp` (`su`): the program's desktop id and the accuracy
/// it asks for.
private struct AuthorizeApp: DBusDecodable {
    var desktopID: String
    var requested: UInt32

    init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        desktopID = try decoder.decode()
        requested = try decoder.decode()
    }
}
