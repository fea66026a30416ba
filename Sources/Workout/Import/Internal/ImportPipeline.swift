import Foundation
import LocationCore

/// What an importer's reader thread sends to the task that saves, whatever the format: route
/// points as they are read, each workout when the file says it is over (a GPX track, a FIT
/// file's activity, a TCX activity: `Collected`), the end of the file (`Summary`, the reader's
/// own report) or why reading stopped (`Stop`).
enum ImportItem<Collected: Sendable, Summary: Sendable, Stop: Sendable>: Sendable {
    /// Route points and samples of the workout being read, in order.
    case points(PointBatch)
    /// The workout being read is over: everything but its points.
    case finished(Collected)
    /// The file is read.
    case end(Summary)
    /// Reading stopped: the file's error, or (strict) what the import refused.
    case stopped(Stop)
}

/// The one import pipeline that GPX, FIT and TCX plug into: the format's reader and collector
/// run on a thread of their own and send ``ImportItem``s through a bounded ``HandOff``; the
/// calling task only saves them. A fast parser waits for a slow disk instead of filling memory.
enum ImportPipeline {
    /// Runs `read` on a thread named `thread` and `save` on the calling task, joined by a hand-off
    /// of a few batches. When `save` returns or throws, the hand-off is closed (the reader stops
    /// at its next event) and the thread is waited for, so nothing of the import (a progress
    /// call, a parse) runs after this returns.
    ///
    /// - Parameters:
    ///   - read: reads the file, sending what it collects through the outlet (which stops it,
    ///     by throwing, once the saving side went away).
    ///   - save: takes the items until the end and saves them.
    static func run<Item: Sendable, Report, Failure: Error>(
        thread name: String,
        read: @escaping @Sendable (ImportOutlet<Item>) -> Void,
        save: (HandOff<Item>) async throws(Failure) -> Report
    ) async throws(Failure) -> Report {
        let handOff = HandOff<Item>(capacity: 4)
        let (readerEnded, endReader) = AsyncStream.makeStream(of: Never.self)
        let reader = Thread {
            defer { endReader.finish() }
            read(ImportOutlet(handOff))
            handOff.finish()
        }
        reader.name = name
        reader.start()
        let result: Result<Report, Failure>
        do throws(Failure) {
            result = .success(try await save(handOff))
        } catch {
            result = .failure(error)
        }
        handOff.close()
        for await _ in readerEnded {}
        return try result.get()
    }
}

/// The reader thread's end of an import's hand-off: a collector sends through it, and it stops
/// the reader (``Stopped``, thrown from the collector's event handler) once the saving task went
/// away, so the rest of the file is not read for nothing.
final class ImportOutlet<Item: Sendable> {
    private let send: (Item) -> Bool
    private let isClosed: () -> Bool
    /// Whether the saving side went away; the reader's error is then this and nothing to report.
    private(set) var stopped = false

    /// Thrown from a collector's handler to stop its reader.
    struct Stopped: Error {}

    /// An outlet into `handOff`.
    convenience init(_ handOff: HandOff<Item>) {
        self.init(send: { handOff.send($0) }, isClosed: { handOff.isClosed })
    }

    /// An outlet that hands each item to `send` (`false`: the saving side went away) and asks
    /// `isClosed` at every event (a test drives a collector so, with no thread).
    init(send: @escaping (Item) -> Bool, isClosed: @escaping () -> Bool) {
        self.send = send
        self.isClosed = isClosed
    }

    /// Throws once the saving side went away: checked at every event the reader reads.
    func checkOpen() throws(Stopped) {
        if isClosed() {
            stopped = true
            throw Stopped()
        }
    }

    /// Sends `item`, waiting for room; throws once the saving side went away.
    func deliver(_ item: Item) throws(Stopped) {
        if !send(item) {
            stopped = true
            throw Stopped()
        }
    }

    /// Sends `item` at the end of a read (its summary, its error), when there is still someone to
    /// take it: after the saving side went away, nothing is.
    func deliverLast(_ item: Item) {
        guard !stopped else { return }
        // Dropped when the saver closed meanwhile: it has stopped taking, and nothing is owed to it.
        _ = send(item)
    }
}

/// The saving side of an import, the same for every format: the route of the workout being read
/// is written as its batches come (out of sight, under a staged row, checked against the
/// workout's times when committed), then committed when its collector says it is over, or
/// discarded.
struct ImportSaver {
    let store: WorkoutStore
    /// The route of the workout being read, from its first batch.
    private var builder: RouteBuilder?
    /// The id the workout being read is saved under, unless the file is our own export, which
    /// names its own.
    private(set) var workoutID = UUID()

    init(store: WorkoutStore) {
        self.store = store
    }

    /// Whether the workout being read has sent any points or samples.
    var hasBatches: Bool { builder != nil }

    /// What a commit saved.
    struct Committed {
        var outcome: SaveOutcome
        /// Route points kept.
        var points: Int
        /// Points the route dropped as duplicates (the collector's own are counted apart).
        var duplicatesDropped: Int
    }

    /// Writes a batch of the workout being read.
    mutating func insert(_ batch: PointBatch) async throws(WorkoutStoreError) {
        let current = currentBuilder()
        if batch.newSegment { try await current.startNewSegment() }
        try await current.insert(batch.locations, samples: batch.samples, extensions: batch.extensions)
    }

    /// Saves `workout` with the batches written for it (none: a workout without a route), its
    /// `samples` beside them and its `events`; the next batch belongs to the next workout.
    mutating func commit(
        _ workout: WorkoutRecord, samples: [QuantitySample] = [], events: [WorkoutEvent], source: String
    ) async throws(WorkoutStoreError) -> Committed {
        let current = currentBuilder()
        builder = nil
        workoutID = UUID()
        let outcome = try await current.commit(workout, samples: samples, events: events, metadata: ["source": source])
        return Committed(outcome: outcome, points: await current.pointCount, duplicatesDropped: await current.droppedDuplicates)
    }

    /// Drops what was written for the workout being read.
    mutating func discard() async {
        await builder?.discard()
        builder = nil
    }

    /// The place in the file (a line, a byte offset) that a store's refusal points to: the refused
    /// point's, when the store named one of the batch whose places are `places`, else `fallback`.
    static func place(of error: WorkoutStoreError, in places: [Int] = [], else fallback: Int) -> Int {
        if case let .invalidRoutePoint(_, _, indexInBatch?, _) = error, places.indices.contains(indexInBatch) {
            return places[indexInBatch]
        }
        return fallback
    }

    /// A builder for the route of the workout being read, whose times are not known yet.
    private mutating func currentBuilder() -> RouteBuilder {
        if let builder { return builder }
        let made = RouteBuilder(store: store, for: WorkoutRecord(
            id: workoutID, activityType: .other, start: RFC3339.supportedRange.lowerBound, end: RFC3339.supportedRange.upperBound))
        builder = made
        return made
    }
}
