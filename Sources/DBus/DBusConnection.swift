#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A connection to a D-Bus message bus, over sd-bus (libsystemd): calls, properties, signals,
/// names, and objects of our own for others to call.
///
/// The connection runs its own thread, which waits on the bus's socket (and on sd-bus's next
/// deadline) and does all the bus work; every method here may be called from any task or thread.
/// Replies, signals and calls to exported objects are handled on that thread.
///
/// ```swift
/// let bus = try DBusConnection(.system)          // DBUS_SYSTEM_BUS_ADDRESS, or the usual socket
/// let client = try await bus.call(
///     "org.freedesktop.GeoClue2", path: "/org/freedesktop/GeoClue2/Manager",
///     interface: "org.freedesktop.GeoClue2.Manager", member: "GetClient")
/// ```
///
/// Closing the connection (``close()``, or letting it go) fails the calls still waiting, ends
/// every signal stream and takes the exported objects off the bus.
public final class DBusConnection: Sendable {
    /// Where a bus is.
    public enum Address: Sendable, Hashable, CustomStringConvertible {
        /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS` when it is set, else
        /// `unix:path=/run/dbus/system_bus_socket`.
        case system
        /// A bus at a D-Bus address, such as `unix:path=/tmp/bus/socket` (what `dbus-daemon
        /// --print-address` prints).
        case address(String)

        /// "the system bus (unix:path=/run/dbus/system_bus_socket)", "the bus at unix:path=...".
        public var description: String {
            switch self {
            case .system:
                let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
                return "the system bus (\(address))"
            case let .address(address):
                return "the bus at \(address)"
            }
        }
    }

    /// Where this connection goes.
    public let address: Address
    let loop: BusLoop

    /// Connects to the bus at `address`. Throws ``DBusError`` (``DBusError/Name/noServer``) when
    /// no bus listens there.
    public init(_ address: Address = .system) throws(DBusError) {
        self.address = address
        loop = try BusLoop(address)
    }

    deinit {
        loop.close()
    }

    /// Closes the connection: calls still waiting for their answers fail with
    /// ``DBusError/Name/noReply`` (new ones with ``DBusError/Name/disconnected``), signal streams
    /// end, exported objects leave the bus (their callers get `NoReply`). Returns at once;
    /// calling it again does nothing.
    public func close() {
        loop.close()
    }

    /// Returns once the connection is closed, by ``close()`` or because the bus went away.
    public func waitUntilClosed() async {
        await loop.waitUntilClosed()
    }

    /// Whether the connection is closed.
    public var isClosed: Bool {
        loop.isClosed
    }

    // MARK: - Calls

    /// Calls `member` of `interface` on the object at `path` of `destination`, and returns the
    /// values of the reply.
    ///
    /// A `timeout` of `nil` waits for the answer for as long as it takes (a service that answers
    /// only once something else happens, such as GeoClue's `GetClient` waiting for an agent);
    /// cancel the task to stop waiting.
    ///
    /// - Throws: ``DBusError`` for an error reply (with the peer's error name), a reply that did
    ///   not come within `timeout` (``DBusError/Name/noReply``), or a closed connection;
    ///   `CancellationError` when the task is cancelled first (the reply, if any, is then ignored).
    public func call(
        _ destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
        timeout: Duration? = .seconds(25)
    ) async throws -> [DBusValue] {
        try await call(
            DBusMethodCall(destination: destination, path: path, interface: interface, member: member, arguments: arguments),
            timeout: timeout)
    }

    /// Makes `call` and returns the values of the reply; as ``call(_:path:interface:member:_:timeout:)``.
    public func call(_ call: DBusMethodCall, timeout: Duration? = .seconds(25)) async throws -> [DBusValue] {
        try await loop.call(call, timeout: timeout)
    }

    // MARK: - Signals

    /// The signals that match `rule`, from the moment this returns: it returns once the bus has
    /// confirmed the match, so a signal sent after that is never missed. The stream ends when the
    /// connection closes; letting go of it (or cancelling the task iterating it) removes the match.
    ///
    /// ```swift
    /// let updates = try await bus.signals(matching: DBusMatchRule(
    ///     sender: "org.freedesktop.GeoClue2", path: clientPath,
    ///     interface: "org.freedesktop.GeoClue2.Client", member: "LocationUpdated"))
    /// for await signal in updates { print(signal.arguments) }
    /// ```
    ///
    /// - Throws: ``DBusError`` when the bus refuses the rule or the connection is closed.
    public func signals(matching rule: DBusMatchRule) async throws -> AsyncStream<DBusSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusSignal.self)
        let registration = try await loop.addMatch(
            rule.description, received: { continuation.yield($0) }, ended: { continuation.finish() })
        continuation.onTermination = { _ in registration.remove() }
        return stream
    }

    /// Calls `handler` with each signal that matches `rule`, on the connection's own thread as
    /// the signal is read, until the returned registration is cancelled or the connection ends
    /// (then `ended` is called, once). For signals that come by the thousand a second, such as a
    /// Bluetooth sensor's notifications: a stream wakes its reader's thread for each signal,
    /// where a handler runs on the thread that read it. `handler` must be quick and must not
    /// block or call this connection and wait: the connection waits for it.
    ///
    /// - Throws: ``DBusError`` when the bus refuses the rule or the connection is closed.
    public func onSignals(
        matching rule: DBusMatchRule, ended: @escaping @Sendable () -> Void = {}, _ handler: @escaping @Sendable (DBusSignal) -> Void
    ) async throws -> DBusRegistration {
        DBusRegistration(try await loop.addMatch(rule.description, received: handler, ended: ended))
    }

    // MARK: - Objects of our own

    /// Puts `interface` on the bus at `path`, for others to call, read and watch, and returns the
    /// handle that sets its properties, sends its signals and takes it off the bus again.
    /// Introspection and `org.freedesktop.DBus.Properties` are served for it.
    ///
    /// - Throws: ``DBusError`` when sd-bus refuses it (the interface is already there) or the
    ///   connection is closed.
    public func export(_ interface: DBusInterface, at path: String) async throws -> DBusExportedInterface {
        let exported = DBusExportedInterface(interface: interface, path: path, loop: loop)
        exported.registration = try await loop.export(exported)
        return exported
    }

    /// Serves `org.freedesktop.DBus.ObjectManager` at `path`: `GetManagedObjects` lists the
    /// interfaces exported below it, and ``DBusExportedInterface`` announces its arrival and
    /// departure with `InterfacesAdded` and `InterfacesRemoved`. Cancel the returned registration
    /// to stop.
    public func addObjectManager(at path: String) async throws -> DBusRegistration {
        DBusRegistration(try await loop.addObjectManager(at: path))
    }
}

/// Something registered on the bus (an object manager, a signal handler) until cancelled.
public final class DBusRegistration: Sendable {
    private let slot: SlotBox

    init(_ slot: SlotBox) {
        self.slot = slot
    }

    /// Removes the registration. Calling it again does nothing.
    public func cancel() {
        slot.remove()
    }
}
