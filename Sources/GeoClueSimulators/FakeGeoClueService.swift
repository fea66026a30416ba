#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import GeoClue
import GPSCore
import LocationCore

/// One run of a ``FakeGeoClue`` on the bus: its connection, its manager and its clients' objects.
/// It holds what it needs of the fake, not the fake, so that a fake let go stops.
final class FakeGeoClueService: Sendable {
    let connection: DBusConnection
    private let manager: DBusExportedInterface
    private let watcher: Task<Void, Never>?

    init(fake: FakeGeoClue) async throws {
        let connection = try DBusConnection(.address(fake.busAddress))
        let core = fake.core
        let source = fake.source
        let authorization = fake.authorization
        let whitelist = fake.agentWhitelist
        var manager = DBusInterface(GeoClueNames.manager)
        manager.addProperty("InUse", .boolean(false))
        manager.addProperty("AvailableAccuracyLevel", .uint32(GeoClueAccuracyLevel.exact.rawValue))
        manager.addMethod("AddAgent", input: "s") { call in
            let id = call.arguments[0].stringValue ?? ""
            guard whitelist.contains(id), let sender = call.sender else {
                throw DBusError(name: .accessDenied, message: "'\(id)' not allowed to act as an agent", bus: "")
            }
            let uid = try await Self.user(of: sender, on: connection)
            // GeoClue reads the agent's level before it answers AddAgent.
            let level = try await connection.property("MaxAccuracyLevel", of: GeoClueNames.agent, at: GeoClueNames.agentPath, on: sender)
            let waiting = core.withLock { state in
                state.agents[uid] = FakeGeoClueState.Agent(name: sender, maximumAccuracy: UInt32(level.intValue ?? 0))
                let waiting = state.waitingForAgent.filter { $0.uid == uid }.map(\.continuation)
                state.waitingForAgent.removeAll { $0.uid == uid }
                return waiting
            }
            for waiter in waiting { waiter.resume() }
            return []
        }
        manager.addMethod("GetClient", output: "o") { call in
            try await Self.client(for: call, reusing: true, core: core, connection: connection, source: source, authorization: authorization)
        }
        manager.addMethod("CreateClient", output: "o") { call in
            try await Self.client(for: call, reusing: false, core: core, connection: connection, source: source, authorization: authorization)
        }
        manager.addMethod("DeleteClient", input: "o") { call in
            // The client goes with its locations, as GeoClue's do.
            let path = call.arguments[0].stringValue ?? ""
            let gone = core.withLock { $0.clients.removeValue(forKey: path) }
            for object in gone.map({ [$0.exported] + $0.locations }) ?? [] { object.remove() }
            return []
        }
        do {
            self.manager = try await connection.export(manager, at: GeoClueNames.managerPath)
            // A program that leaves the bus takes its clients with it.
            let departures = try await connection.signals(matching: DBusMatchRule(
                sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"))
            watcher = Task {
                for await change in departures where change.arguments.count == 3 {
                    guard let name = change.arguments[0].stringValue, name.hasPrefix(":"), change.arguments[2].stringValue == "" else { continue }
                    let gone = core.withLock { state -> [DBusExportedInterface] in
                        let paths = state.clients.values.filter { $0.owner == name }.map(\.path)
                        return paths.compactMap { state.clients.removeValue(forKey: $0) }.flatMap { [$0.exported] + $0.locations }
                    }
                    for object in gone { object.remove() }
                }
            }
            try await connection.requestName(GeoClueNames.service)
        } catch {
            connection.close()
            throw error
        }
        self.connection = connection
    }

    deinit {
        watcher?.cancel()
    }

    func close() {
        connection.close()
    }

    /// The Unix user id of the connection `sender` (the bus's `GetConnectionUnixUser`).
    private static func user(of sender: String, on connection: DBusConnection) async throws -> UInt32 {
        let reply = try await connection.call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetConnectionUnixUser",
            [.string(sender)])
        return UInt32(reply.first?.intValue ?? 0)
    }

    /// `GetClient` (the caller's client, made once) or `CreateClient` (a new one): answered once an
    /// agent for the caller's user has registered.
    private static func client(
        for call: DBusMethodCall, reusing: Bool, core: ObservedState<FakeGeoClueState>, connection: DBusConnection, source: any LocationSource,
        authorization: FakeGeoClue.Authorization
    ) async throws -> [DBusValue] {
        let sender = call.sender ?? ""
        let uid = try await user(of: sender, on: connection)
        let run = core.withLock { $0.run }
        await withCheckedContinuation { continuation in
            let ready = core.withLock { state in
                if state.agents[uid] != nil || state.run != run { return true }
                state.waitingForAgent.append((uid, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
        guard core.withLock({ $0.run }) == run else {
            throw DBusError(name: .noReply, message: "GeoClue went away", bus: "")
        }
        if reusing, let existing = core.withLock({ state in state.clients.values.first { $0.owner == sender }?.path }) {
            return [.objectPath(existing)]
        }
        let path = core.withLock { state in
            defer { state.nextClient += 1 }
            return "/org/freedesktop/GeoClue2/Client/\(state.nextClient)"
        }
        var client = DBusInterface(GeoClueNames.client)
        client.addProperty("Location", .objectPath("/"))
        client.addWritableProperty("DistanceThreshold", .uint32(0))
        client.addWritableProperty("TimeThreshold", .uint32(0))
        client.addWritableProperty("DesktopId", .string(""))
        client.addWritableProperty("RequestedAccuracyLevel", .uint32(0))
        client.addProperty("Active", .boolean(false))
        client.addSignal("LocationUpdated", signature: "oo")
        client.addMethod("Start") { _ in
            try await start(path, uid: uid, core: core, connection: connection, source: source, authorization: authorization)
            return []
        }
        client.addMethod("Stop") { _ in
            let exported = core.withLock { state in
                state.clients[path]?.active = false
                return state.clients[path]?.exported
            }
            try? exported?.setValue(.boolean(false), for: "Active")  // a declared Boolean: cannot fail
            return []
        }
        let exported = try await connection.export(client, at: path)
        core.withLock { $0.clients[path] = FakeGeoClueState.Client(path: path, owner: sender, exported: exported) }
        return [.objectPath(path)]
    }

    /// A client's `Start`: refused when the user's agent allows nothing (or, asked, refuses the
    /// program); else the client is active, and the source runs.
    private static func start(
        _ path: String, uid: UInt32, core: ObservedState<FakeGeoClueState>, connection: DBusConnection, source: any LocationSource,
        authorization: FakeGeoClue.Authorization
    ) async throws {
        guard let (client, agent) = core.withLock({ state in state.clients[path].flatMap { client in state.agents[uid].map { (client, $0) } } }) else {
            throw DBusError(name: .accessDenied, message: "Geolocation disabled for UID \(uid)", bus: "")
        }
        let desktopID = client.exported.value(of: "DesktopId")?.stringValue ?? ""
        guard !desktopID.isEmpty else {
            throw DBusError(name: .accessDenied, message: "'DesktopId' property must be set", bus: "")
        }
        let maximum = try await connection.property("MaxAccuracyLevel", of: GeoClueNames.agent, at: GeoClueNames.agentPath, on: agent.name)
        guard (maximum.intValue ?? 0) > 0 else {
            throw DBusError(name: .accessDenied, message: "Geolocation disabled for UID \(uid)", bus: "")
        }
        if authorization == .askAgentForEachApplication {
            let requested = client.exported.value(of: "RequestedAccuracyLevel") ?? .uint32(GeoClueAccuracyLevel.exact.rawValue)
            let answer = try await connection.call(
                agent.name, path: GeoClueNames.agentPath, interface: GeoClueNames.agent, member: "AuthorizeApp", [.string(desktopID), requested])
            guard answer.first?.boolValue == true else {
                throw DBusError(name: .accessDenied, message: "'\(desktopID)' disallowed by user", bus: "")
            }
        }
        let startSource = core.withLock { state -> Bool in
            state.clients[path]?.active = true
            defer { state.sourceStarted = true }
            return !state.sourceStarted
        }
        try? client.exported.setValue(.boolean(true), for: "Active")  // a declared Boolean: cannot fail
        if startSource { source.start() }
        if let latest = core.withLock({ $0.latestFix }) { await publish(latest.fix, serial: latest.serial, core: core, only: path) }
    }

    /// Publishes `fix` to every active client whose thresholds it passes: a new `Location`
    /// object, the client's `Location` property, and `LocationUpdated(old, new)`. A new fix of the
    /// source gets the next serial; `Start` catching a client up with the latest gives its serial.
    static func publish(_ fix: Location, serial given: Int? = nil, core: ObservedState<FakeGeoClueState>, only path: String? = nil) async {
        let (connection, clients, serial) = core.withLock { state in
            var serial = given ?? 0
            if given == nil {
                serial = (state.latestFix?.serial ?? 0) + 1
                state.latestFix = (fix, serial)
            }
            return (state.service?.connection, Array(state.clients.values), serial)
        }
        guard let connection else { return }
        for client in clients where client.active && (path == nil || client.path == path) && passes(fix, client) {
            let number = core.withLock { state -> Int? in
                guard let current = state.clients[client.path] else { return nil }
                // A client is sent each fix once and never an older one after a newer, as GeoClue
                // sends them: a fix published to every client while `Start` caught this one up
                // with the latest has reached it already, or a newer one has. Claimed here, under
                // the lock that numbers its locations.
                if serial <= current.lastSerial { return nil }
                state.clients[client.path]?.lastSerial = serial
                state.clients[client.path]?.nextLocation += 1
                return current.nextLocation
            }
            guard let number else { continue }
            let path = "\(client.path)/Location/\(number)"
            guard let location = try? await connection.export(locationInterface(fix), at: path) else { continue }  // the bus closed: nobody to tell
            let old = core.withLock { state -> String? in
                guard state.clients[client.path] != nil else { return nil }
                defer {
                    state.clients[client.path]?.locationPath = path
                    state.clients[client.path]?.lastPublished = fix
                    state.clients[client.path]?.lastPublishedAt = Date()
                    state.published += 1
                }
                return state.clients[client.path]?.locationPath ?? "/"
            }
            guard let old else {
                location.remove()
                continue
            }
            try? client.exported.setValue(.objectPath(path), for: "Location")  // a declared object path: cannot fail
            try? client.exported.emit("LocationUpdated", [.objectPath(old), .objectPath(path)])  // declared; a closed bus has nobody to tell
            // The one before the old one goes: a client reading the old one still finds it.
            let gone = core.withLock { state -> DBusExportedInterface? in
                state.clients[client.path]?.locations.insert(location, at: 0)
                guard let count = state.clients[client.path]?.locations.count, count > 2 else { return nil }
                return state.clients[client.path]?.locations.removeLast()
            }
            gone?.remove()
        }
    }

    private static func passes(_ fix: Location, _ client: FakeGeoClueState.Client) -> Bool {
        guard let last = client.lastPublished else { return true }
        let distance = client.exported.value(of: "DistanceThreshold")?.doubleValue ?? 0
        let seconds = client.exported.value(of: "TimeThreshold")?.doubleValue ?? 0
        if distance > 0, fix.distance(to: last) < distance { return false }
        if seconds > 0, let time = fix.time, let before = last.time, time.timeIntervalSince(before) < seconds { return false }
        return true
    }

    /// A GeoClue `Location` object for `fix`: unknowns as GeoClue writes them (`-DBL_MAX`, `-1`).
    private static func locationInterface(_ fix: Location) -> DBusInterface {
        var location = DBusInterface(GeoClueNames.location)
        let time = fix.time ?? fix.receivedAt
        let seconds = time.timeIntervalSince1970
        location.addProperty("Latitude", .double(fix.latitude))
        location.addProperty("Longitude", .double(fix.longitude))
        location.addProperty("Accuracy", .double(fix.horizontalAccuracy ?? -1))  // GeoClue's "unknown"
        location.addProperty("Altitude", .double(fix.altitude ?? -Double.greatestFiniteMagnitude))
        location.addProperty("Speed", .double(fix.speed ?? -1))
        location.addProperty("Heading", .double(fix.course ?? -1))
        location.addProperty("Description", .string("Simulated (FakeGeoClue)"))
        location.addProperty("Timestamp", .structure([.uint64(UInt64(seconds.rounded(.down))), .uint64(UInt64((seconds - seconds.rounded(.down)) * 1_000_000))]))
        return location
    }
}
