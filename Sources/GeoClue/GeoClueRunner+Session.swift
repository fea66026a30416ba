#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import DBus
import GPSCore
import LocationCore

/// A run of a ``GeoClueLocationSource``: sessions with GeoClue, one after the other, with backoff
/// between them, until the source is stopped or GeoClue refuses it.
extension GeoClueRunner {
    /// How a session ended.
    enum Outcome: Sendable {
        /// The source was stopped.
        case cancelled
        /// GeoClue or its agent refused the program: the run ends.
        case refused(LocationError)
        /// The bus or GeoClue could not be reached, or went away; `connected` when the session
        /// had started its client first.
        case failed(LocationError, connected: Bool)
    }

    func run(generation: UInt64) async {
        var attempt = 0
        var delay = configuration.reconnectDelay
        while !Task.isCancelled {
            attempt += 1
            deliver(.connectionChanged(.connecting(attempt: attempt)), generation: generation)
            let outcome = await session(generation: generation)
            adopt(nil, generation: generation)
            switch outcome {
            case .cancelled:
                return
            case let .refused(error):
                logger.info("GeoClue refused this program", metadata: ["error": "\(error)"])
                deliver(.error(error), generation: generation)
                endRun(generation: generation)
                return
            case let .failed(error, connected):
                guard !Task.isCancelled else { return }
                logger.debug("GeoClue session ended", metadata: ["error": "\(error)"])
                deliver(.error(error), generation: generation)
                if connected {
                    attempt = 0
                    delay = configuration.reconnectDelay
                }
            }
            // The wait counts from the announcement, so that a clock moved as soon as it comes is
            // not lost to a sleep that had not begun yet (as a Bluetooth sensor's).
            let deadline = clock.now + delay
            deliver(.connectionChanged(.waitingToReconnect(after: delay, attempt: max(attempt, 1))), generation: generation)
            guard (try? await clock.sleep(until: deadline)) != nil else { return }  // cancelled: the session ends
            delay = min(delay * 2, configuration.maximumReconnectDelay)
        }
    }

    /// One GeoClue client on the process's shared connection to the bus, from `CreateClient` to
    /// the end: GeoClue leaving the bus, the bus closing, a refusal, or the task's cancellation.
    /// The client is then stopped and deleted: the connection outlives it.
    private func session(generation: UInt64) async -> Outcome {
        let bus: DBusConnection
        do {
            bus = try DBusConnection.shared(configuration.bus)
        } catch {
            return .failed(.serviceUnavailable(service: GeoClueNames.serviceDescription, bus: error.bus, reason: error.message), connected: false)
        }
        let started = Locked(false)
        let made = Locked<MadeClient?>(nil)
        let outcome = await session(on: bus, generation: generation, started: started, made: made)
        // In a task of its own, as this one may be cancelled (which would cancel the calls at once).
        if let client = made.withLock({ $0 }) {
            let wasStarted = started.withLock { $0 }
            await Task { await client.delete(on: bus, wasStarted: wasStarted) }.value
        }
        bus.close()
        return outcome
    }

    /// A client this session made: its path, and the GeoClue (by unique name) that made it.
    struct MadeClient: Sendable {
        var path: String
        var owner: String

        /// Stops (if it was started) and deletes the client, with the GeoClue that made it: a
        /// GeoClue gone (or restarted) has no such client, and the bus says so at once.
        func delete(on bus: DBusConnection, wasStarted: Bool) async {
            if wasStarted {
                _ = try? await bus.call(owner, path: path, interface: GeoClueNames.client, member: "Stop", timeout: .seconds(2))  // best effort, as said above
            }
            _ = try? await bus.call(  // best effort, as said above
                owner, path: GeoClueNames.managerPath, interface: GeoClueNames.manager, member: "DeleteClient", [.objectPath(path)],
                timeout: .seconds(2))
        }
    }

