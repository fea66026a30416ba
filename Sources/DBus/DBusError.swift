/// A D-Bus failure: an error reply from the peer, a call that got no answer in time, a bus that
/// could not be reached or went away. It names the bus, the destination, the object path, the
/// interface and the member involved, and the error's own D-Bus name, and its `description`
/// reads as a sentence a person can act on.
///
/// ```swift
/// do {
///     _ = try await bus.call("org.freedesktop.GeoClue2", path: "/org/freedesktop/GeoClue2/Manager",
///                            interface: "org.freedesktop.GeoClue2.Manager", member: "GetClient")
/// } catch let error as DBusError where error.name == .serviceUnknown {
///     print("GeoClue is not running on \(error.bus)")
/// }
/// ```
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error's D-Bus name, such as `org.freedesktop.DBus.Error.ServiceUnknown` or a service's
    /// own (`org.bluez.Error.NotConnected`).
    public var name: Name
    /// The human-readable text that came with it (from the peer, or from the bus library).
    public var message: String
    /// The bus it happened on: "the system bus (unix:path=/run/dbus/system_bus_socket)".
    public var bus: String
    /// The service called (a well-known or unique name), when a call failed.
    public var destination: String?
    /// The object path, when there was one.
    public var path: String?
    /// The interface, when there was one.
    public var interface: String?
    /// The method, property or signal, when there was one.
    public var member: String?

    /// An error named `name`, with `message`, on `bus`, about what the other fields say.
    public init(
        name: Name, message: String, bus: String, destination: String? = nil, path: String? = nil, interface: String? = nil,
        member: String? = nil
    ) {
        self.name = name
        self.message = message
        self.bus = bus
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
    }

    /// A D-Bus error name.
    public struct Name: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The name, such as `org.freedesktop.DBus.Error.AccessDenied`.
        public var rawValue: String

        /// The error name `rawValue`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The error name `value`.
        public init(stringLiteral value: String) {
            rawValue = value
        }

        /// The name itself.
        public var description: String { rawValue }

        /// Nobody owns the name called, and no service file can start it.
        public static let serviceUnknown: Name = "org.freedesktop.DBus.Error.ServiceUnknown"
        /// Nobody owns the name (a property or owner query about it).
        public static let nameHasNoOwner: Name = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// The bus's policy or the service refused the caller.
        public static let accessDenied: Name = "org.freedesktop.DBus.Error.AccessDenied"
        /// The peer did not answer in time, or the connection closed before it did.
        public static let noReply: Name = "org.freedesktop.DBus.Error.NoReply"
        /// The call's own timeout passed.
        public static let timeout: Name = "org.freedesktop.DBus.Error.Timeout"
        /// There is no bus at the address (no socket, or nothing listening).
        public static let noServer: Name = "org.freedesktop.DBus.Error.NoServer"
        /// The connection to the bus is closed.
        public static let disconnected: Name = "org.freedesktop.DBus.Error.Disconnected"
        /// The object has no such method.
        public static let unknownMethod: Name = "org.freedesktop.DBus.Error.UnknownMethod"
        /// There is no object at the path.
        public static let unknownObject: Name = "org.freedesktop.DBus.Error.UnknownObject"
        /// The object has no such interface.
        public static let unknownInterface: Name = "org.freedesktop.DBus.Error.UnknownInterface"
        /// The interface has no such property.
        public static let unknownProperty: Name = "org.freedesktop.DBus.Error.UnknownProperty"
        /// The property cannot be set.
        public static let propertyReadOnly: Name = "org.freedesktop.DBus.Error.PropertyReadOnly"
        /// The arguments do not fit the method.
        public static let invalidArgs: Name = "org.freedesktop.DBus.Error.InvalidArgs"
        /// A message's values are not of the types expected (a reply that is not what the call
        /// answers, arguments that are not what a method takes).
        public static let invalidSignature: Name = "org.freedesktop.DBus.Error.InvalidSignature"
        /// The method failed for a reason of its own.
        public static let failed: Name = "org.freedesktop.DBus.Error.Failed"
        /// The service does not support what was asked.
        public static let notSupported: Name = "org.freedesktop.DBus.Error.NotSupported"
    }

    /// What failed, as the start of a sentence: "Calling org.freedesktop.GeoClue2.Manager.GetClient
    /// on /org/freedesktop/GeoClue2/Manager of org.freedesktop.GeoClue2".
    var subject: String {
        var text: String
        switch (interface, member) {
        case let (interface?, member?): text = "Calling \(interface).\(member)"
        case let (nil, member?): text = "Calling \(member)"
        case let (interface?, nil): text = "Using \(interface)"
        case (nil, nil): text = path == nil && destination == nil ? "Connecting" : "Talking"
        }
        if let path { text += " on \(path)" }
        if let destination { text += " of \(destination)" }
        return text
    }

    /// What failed, on which bus, and the error's name and text, as a sentence; with what to check
    /// for the usual causes.
    public var description: String {
        let what = message.isEmpty ? name.rawValue : "\(name.rawValue): \(message)"
        let text = "\(subject) on \(bus) failed: \(what)"
        switch name {
        case .serviceUnknown, .nameHasNoOwner:
            return text + ". Is the service running, and allowed on this bus?"
        case .noServer:
            return text + ". Is a bus running there (for the system bus: dbus-daemon --system, or DBUS_SYSTEM_BUS_ADDRESS)?"
        case .accessDenied:
            return text + ". The bus's policy or the service refused this caller."
        default:
            return text + "."
        }
    }
}
