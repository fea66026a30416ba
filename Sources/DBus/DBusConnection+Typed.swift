/// Calls, properties and signals read as types of the program's own (``DBusDecodable``), straight
/// from the messages, on the connection's thread.
extension DBusConnection {
    /// Calls `member` of `interface` on the object at `path` of `destination`, and returns the
    /// reply read as a `Reply`.
    ///
    /// ```swift
    /// let objects = try await bus.call(
    ///     "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects",
    ///     returning: [String: BlueZObject].self)
    /// ```
    ///
    /// - Throws: as ``call(_:path:interface:member:_:timeout:)``; and ``DBusError`` named
    ///   ``DBusError/Name/invalidSignature`` when the reply is not a `Reply` (its message says what
    ///   was expected where, and what was there).
    public func call<Reply: DBusDecodable>(
        _ destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
        returning reply: Reply.Type, timeout: Duration? = .seconds(25)
    ) async throws -> Reply {
        try await call(
            DBusMethodCall(destination: destination, path: path, interface: interface, member: member, arguments: arguments),
            timeout: timeout
        ) { (decoder: inout DBusDecoder) throws(DBusDecodingError) in try Reply(from: &decoder) }
    }

    /// Every property of `interface` on the object at `path` of `destination` (`Properties.GetAll`),
    /// read as `Properties`.
    ///
    /// - Throws: as ``call(_:path:interface:member:_:returning:timeout:)``.
    public func properties<Properties: DBusKeyedDecodable>(
        _ type: Properties.Type, of interface: String, at path: String, on destination: String, timeout: Duration = .seconds(25)
    ) async throws -> Properties {
        try await call(
            destination, path: path, interface: Self.propertiesInterface, member: "GetAll", [.string(interface)], returning: Properties.self,
            timeout: timeout)
    }

    /// The value of the property `name` of `interface` on the object at `path` of `destination`
    /// (`Properties.Get`), read as a `Value`.
    ///
    /// - Throws: as ``call(_:path:interface:member:_:returning:timeout:)``.
    public func property<Value: DBusDecodable>(
        _ name: String, of interface: String, at path: String, on destination: String, as type: Value.Type,
        timeout: Duration = .seconds(25)
    ) async throws -> Value {
        // Get answers a variant: looked through.
        try await call(
            DBusMethodCall(
                destination: destination, path: path, interface: Self.propertiesInterface, member: "Get", arguments: [.string(interface), .string(name)]),
            timeout: timeout
        ) { (decoder: inout DBusDecoder) throws(DBusDecodingError) in try decoder.decode(Value.self) }
    }

    /// The objects below `path` of `destination` (`ObjectManager.GetManagedObjects`), by path, each
    /// read as `Object` (a ``DBusKeyedDecodable`` of its interfaces).
    ///
    /// - Throws: as ``call(_:path:interface:member:_:returning:timeout:)``.
    public func managedObjects<Object: DBusKeyedDecodable>(
        of destination: String, at path: String = "/", as type: Object.Type, timeout: Duration = .seconds(25)
    ) async throws -> [String: Object] {
        try await call(
            destination, path: path, interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects",
            returning: [String: Object].self, timeout: timeout)
    }

    /// The signals that match `rule`, their arguments read as `Arguments`, from the moment this
    /// returns; as ``signals(matching:)``. A signal whose arguments are not an `Arguments` is
    /// passed over.
    ///
    /// ```swift
    /// let changes = try await bus.signals(
    ///     matching: .propertiesChanged(path: devicePath), as: DBusPropertiesChanged<DeviceProperties>.self)
    /// for await change in changes where change.arguments.changed.connected == false { break }
    /// ```
    ///
    /// - Throws: ``DBusError`` when the bus refuses the rule or the connection is closed.
    public func signals<Arguments: DBusDecodable>(
        matching rule: DBusMatchRule, as type: Arguments.Type
    ) async throws -> AsyncStream<DBusTypedSignal<Arguments>> {
        try await signals(matching: rule) { (decoder: inout DBusDecoder) throws(DBusDecodingError) in try Arguments(from: &decoder) }
    }

    /// Calls `handler` with each signal that matches `rule`, its arguments read as `Arguments`, on
    /// the connection's own thread as the signal is read; as ``onSignals(matching:ended:_:)``. A
    /// signal whose arguments are not an `Arguments` is passed over.
    ///
    /// - Throws: ``DBusError`` when the bus refuses the rule or the connection is closed.
    public func onSignals<Arguments: DBusDecodable>(
        matching rule: DBusMatchRule, as type: Arguments.Type, ended: @escaping @Sendable () -> Void = {},
        _ handler: @escaping @Sendable (DBusTypedSignal<Arguments>) -> Void
    ) async throws -> DBusRegistration {
        try await onSignals(
            matching: rule, ended: ended, decode: { (decoder: inout DBusDecoder) throws(DBusDecodingError) in try Arguments(from: &decoder) },
            handler)
    }

