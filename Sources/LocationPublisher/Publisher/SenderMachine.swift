/// Where each destination's sender stands, as a pure state machine: the publisher tells it what
/// happened (a position appended or held in memory, a sender's round beginning, finding nothing,
/// failing, delivering) under its lock, and reads from it what a sender is to send. No clock,
/// lock, outbox or task: a test drives it alone.
struct SenderMachine: Sendable {
    /// What a destination's sender is doing.
    enum Phase: Sendable, Hashable {
        /// It reads what waits from the outbox: a backlog, what piled up after a failure, or what
        /// came while it was a batch behind.
        case reading
        /// It has sent all the outbox held for it: each new position is handed to it as it is
        /// appended (`handed`, in the order appended), and it sends them without reading them back.
        case caughtUp(handed: [PositionMessage])
        /// Caught up, and it found nothing to send since the last position was queued: it waits for
        /// the next.
        case waiting

        /// `message` was appended: a caught-up sender gets it, unless it has `batchSize` handed
        /// already (it fell behind: it reads the outbox again, in order).
        mutating func hand(_ message: PositionMessage, batchSize: Int) {
            switch self {
            case .reading:
                break
            case .waiting:
                self = .caughtUp(handed: [message])
            case var .caughtUp(handed) where handed.count < batchSize:
                self = .reading  // the positions uniquely referenced while they grow
                handed.append(message)
                self = .caughtUp(handed: handed)
            case .caughtUp:
                self = .reading
            }
        }
    }

    /// Each destination's sender, by the destination's name.
    private(set) var phases: [String: Phase]
    /// Per destination, the newest position kept in memory while the outbox cannot be written.
    private(set) var held: [String: PositionMessage] = [:]
    /// The positions held in memory that a newer one replaced before they were sent.
    private(set) var droppedInMemory = 0
    /// The most positions handed to a sender before it falls behind and reads the outbox again.
    let batchSize: Int

    /// The senders of `destinations`, each reading the outbox first.
    init(destinations: [String], batchSize: Int) {
        phases = Dictionary(uniqueKeysWithValues: destinations.map { ($0, .reading) })
        self.batchSize = batchSize
    }

    /// Whether every sender waits for the next position, with nothing held in memory: all that was
    /// queued is sent.
    var allWaiting: Bool {
        held.isEmpty && phases.values.allSatisfy { $0 == .waiting }
    }

    /// `message` was appended to the outbox for every destination: it is handed to each caught-up
    /// sender, unless that sender has a batch handed already (it fell behind: it reads the outbox
    /// again, in order).
    mutating func appended(_ message: PositionMessage) {
        // Each phase changed where it is: a copy of the dictionary (or of a phase's positions)
        // for every position appended would cost what a live position is meant to save.
        for index in phases.indices { phases.values[index].hand(message, batchSize: batchSize) }
    }

    /// The outbox could not take `message`: it is kept in memory for every destination instead
    /// (replacing, and counting as dropped, the one held before), and every sender reads again
    /// (the outbox, once it can be written; the held position first).
    mutating func heldInMemory(_ message: PositionMessage) {
        for name in phases.keys {
            if held[name] != nil { droppedInMemory += 1 }
            held[name] = message
            phases[name] = .reading
        }
    }

    /// What the sender of `name` begins a round with: the positions handed to it (taken from it),
    /// whether it is caught up, and the position held in memory for it.
    mutating func beginRound(_ name: String) -> (handed: [PositionMessage], caughtUp: Bool, held: PositionMessage?) {
        switch phases[name] {
        case let .caughtUp(handed):
            phases[name] = .caughtUp(handed: [])
            return (handed, true, held[name])
        case .waiting:
            return ([], true, held[name])
        case .reading, nil:
            return ([], false, held[name])
        }
    }

    /// The sender of `name` found nothing to send, and nothing was queued since its round began:
    /// it waits for the next position (caught up, unless a position is held for it).
    mutating func foundNothing(_ name: String) {
        guard phases[name] != nil, held[name] == nil else { return }
        phases[name] = .waiting
    }

    /// The sender of `name` failed to deliver: what was handed to it is in the outbox, which it
    /// reads again after its backoff.
    mutating func failed(_ name: String) {
        guard phases[name] != nil else { return }
        phases[name] = .reading
    }

    /// The sender of `name` delivered (or had rejected) the position `id`: if it was the one
    /// held in memory for it, it is held no more.
    mutating func delivered(_ id: Int64, to name: String) {
        if held[name]?.id == id { held[name] = nil }
    }
}
