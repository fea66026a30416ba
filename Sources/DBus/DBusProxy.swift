/// One interface of one object of one service, called and watched through a connection: the
/// destination, path and interface said once.
///
/// ```swift
/// let client = DBusProxy(bus, destination: "org.freedesktop.GeoClue2", path: clientPath,
///                        interface: "org.freedesktop.GeoClue2.Client")
/// try await client.setProperty("DesktopId", to: "org.example.BikeComputer")
/// try await client.call("Start")
/// ```
public struct DBusProxy: Sendable {
    /// The connection the calls go through.
    public let connection: DBusConnection
    /// The service: a well-known name or a unique one.
    public let destination: String
    /// The object's path.
    public let path: String
    /// The interface.
    public let interface: String

    /// A proxy of `interface` on the object at `path` of `destination`, through `connection`.
    public init(_ connection: DBusConnection, destination: String, path: String, interface: String) {
        self.connection = connection
        self.destination = destination
        self.path = path
        self.interface = interface
    }

    /// Calls `member` with `arguments` and returns the reply's values; as
    /// ``DBusConnection/call(_:path:interface:member:_:timeout:)``.
    @discardableResult
    public func call(_ member: String, _ arguments: [DBusValue] = [], timeout: Duration? = .seconds(25)) async throws -> [DBusValue] {
        try await connection.call(destination, path: path, interface: interface, member: member, arguments, timeout: timeout)
    }

    /// The value of the property `name`.
    public func property(_ name: String, timeout: Duration = .seconds(25)) async throws -> DBusValue {
        try await connection.property(name, of: interface, at: path, on: destination, timeout: timeout)
    }

    /// Every property of the interface.
    public func properties(timeout: Duration = .seconds(25)) async throws -> [String: DBusValue] {
        try await connection.properties(of: interface, at: path, on: destination, timeout: timeout)
    }

    /// Sets the property `name` to `value`.
    public func setProperty(_ name: String, to value: DBusValue, timeout: Duration = .seconds(25)) async throws {
        try await connection.setProperty(name, of: interface, at: path, on: destination, to: value, timeout: timeout)
    }

    /// The signal `member` of the interface from this object, from the moment this returns; as
    /// ``DBusConnection/signals(matching:)``.
    public func signals(_ member: String) async throws -> AsyncStream<DBusSignal> {
        try await connection.signals(matching: DBusMatchRule(sender: destination, path: path, interface: interface, member: member))
    }
}