    /// Calls `handler` with the signals that match `rule` in batches, their arguments read as
    /// `Arguments`: while it is registered, the connection reads the bus at most once per
    /// `interval`, and hands `handler` (on the connection's thread) the arguments of the matching
    /// signals each read brought, in order. A stream slower than one signal per `interval` comes
    /// one signal a batch, as it arrives.
    ///
    /// For streams of hundreds or thousands of signals a second, such as a sensor's notifications:
    /// the connection's thread then wakes about once per `interval` rather than once per signal,
    /// and so does whatever `handler` wakes (a task reading a stream it feeds). The price is paid
    /// by everything on this connection: while the handler is registered, a reply or another
    /// signal may wait up to `interval` longer to be read.
    ///
    /// ```swift
    /// let notifications = try await bus.onSignals(
    ///     matching: .propertiesChanged(sender: "org.bluez", path: characteristicPath, interface: "org.bluez.GattCharacteristic1"),
    ///     as: DBusPropertiesChanged<CharacteristicValue>.self, readingAtMostEvery: .milliseconds(20)
    /// ) { batch in
    ///     for change in batch { print(change.changed.value ?? []) }
    /// }
    /// ```
    ///
    /// - Throws: ``DBusError`` when the bus refuses the rule or the connection is closed.
    public func onSignals<Arguments: DBusDecodable>(
        matching rule: DBusMatchRule, as type: Arguments.Type, readingAtMostEvery interval: Duration, ended: @escaping @Sendable () -> Void = {},
        _ handler: @escaping @Sendable ([Arguments]) -> Void
    ) async throws -> DBusRegistration {
        try ensureOpen()
        return DBusRegistration(try await loop.addBatchedMatch(
            rule.description, interval: interval, decode: { (decoder: inout DBusDecoder) throws(DBusDecodingError) in try Arguments(from: &decoder) },
            handler: handler, ended: ended))
    }

    /// Runs `body`, the bus read as messages come meanwhile, though a batching handler
    /// (``onSignals(matching:as:readingAtMostEvery:ended:_:)``) spaces the reads out: for an answer
    /// awaited on a connection that also carries a stream read in batches, as a trainer's answer
    /// to a request written while its sensor's measurements come every 20 ms. The reads are spaced
    /// out again once every such `body` has returned.
    ///
    /// ```swift
    /// let answer = try await bus.readingPromptly {
    ///     try await bus.call("org.bluez", path: controlPoint, interface: "org.bluez.GattCharacteristic1", member: "ReadValue", [.variantDictionary([:])])
    /// }
    /// ```
    public func readingPromptly<Result>(during body: () async throws -> Result) async rethrows -> Result {
        loop.beginPromptReads()
        defer { loop.endPromptReads() }
        return try await body()
    }

    static let propertiesInterface = "org.freedesktop.DBus.Properties"
}

extension DBusProxy {
    /// Calls `member` with `arguments` and returns the reply read as a `Reply`; as
    /// ``DBusConnection/call(_:path:interface:member:_:returning:timeout:)``.
    public func call<Reply: DBusDecodable>(
        _ member: String, _ arguments: [DBusValue] = [], returning reply: Reply.Type, timeout: Duration? = .seconds(25)
    ) async throws -> Reply {
        try await connection.call(destination, path: path, interface: interface, member: member, arguments, returning: Reply.self, timeout: timeout)
    }

    /// Every property of the interface, read as `Properties`.
    public func properties<Properties: DBusKeyedDecodable>(as type: Properties.Type, timeout: Duration = .seconds(25)) async throws -> Properties {
        try await connection.properties(Properties.self, of: interface, at: path, on: destination, timeout: timeout)
    }

    /// The value of the property `name`, read as a `Value`.
    public func property<Value: DBusDecodable>(_ name: String, as type: Value.Type, timeout: Duration = .seconds(25)) async throws -> Value {
        try await connection.property(name, of: interface, at: path, on: destination, as: Value.self, timeout: timeout)
    }

    /// The signal `member` of the interface from this object, its arguments read as `Arguments`;
    /// as ``DBusConnection/signals(matching:as:)``.
    public func signals<Arguments: DBusDecodable>(_ member: String, as type: Arguments.Type) async throws -> AsyncStream<DBusTypedSignal<Arguments>> {
        try await connection.signals(
            matching: DBusMatchRule(sender: destination, path: path, interface: interface, member: member), as: Arguments.self)
    }
}
