import Foundation

/// The rows a session has recorded and not yet written, in the order they came. The writer takes
/// a ``Batch`` (a snapshot), writes it in one transaction, and only then are its rows removed: a
/// failed write loses nothing.
struct WriteQueue: Sendable {
    /// How many rows of each kind a write took (from the front).
    struct Batch: Sendable {
        var start: Date
        var staging: WorkoutStore.SessionStaging?
        var points: [SessionEngine.StagedPoint]
        var events: [(ordinal: Int, event: WorkoutEvent)]
        var samples: [QuantitySample]
    }

    let maximumPoints: Int
    var points: [SessionEngine.StagedPoint] = []
    var events: [(ordinal: Int, event: WorkoutEvent)] = []
    var samples: [QuantitySample] = []
    var nextEventOrdinal = 0
    var staging: WorkoutStore.SessionStaging?
    var storage: WorkoutSession.StorageState = .ok

    init(maximumPoints: Int) {
        self.maximumPoints = max(1, maximumPoints)
    }

    /// Whether the session holds all it may (the store has been failing).
    var isFull: Bool {
        points.count >= maximumPoints || samples.count >= 4 * maximumPoints
    }

    var isEmpty: Bool { points.isEmpty && events.isEmpty && samples.isEmpty }

    mutating func add(_ output: SessionEngine.Output) {
        points += output.points
        for event in output.events {
            events.append((nextEventOrdinal, event))
            nextEventOrdinal += 1
        }
    }

    /// An event is written at once (a pause may be the last thing before a crash); fixes, and
    /// samples, when a second's worth (by their own times) has come. The flusher writes anything
    /// held within a second of the clock anyway, so a lone sample waits no longer. (Samples were
    /// written at once when no fix was held: a sensor sending 1,000 measurements a second then
    /// made a transaction of each.)
    func isDue(now: Double?) -> Bool {
        if !events.isEmpty { return true }
        if let first = points.first?.location.time?.timeIntervalSince1970, let now, now - first >= 1 { return true }
        if let first = samples.first?.start, let last = samples.last?.start { return last.timeIntervalSince(first) >= 1 }
        return false
    }

    /// What is held now, to write. The batch gets its own copy of the rows: sharing the queue's
    /// arrays, every fix that came while the batch was being written copied the whole queue to
    /// append itself (copy on write), a copy per fix of everything held.
    /// With `stagesEmpty`, a batch with nothing in it when nothing is staged yet: an indoor
    /// session is staged when it starts, before any sample comes (a workout with no sensor at
    /// all is its time alone).
    func batch(start: Double?, stagesEmpty: Bool = false) -> Batch? {
        guard !isEmpty || (stagesEmpty && staging == nil),
              let start = start ?? points.first.map({ $0.location.time!.timeIntervalSince1970 }) else { return nil }
        return Batch(
            start: Date(timeIntervalSince1970: start), staging: staging, points: Self.copy(points), events: Self.copy(events),
            samples: Self.copy(samples))
    }

    /// A copy of `rows` in a buffer of its own (`Array(rows)` would share the buffer).
    private static func copy<Row>(_ rows: [Row]) -> [Row] {
        rows.isEmpty ? [] : rows.withUnsafeBufferPointer { Array($0) }
    }

    mutating func remove(_ batch: Batch) {
        points.removeFirst(min(points.count, batch.points.count))
        events.removeFirst(min(events.count, batch.events.count))
        samples.removeFirst(min(samples.count, batch.samples.count))
    }

    mutating func clear() {
        points = []
        events = []
        samples = []
    }
}
