/// An interface of our own to put on the bus with ``DBusConnection/export(_:at:)``: its methods
/// (with handlers), its properties (with their first values) and its signals.
///
/// ```swift
/// var agent = DBusInterface("org.freedesktop.GeoClue2.Agent")
/// agent.addProperty("MaxAccuracyLevel", .uint32(8))
/// agent.addMethod("AuthorizeApp", input: "su", output: "bu") { call in
///     [.boolean(true), call.arguments[1]]
/// }
/// let exported = try await bus.export(agent, at: "/org/freedesktop/GeoClue2/Agent")
/// ```
public struct DBusInterface: Sendable {
    /// A method and what answers it.
    struct Method: Sendable {
        var name: String
        var input: String
        var output: String
        var handler: @Sendable (DBusMethodCall) async throws -> [DBusValue]
    }

    /// A property and its first value.
    struct Property: Sendable {
        var name: String
        var signature: String
        var initial: DBusValue
        /// Called when another program sets the property; `nil` for a read-only one.
        var onSet: (@Sendable (DBusValue) throws -> Void)?
        var isWritable: Bool { onSet != nil }
    }

    /// A signal, so that introspection lists it and ``DBusExportedInterface/emit(_:_:)`` checks it.
    struct Signal: Sendable {
        var name: String
        var signature: String
    }

    /// The interface's name, such as `org.freedesktop.GeoClue2.Agent`.
    public let name: String
    private(set) var methods: [Method] = []
    private(set) var properties: [Property] = []
    private(set) var signals: [Signal] = []

    /// An interface named `name`, with nothing in it yet.
    public init(_ name: String) {
        self.name = name
    }

    /// Adds a method taking arguments of the signature `input` and answering values of the
    /// signature `output`. sd-bus refuses calls with other arguments before `handler` sees them.
    /// `handler` runs in a task of its own; what it throws is the error reply (a ``DBusError``'s
    /// own name, or `org.freedesktop.DBus.Error.Failed` for any other error).
    public mutating func addMethod(
        _ name: String, input: String = "", output: String = "", handler: @escaping @Sendable (DBusMethodCall) async throws -> [DBusValue]
    ) {
        methods.append(Method(name: name, input: input, output: output, handler: handler))
    }

    /// Adds a read-only property with its first value (whose signature is the property's). Its
    /// changes (``DBusExportedInterface/setValue(_:for:)``) are announced with `PropertiesChanged`.
    public mutating func addProperty(_ name: String, _ initial: DBusValue) {
        properties.append(Property(name: name, signature: initial.signature, initial: initial, onSet: nil))
    }

    /// Adds a property that others may set: `onSet` is called with each value set (throw a
    /// ``DBusError`` to refuse it), which then becomes the property's value.
    public mutating func addWritableProperty(_ name: String, _ initial: DBusValue, onSet: @escaping @Sendable (DBusValue) throws -> Void = { _ in }) {
        properties.append(Property(name: name, signature: initial.signature, initial: initial, onSet: onSet))
    }

    /// Adds a signal whose values have the signature `signature`.
    public mutating func addSignal(_ name: String, signature: String = "") {
        signals.append(Signal(name: name, signature: signature))
    }
}