    private func session(on bus: DBusConnection, generation: UInt64, started: Locked<Bool>, made: Locked<MadeClient?>) async -> Outcome {
        do {
            // Who owns GeoClue's name, from before the client is made: the owner that made it
            // leaving (GeoClue exiting or restarting) ends the session.
            let owners = try await bus.nameOwners(of: GeoClueNames.service)
            let clientOwner = Locked<String?>(nil)
            return try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    for await owner in owners {
                        guard let expected = clientOwner.withLock({ $0 }), owner != expected else { continue }
                        return .failed(
                            .serviceLost(
                                service: GeoClueNames.serviceDescription,
                                reason: owner == nil ? "it left the bus" : "it restarted (now \(owner!))"),
                            connected: true)
                    }
                    return .failed(
                        .serviceLost(service: GeoClueNames.serviceDescription, reason: bus.isClosed ? "the bus closed the connection" : "the bus stopped telling who owns it"),
                        connected: started.withLock { $0 })
                }
                group.addTask {
                    try await self.follow(on: bus, generation: generation, owner: clientOwner, started: started, made: made)
                }
                let outcome = try await group.next()!
                group.cancelAll()
                return outcome
            }
        } catch is CancellationError {
            return .cancelled
        } catch let refusal as Refusal {
            let error = refusal.error
            return .refused(.notAuthorized(service: GeoClueNames.serviceDescription, reason: error.message.isEmpty ? error.name.rawValue : error.message))
        } catch let error as DBusError {
            return outcome(of: error, started: started.withLock { $0 })
        } catch {
            return .failed(.serviceLost(service: GeoClueNames.serviceDescription, reason: "\(error)"), connected: started.withLock { $0 })
        }
    }

    /// Makes and starts a client, then reports each of its locations until the connection ends.
    private func follow(
        on bus: DBusConnection, generation: UInt64, owner: Locked<String?>, started: Locked<Bool>, made: Locked<MadeClient?>
    ) async throws -> Outcome {
        let manager = DBusProxy(bus, destination: GeoClueNames.service, path: GeoClueNames.managerPath, interface: GeoClueNames.manager)
        // GeoClue answers CreateClient only once an agent for this user has registered: no timeout
        // of our own (the caller's request has one), but say why it waits. A client of its own
        // (CreateClient, not GetClient, which gives one client per connection): the connection is
        // the process's, shared with the other sources.
        let before = try await bus.nameOwner(of: GeoClueNames.service)
        let path = try await refusable {
            try await awaitingAuthorization(generation: generation, "GeoClue holds CreateClient until an agent for this user (uid \(getuid())) registers") {
                try await manager.call("CreateClient", returning: String.self, timeout: nil)
            }
        }
        // The client is the GeoClue that answered: one that restarted meanwhile has other clients.
        let current = try await bus.nameOwner(of: GeoClueNames.service)
        if let current, before == nil || before == current { made.withLock { $0 = MadeClient(path: path, owner: current) } }
        guard current != nil, before == nil || before == current else {
            return .failed(.serviceLost(service: GeoClueNames.serviceDescription, reason: "it restarted while making the client"), connected: false)
        }
        owner.withLock { $0 = current }
        let client = DBusProxy(bus, destination: GeoClueNames.service, path: path, interface: GeoClueNames.client)
        try await client.setProperty("DesktopId", to: .string(configuration.desktopID))
        try await client.setProperty("RequestedAccuracyLevel", to: .uint32(configuration.accuracyLevel.rawValue))
        try await client.setProperty("DistanceThreshold", to: .uint32(configuration.distanceThreshold))
        try await client.setProperty("TimeThreshold", to: .uint32(configuration.timeThreshold))
        let updates = try await client.signals("LocationUpdated", as: LocationUpdated.self)
        try await refusable {
            try await awaitingAuthorization(generation: generation, "GeoClue holds Start until the agent answers for \(configuration.desktopID)") {
                _ = try await client.call("Start", timeout: nil)
            }
        }
        started.withLock { $0 = true }
        deliver(.connectionChanged(.connected), generation: generation)
        deliver(.connectionChanged(.watching), generation: generation)
        adopt(client, generation: generation)
        for await update in updates {
            let path = update.arguments.new
            guard path != "/" else { continue }
            let properties: GeoClueLocationProperties
            do {
                properties = try await bus.properties(GeoClueLocationProperties.self, of: GeoClueNames.location, at: path, on: GeoClueNames.service)
            } catch let error as DBusError where [.unknownObject, .unknownInterface, .unknownMethod].contains(error.name) {
                // GeoClue keeps a client's latest two locations: updates that came faster than we
                // read them are gone, and a later update has the newer position.
                logger.debug("a GeoClue location went before it was read", metadata: ["path": "\(path)"])
                continue
            }
            if let fix = Location(geoClue: properties) {
                deliver(.location(fix), generation: generation)
            }
        }
        try Task.checkCancellation()
        return .failed(.serviceLost(service: GeoClueNames.serviceDescription, reason: "the bus closed the connection"), connected: true)
    }

    /// Runs `operation`; if it is still waiting after ``GeoClueLocationSource/Configuration/authorizationNotice``,
    /// reports `LocationError.awaitingAuthorization(service:reason:)` with `reason`.
    private func awaitingAuthorization<T: Sendable>(
        generation: UInt64, _ reason: String, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask { [self] in
                try await clock.sleep(for: configuration.authorizationNotice)
                deliver(.error(.awaitingAuthorization(service: GeoClueNames.serviceDescription, reason: reason)), generation: generation)
                return nil
            }
            while let result = try await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            throw CancellationError()
        }
    }

    /// A refusal of this program: GeoClue's answer to `GetClient` or `Start` (and only those:
    /// any other call refused is a client that is no longer ours, say after a restart).
    private struct Refusal: Error {
        var error: DBusError
    }

    /// Runs `operation`, whose access denied is GeoClue refusing this program.
    private func refusable<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as DBusError where error.name == .accessDenied {
            throw Refusal(error: error)
        }
    }

    /// What a D-Bus failure means for the session.
    private func outcome(of error: DBusError, started: Bool) -> Outcome {
        let service = GeoClueNames.serviceDescription
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner:
            return .failed(
                .serviceUnavailable(service: service, bus: error.bus, reason: "no program owns \(GeoClueNames.service) there, and the bus cannot start one"),
                connected: started)
        case .noServer:
            return .failed(.serviceUnavailable(service: service, bus: error.bus, reason: error.message), connected: started)
        default:
            return .failed(.serviceLost(service: service, reason: "\(error.subjectWithName): \(error.message)"), connected: started)
        }
    }
}

extension DBusError {
    /// "GetClient (org.freedesktop.DBus.Error.NoReply)": what failed, briefly.
    var subjectWithName: String {
        "\(member ?? "the call") (\(name))"
    }
}

/// The arguments of a GeoClue client's `LocationUpdated` (`oo`): the location before, and the new one.
struct LocationUpdated: DBusDecodable {
    var old: String
    var new: String

    init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        old = try decoder.decode()
        new = try decoder.decode()
    }
}
