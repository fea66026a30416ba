/// Things decided under a lock and done outside it, in the order they were decided, by one caller
/// at a time: a caller that finds another doing them leaves its own to that one, which takes
/// them in turn before it stops. Pure: the lock is its owner's. Under the lock, a caller appends
/// and asks ``beginTurn()``; if it has the turn, it takes ``next()`` under the lock and does it
/// outside, until `next()` is `nil`.
struct InOrderQueue<Element: Sendable>: Sendable {
    private enum Phase: Sendable {
        case idle
        /// A caller is doing the queued elements; others leave theirs to it.
        case inTurn
    }

    private var phase = Phase.idle
    private var pending: [Element] = []

    /// Queues `element` after those decided before it.
    mutating func append(_ element: Element) {
        pending.append(element)
    }

    /// Queues `elements` after those decided before them.
    mutating func append(contentsOf elements: some Sequence<Element>) {
        pending.append(contentsOf: elements)
    }

    /// Whether the caller now has the turn: something waits and no one else has it.
    mutating func beginTurn() -> Bool {
        guard case .idle = phase, !pending.isEmpty else { return false }
        phase = .inTurn
        return true
    }

    /// The next element for the caller in turn; `nil` ends its turn.
    mutating func next() -> Element? {
        guard !pending.isEmpty else {
            phase = .idle
            return nil
        }
        return pending.removeFirst()
    }

    /// Every element waiting, for the caller in turn, in order; `nil` ends its turn.
    mutating func nextBatch() -> [Element]? {
        guard !pending.isEmpty else {
            phase = .idle
            return nil
        }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }
}
