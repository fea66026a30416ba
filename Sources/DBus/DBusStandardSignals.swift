/// The arguments of `org.freedesktop.DBus.Properties.PropertiesChanged` (`sa{sv}as`): which
/// interface's properties changed, their new values read as `Properties`, and the names of those
/// whose values were dropped (to be read again if wanted).
///
/// ```swift
/// struct DeviceProperties: DBusKeyedDecodable {
///     var connected: Bool?
///     init() {}
///     mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
///         if key == "Connected" { connected = try value.decode() }
///     }
/// }
/// let changes = try await bus.signals(
///     matching: .propertiesChanged(sender: "org.bluez", path: devicePath, interface: "org.bluez.Device1"),
///     as: DBusPropertiesChanged<DeviceProperties>.self)
/// ```
public struct DBusPropertiesChanged<Properties: DBusKeyedDecodable>: DBusDecodable {
    /// The interface whose properties changed.
    public var interface: String
    /// The properties that changed, with their new values.
    public var changed: Properties
    /// The properties that changed without their values.
    public var invalidated: [String]

    /// Reads the signal's three arguments.
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        interface = try decoder.decode()
        changed = try decoder.decode()
        invalidated = try decoder.decodeIfPresent() ?? []
    }
}

/// The arguments of `org.freedesktop.DBus.ObjectManager.InterfacesAdded` (`oa{sa{sv}}`): the
/// object's path, and its interfaces with their properties, read as `Interfaces`.
public struct DBusInterfacesAdded<Interfaces: DBusKeyedDecodable>: DBusDecodable {
    /// The object's path.
    public var path: String
    /// Its interfaces that were added, with their properties.
    public var interfaces: Interfaces

    /// Reads the signal's two arguments.
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        path = try decoder.decode()
        interfaces = try decoder.decode()
    }
}

/// The arguments of the bus's `NameOwnerChanged` (`sss`): a name, who owned it, who owns it now
/// (`nil` for nobody).
public struct DBusNameOwnerChanged: DBusDecodable, Hashable {
    /// The name.
    public var name: String
    /// Its owner before (a unique name), or `nil`.
    public var oldOwner: String?
    /// Its owner now, or `nil`.
    public var newOwner: String?

    /// Reads the signal's three arguments (an empty owner is none).
    public init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        name = try decoder.decode()
        let old: String = try decoder.decode()
        let new: String = try decoder.decode()
        oldOwner = old.isEmpty ? nil : old
        newOwner = new.isEmpty ? nil : new
    }
}

extension DBusMatchRule {
    /// The `PropertiesChanged` signals of the object at `path` (and, with `pathNamespace`, of those
    /// below it instead), from `sender`, about `interface` (any when `nil`).
    public static func propertiesChanged(
        sender: String? = nil, path: String? = nil, pathNamespace: String? = nil, interface: String? = nil
    ) -> DBusMatchRule {
        DBusMatchRule(
            sender: sender, path: path, pathNamespace: pathNamespace, interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged", arguments: interface.map { [0: $0] } ?? [:])
    }

    /// The `InterfacesAdded` signals of the object manager at `path` of `sender`.
    public static func interfacesAdded(sender: String, path: String = "/") -> DBusMatchRule {
        DBusMatchRule(sender: sender, path: path, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded")
    }
}
