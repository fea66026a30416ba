import GPSCore

extension DBusConnection {
    /// The process's one connection to the bus at `address`, shared by every part of the program
    /// that asks for it: the GeoClue sources, the Bluetooth sensors and `BlueZ` all go through one
    /// socket, one sd-bus and one thread per bus, whatever their number.
    ///
    /// Each call returns a new holder of that connection. It is opened by the first holder, and
    /// closed once the last lets go (``close()``, or letting the value go); one that the bus
    /// closed (the bus went away) is replaced by a new one for the next holder. What a holder
    /// registers (signal streams and handlers, exported objects) lasts until it is let go or the
    /// connection closes.
    ///
    /// ```swift
    /// let bus = try DBusConnection.shared(.system)
    /// let owner = try await bus.nameOwner(of: "org.bluez")
    /// ```
    ///
    /// A service's own objects (a fake service in a test, an agent) belong on a connection of
    /// their own (``init(_:)``): the bus names a connection, not an object, and a program that
    /// drops its connection drops everything on it.
    ///
    /// - Throws: ``DBusError`` (``DBusError/Name/noServer``) when no bus listens at `address`.
    public static func shared(_ address: Address = .system) throws(DBusError) -> DBusConnection {
        let (loop, hold) = try SharedConnections.process.hold(address)
        return DBusConnection(sharing: loop, at: address, hold: hold)
    }
}

/// The connections ``DBusConnection/shared(_:)`` hands out: one per bus address, with the number
/// of its holders.
final class SharedConnections: Sendable {
    /// The process's.
    static let process = SharedConnections()

    private struct Entry {
        var loop: BusLoop
        var holders: Int
    }

    private let entries = Locked<[DBusConnection.Address: Entry]>([:])

    /// One holder's hold on a shared connection, let go once.
    final class Hold: Sendable {
        private let registry: SharedConnections
        private let address: DBusConnection.Address
        private let loop: BusLoop
        private let released = Locked(false)

        fileprivate init(registry: SharedConnections, address: DBusConnection.Address, loop: BusLoop) {
            self.registry = registry
            self.address = address
            self.loop = loop
        }

        var isReleased: Bool {
            released.withLock { $0 }
        }

        /// Lets go (the first time only): the connection closes if this was its last holder.
        func release() {
            let first = released.withLock { released in
                defer { released = true }
                return !released
            }
            guard first else { return }
            registry.release(loop, at: address)
        }
    }

    /// A new hold on the open connection to `address`, connecting first if there is none.
    func hold(_ address: DBusConnection.Address) throws(DBusError) -> (BusLoop, Hold) {
        if let loop = takeOpen(address) { return (loop, Hold(registry: self, address: address, loop: loop)) }
        // Connected outside the lock (it is I/O); another holder may have connected meanwhile.
        let connected = try BusLoop(address)
        let (loop, spare) = entries.withLock { entries -> (BusLoop, BusLoop?) in
            if let entry = entries[address], !entry.loop.isClosed {
                entries[address]?.holders += 1
                return (entry.loop, connected)
            }
            entries[address] = Entry(loop: connected, holders: 1)
            return (connected, nil)
        }
        spare?.close()
        return (loop, Hold(registry: self, address: address, loop: loop))
    }

    /// The open connection to `address` with one more holder, if there is one.
    private func takeOpen(_ address: DBusConnection.Address) -> BusLoop? {
        entries.withLock { entries in
            guard let entry = entries[address], !entry.loop.isClosed else { return nil }
            entries[address]?.holders += 1
            return entry.loop
        }
    }

    /// A holder of `loop` let go; the last one closes it.
    private func release(_ loop: BusLoop, at address: DBusConnection.Address) {
        let last = entries.withLock { entries -> Bool in
            // A connection the bus closed may have been replaced: its holders no longer count.
            guard let entry = entries[address], entry.loop === loop else { return true }
            entries[address]?.holders -= 1
            guard entry.holders <= 1 else { return false }
            entries[address] = nil
            return true
        }
        if last { loop.close() }
    }

    /// How many connections are open, and how many holders each has: for tests.
    var holders: [DBusConnection.Address: Int] {
        entries.withLock { $0.filter { !$0.value.loop.isClosed }.mapValues(\.holders) }
    }
}
