/// Properties of other programs' objects, and names on the bus: the standard interfaces
/// `org.freedesktop.DBus.Properties` and `org.freedesktop.DBus` (the bus itself).
extension DBusConnection {
    private static let bus = "org.freedesktop.DBus"

    /// The value of the property `name` of `interface` on the object at `path` of `destination`
    /// (`Properties.Get`), its variant unwrapped. (``property(_:of:at:on:as:timeout:)`` reads it
    /// as a type of your own.)
    public func property(
        _ name: String, of interface: String, at path: String, on destination: String, timeout: Duration = .seconds(25)
    ) async throws -> DBusValue {
        try await property(name, of: interface, at: path, on: destination, as: DBusValue.self, timeout: timeout).unwrapped
    }

    /// Every property of `interface` on the object at `path` of `destination` (`Properties.GetAll`),
    /// variants unwrapped. (``properties(_:of:at:on:timeout:)`` reads them as a type of your own.)
    public func properties(
        of interface: String, at path: String, on destination: String, timeout: Duration = .seconds(25)
    ) async throws -> [String: DBusValue] {
        try await call(
            destination, path: path, interface: Self.propertiesInterface, member: "GetAll", [.string(interface)],
            returning: [String: DBusValue].self, timeout: timeout
        ).mapValues(\.unwrapped)
    }

    /// Sets the property `name` of `interface` on the object at `path` of `destination` to
    /// `value` (`Properties.Set`).
    public func setProperty(
        _ name: String, of interface: String, at path: String, on destination: String, to value: DBusValue,
        timeout: Duration = .seconds(25)
    ) async throws {
        _ = try await call(
            destination, path: path, interface: Self.propertiesInterface, member: "Set", [.string(interface), .string(name), .variant(value)],
            timeout: timeout)
    }

    /// The unique name of this connection on the bus (`:1.42`).
    public func uniqueName() async throws -> String {
        // The bus gives it in its answer to Hello, the first message of every connection; once a
        // later call has its answer, sd-bus has it without blocking the bus's thread to wait.
        _ = try await call(Self.bus, path: "/org/freedesktop/DBus", interface: Self.bus, member: "GetId")
        return try await loop.uniqueName()
    }

    /// Who owns `name` now (a unique name), or `nil` when nobody does.
    public func nameOwner(of name: String) async throws -> String? {
        do {
            return try await call(
                Self.bus, path: "/org/freedesktop/DBus", interface: Self.bus, member: "GetNameOwner", [.string(name)], returning: String.self)
        } catch let error as DBusError where error.name == .nameHasNoOwner {
            return nil
        }
    }

    /// Asks the bus for `name`, and returns once this connection owns it.
    ///
    /// - Throws: ``DBusError`` when another connection owns it (``DBusError/Name/failed``: the
    ///   bus put this one in its queue or refused it), or the bus's policy does not allow it
    ///   (``DBusError/Name/accessDenied``).
    public func requestName(_ name: String) async throws {
        // DBUS_NAME_FLAG_DO_NOT_QUEUE: owner now, or not at all.
        let result = try await call(
            Self.bus, path: "/org/freedesktop/DBus", interface: Self.bus, member: "RequestName", [.string(name), .uint32(4)],
            returning: UInt32.self)
        // 1: became the primary owner; 4: already was.
        guard result == 1 || result == 4 else {
            throw DBusError(
                name: .failed, message: "\(name) belongs to another connection (RequestName answered \(result))",
                bus: loop.name, destination: Self.bus, interface: Self.bus, member: "RequestName")
        }
    }

    /// Gives up `name`.
    public func releaseName(_ name: String) async throws {
        _ = try await call(Self.bus, path: "/org/freedesktop/DBus", interface: Self.bus, member: "ReleaseName", [.string(name)])
    }

    /// Who owns `name`: first who owns it now, then each change (`nil` when nobody does), until
    /// the connection closes or the stream is let go. A service restarting reads as `nil`, then
    /// its new unique name.
    public func nameOwners(of name: String) async throws -> AsyncStream<String?> {
        let changes = try await signals(matching: .nameOwnerChanged(of: name), as: DBusNameOwnerChanged.self)
        let now = try await nameOwner(of: name)
        return AsyncStream { continuation in
            continuation.yield(now)
            let task = Task {
                for await change in changes {
                    continuation.yield(change.arguments.newOwner)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
