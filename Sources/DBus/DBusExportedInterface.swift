import GPSCore

/// An interface of ours on the bus (see ``DBusConnection/export(_:at:)``): it holds the values of
/// its properties, sends its signals, and leaves the bus when removed.
public final class DBusExportedInterface: Sendable {
    /// The object path it is at.
    public let path: String
    /// What it is.
    public let interface: DBusInterface
    private let loop: BusLoop
    private let values: Locked<[String: DBusValue]>
    private let slot = Locked<SlotBox?>(nil)

    init(interface: DBusInterface, path: String, loop: BusLoop) {
        self.interface = interface
        self.path = path
        self.loop = loop
        var values: [String: DBusValue] = [:]
        for property in interface.properties { values[property.name] = property.initial }
        self.values = Locked(values)
    }

    var registration: SlotBox? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }

    /// The value of the property `name` now.
    public func value(of name: String) -> DBusValue? {
        values.withLock { $0[name] }
    }

    /// Sets the property `name` and, if its value changed, announces it with `PropertiesChanged`.
    ///
    /// - Throws: ``DBusError`` (``DBusError/Name/unknownProperty`` or ``DBusError/Name/invalidArgs``)
    ///   when the interface has no such property or the value's signature is not the property's.
    public func setValue(_ value: DBusValue, for name: String) throws(DBusError) {
        if try store(value, for: name) { announceChange(of: name, to: value) }
    }

    /// Sends `PropertiesChanged` with the value the property took, in order with the change: the
    /// values read when the signal is sent could be later ones.
    private func announceChange(of name: String, to value: DBusValue) {
        // The value was checked when stored: only a closed bus refuses, and it has nobody to tell.
        try? loop.emitSignal(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string(interface.name), .variantDictionary([name: value]), .stringArray([])])
    }

    /// Sets the property `name` and announces it with `PropertiesChanged` even if its value did
    /// not change: for a property whose every setting is an event (a Bluetooth characteristic's
    /// `Value`, each notification of which BlueZ signals).
    public func announce(_ value: DBusValue, for name: String) throws(DBusError) {
        _ = try store(value, for: name)
        announceChange(of: name, to: value)
    }

    /// Sends the signal `name` with `arguments`, after everything sent before from this thread.
    ///
    /// - Throws: ``DBusError`` when the interface declares no such signal, the arguments' signature
    ///   is not the signal's, or the connection is closed.
    public func emit(_ name: String, _ arguments: [DBusValue] = []) throws(DBusError) {
        guard let signal = interface.signals.first(where: { $0.name == name }) else {
            throw refusal(.unknownMethod, "it declares no signal \(name)", member: name)
        }
        guard DBusValue.signature(of: arguments) == signal.signature else {
            throw refusal(.invalidArgs, "the signal's values have the signature \(signal.signature), not \(DBusValue.signature(of: arguments))", member: name)
        }
        try loop.emitSignal(path: path, interface: interface.name, member: name, arguments: arguments)
    }

    /// Announces the interface with the ObjectManager's `InterfacesAdded` (for an object manager
    /// served at or above its path).
    public func announce() {
        loop.emitInterfacesAdded(path: path, interfaces: [interface.name])
    }

    /// Takes the interface off the bus; with `announcing`, then says so with `InterfacesRemoved`
    /// (a client that hears it and asks finds the interface gone).
    public func remove(announcing: Bool = false) {
        guard announcing else {
            registration?.remove()
            return
        }
        let (path, name) = (path, interface.name)
        registration?.remove { bus in BusLoop.emitInterfacesRemoved(on: bus, path: path, interfaces: [name]) }
    }

    // MARK: - From the bus's thread

    /// Sets a property; `bySender` when another program set it (its handler may refuse).
    func set(_ name: String, to value: DBusValue, bySender: Bool) throws(DBusError) {
        if bySender {
            guard let property = interface.properties.first(where: { $0.name == name }), let onSet = property.onSet else {
                throw refusal(.propertyReadOnly, "the property \(name) cannot be set", member: name)
            }
            do {
                try onSet(value)
            } catch let error as DBusError {
                throw error
            } catch {
                throw refusal(.invalidArgs, "\(error)", member: name)
            }
        }
        // sd-bus does not announce a property set through its Properties.Set: we do.
        if try store(value, for: name) { announceChange(of: name, to: value) }
    }

    /// Stores a property's value; whether it changed.
    private func store(_ value: DBusValue, for name: String) throws(DBusError) -> Bool {
        guard let property = interface.properties.first(where: { $0.name == name }) else {
            throw refusal(.unknownProperty, "it has no property \(name)", member: name)
        }
        guard value.signature == property.signature else {
            throw refusal(.invalidArgs, "the property \(name) has the signature \(property.signature), not \(value.signature)", member: name)
        }
        return values.withLock { values in
            defer { values[name] = value }
            return values[name] != value
        }
    }

    private func refusal(_ name: DBusError.Name, _ message: String, member: String) -> DBusError {
        DBusError(name: name, message: message, bus: loop.name, path: path, interface: interface.name, member: member)
    }
}
