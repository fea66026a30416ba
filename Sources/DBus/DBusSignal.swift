/// A method call: what ``DBusConnection/call(_:timeout:)`` sends, and what an exported method's
/// handler receives.
public struct DBusMethodCall: Sendable, Hashable {
    /// The service called (a well-known or a unique name); `nil` for a call received.
    public var destination: String?
    /// The object's path.
    public var path: String
    /// The interface.
    public var interface: String
    /// The method.
    public var member: String
    /// The arguments, in order.
    public var arguments: [DBusValue]
    /// Who called (its unique name, such as `:1.42`), for a call received.
    public var sender: String?

    /// A call of `member` of `interface` on the object at `path` of `destination`.
    public init(destination: String?, path: String, interface: String, member: String, arguments: [DBusValue] = [], sender: String? = nil) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.sender = sender
    }
}

/// A signal received, its values as they are (``DBusValue``s). A signal read as a type of its
/// own is a ``DBusTypedSignal``.
public typealias DBusSignal = DBusTypedSignal<[DBusValue]>

/// A signal received, its arguments read as `Arguments` (see ``DBusConnection/signals(matching:as:)``).
///
/// ```swift
/// let updates = try await bus.signals(matching: rule, as: LocationUpdated.self)
/// for await update in updates { print(update.path, update.arguments.new) }
/// ```
public struct DBusTypedSignal<Arguments: Sendable>: Sendable {
    /// Who sent it: the sender's unique name (`:1.42`), whatever name it was matched by.
    public var sender: String
    /// The object it is about.
    public var path: String
    /// Its interface.
    public var interface: String
    /// Its name.
    public var member: String
    /// Its values, in order, as `Arguments` reads them.
    public var arguments: Arguments

    /// A signal, as received.
    public init(sender: String, path: String, interface: String, member: String, arguments: Arguments) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

extension DBusTypedSignal: Equatable where Arguments: Equatable {}
extension DBusTypedSignal: Hashable where Arguments: Hashable {}

/// Which signals to receive, as a D-Bus match rule: every field given must match.
///
/// ```swift
/// // GeoClue's service coming and going:
/// DBusMatchRule.nameOwnerChanged(of: "org.freedesktop.GeoClue2")
/// ```
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    /// The sender: a unique name, or a well-known name (the bus matches it to its owner).
    public var sender: String?
    /// The object path.
    public var path: String?
    /// A path and everything below it.
    public var pathNamespace: String?
    /// The interface.
    public var interface: String?
    /// The signal's name.
    public var member: String?
    /// String arguments that must be equal, by position (`arg0='org.freedesktop.GeoClue2'`).
    public var arguments: [Int: String]

    /// A rule for signals with the given fields (each `nil` matches anything).
    public init(
        sender: String? = nil, path: String? = nil, pathNamespace: String? = nil, interface: String? = nil, member: String? = nil,
        arguments: [Int: String] = [:]
    ) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The bus's `NameOwnerChanged` signals about `name` (its arguments: the name, the old owner,
    /// the new owner; an empty owner is none).
    public static func nameOwnerChanged(of name: String) -> DBusMatchRule {
        DBusMatchRule(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", arguments: [0: name])
    }

    /// The rule as the bus reads it: `type='signal',sender='...',member='...'`.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            // A quote cannot be escaped inside quotes: it closes them, is escaped, and reopens them.
            parts.append("\(key)='" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'")
        }
        add("sender", sender)
        add("path", path)
        add("path_namespace", pathNamespace)
        add("interface", interface)
        add("member", member)
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) {
            add("arg\(index)", value)
        }
        return parts.joined(separator: ",")
    }
}
