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
/// A connection made with ``init(_:)`` is this value's own: closing it (``close()``, or letting
/// it go) fails the calls still waiting, ends every signal stream and takes the exported objects
/// off the bus. A client of system services should rather take the process's one connection to
/// the bus, ``shared(_:)``, which every GeoClue source and Bluetooth sensor of the process uses.
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
    /// For a shared connection, this value's hold on it: let go once (by ``close()`` or `deinit`).
    private let hold: SharedConnections.Hold?

    /// Connects to the bus at `address`: a connection of this value's own (see ``shared(_:)`` for
    /// the process's one). Throws ``DBusError`` (``DBusError/Name/noServer``) when no bus listens
    /// there.
    public init(_ address: Address = .system) throws(DBusError) {
        self.address = address
        loop = try BusLoop(address)
        hold = nil
    }

    /// A holder of the shared connection `loop`.
    init(sharing loop: BusLoop, at address: Address, hold: SharedConnections.Hold) {
        self.address = address
        self.loop = loop
        self.hold = hold
    }

    deinit {
        if let hold { hold.release() } else { loop.close() }
    }

    /// Whether this value holds the process's shared connection (``shared(_:)``) rather than a
    /// connection of its own.
    public var isShared: Bool {
        hold != nil
    }

    /// Closes the connection: calls still waiting for their answers fail with
    /// ``DBusError/Name/noReply`` (new ones with ``DBusError/Name/disconnected``), signal streams
    /// end, exported objects leave the bus (their callers get `NoReply`). Returns at once;
    /// calling it again does nothing.
    ///
    /// On a shared connection (``shared(_:)``), it lets go of this value's hold: the connection
    /// closes once no value holds it, and what others do on it goes on. New calls through this
    /// value fail with ``DBusError/Name/disconnected``; the streams it opened end when let go.
    public func close() {
        if let hold { hold.release() } else { loop.close() }
    }

    /// Returns once the connection is closed, by ``close()`` or because the bus went away (for a
    /// shared connection: once it closes for every holder, or this value has let go of it).
    public func waitUntilClosed() async {
        if hold?.isReleased == true { return }
        await loop.waitUntilClosed()
    }

    /// Whether the connection is closed (for a shared connection: for this value).
    public var isClosed: Bool {
        hold?.isReleased == true || loop.isClosed
    }

    /// Throws the error of a call through a value that let go of its shared connection.
    func ensureOpen(destination: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil) throws(DBusError) {
        guard hold?.isReleased == true else { return }
        throw DBusError(
            name: .disconnected, message: "this holder of the shared connection closed it", bus: loop.name, destination: destination,
            path: path, interface: interface, member: member)
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
        try await self.call(call, timeout: timeout) { (decoder: inout DBusDecoder) throws(DBusDecodingError) in try decoder.decodeRest() }
    }

    /// Makes `call` and returns its reply as `decode` reads it, on the connection's thread.
    func call<Reply: Sendable>(
        _ call: DBusMethodCall, timeout: Duration?, decode: @escaping @Sendable (inout DBusDecoder) throws(DBusDecodingError) -> Reply
    ) async throws -> Reply {
        try ensureOpen(destination: call.destination, path: call.path, interface: call.interface, member: call.member)
        return try await loop.call(call, timeout: timeout, decode: decode)
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
        try await signals(matching: rule) { (decoder: inout DBusDecoder) throws(DBusDecodingError) in try decoder.decodeRest() }
    }

    /// The signals that match `rule`, their arguments read by `decode`.
    func signals<Arguments: Sendable>(
        matching rule: DBusMatchRule, decode: @escaping @Sendable (inout DBusDecoder) throws(DBusDecodingError) -> Arguments
    ) async throws -> AsyncStream<DBusTypedSignal<Arguments>> {
        try ensureOpen()
        let (stream, continuation) = AsyncStream.makeStream(of: DBusTypedSignal<Arguments>.self)
        let registration = try await loop.addMatch(
            rule.description, decode: decode, received: { continuation.yield($0) }, ended: { continuation.finish() })
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
        try await onSignals(matching: rule, ended: ended, decode: { (decoder: inout DBusDecoder) throws(DBusDecodingError) in try decoder.decodeRest() }, handler)
    }

    /// Calls `handler` with each signal that matches `rule`, its arguments read by `decode`.
    func onSignals<Arguments: Sendable>(
        matching rule: DBusMatchRule, ended: @escaping @Sendable () -> Void,
        decode: @escaping @Sendable (inout DBusDecoder) throws(DBusDecodingError) -> Arguments,
        _ handler: @escaping @Sendable (DBusTypedSignal<Arguments>) -> Void
    ) async throws -> DBusRegistration {
        try ensureOpen()
        return DBusRegistration(try await loop.addMatch(rule.description, decode: decode, received: handler, ended: ended))
    }

    // MARK: - Objects of our own

    /// Puts `interface` on the bus at `path`, for others to call, read and watch, and returns the
    /// handle that sets its properties, sends its signals and takes it off the bus again.
    /// Introspection and `org.freedesktop.DBus.Properties` are served for it.
    ///
    /// - Throws: ``DBusError`` when sd-bus refuses it (the interface is already there) or the
    ///   connection is closed.
    public func export(_ interface: DBusInterface, at path: String) async throws -> DBusExportedInterface {
        try ensureOpen(path: path, interface: interface.name)
        let exported = DBusExportedInterface(interface: interface, path: path, loop: loop)
        exported.registration = try await loop.export(exported)
        return exported
    }

    /// Serves `org.freedesktop.DBus.ObjectManager` at `path`: `GetManagedObjects` lists the
    /// interfaces exported below it, and ``DBusExportedInterface`` announces its arrival and
    /// departure with `InterfacesAdded` and `InterfacesRemoved`. Cancel the returned registration
    /// to stop.
    public func addObjectManager(at path: String) async throws -> DBusRegistration {
        try ensureOpen(path: path)
        return DBusRegistration(try await loop.addObjectManager(at: path))
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
