import Foundation
import LocationCore

/// The rules a route follows as its points arrive, batch by batch, checked before anything is
/// written (a value type: a failed batch leaves the copy that was kept untouched).
///
/// - Every point has a time, coordinates in range and finite measurements.
/// - Points arrive in time order. A point older than the one before it is refused
///   (``RoutePointProblem/outOfOrder(previous:)``) with its whole batch.
/// - Points may share a time: receivers that log several fixes a second often write whole
///   seconds. Both are kept, in the order given.
/// - A point equal to a kept point in time, latitude, longitude and altitude is an exact duplicate
///   (gpsd repeating a fix, a batch given twice) and is dropped, and counted in
///   ``WorkoutRoute/droppedDuplicates``. (Among points sharing one time, the last 64 kept are
///   compared, so a long run of equal times cannot make insertion quadratic.)
/// - Times are compared as the store keeps them: seconds since 1970, in a double.
struct RouteAccumulator: Sendable {
    /// Points kept so far; the next kept point's ordinal.
    private(set) var count = 0
    /// The segment of the last kept point.
    private(set) var segment = 0
    private var segmentBreakPending = false
    /// Times of the first and last kept points.
    private(set) var firstTime: Double?
    private(set) var lastTime: Double?
    /// The kept points at `lastTime` (usually one), to recognise exact duplicates.
    private var atLastTime: [Location] = []
    /// Points dropped as exact duplicates.
    private(set) var droppedDuplicates = 0
    /// The kept points' figures, each segment break a pause, as an import works them out: the
    /// totals and events of a workout saved without totals. `nil` for a route whose figures its
    /// saver works out (an importer's).
    private(set) var figures: TimelineFeed?

    /// How a checked batch is written: its kept points take ordinals from `firstOrdinal` on, in
    /// `segment`; the points at the indices in `dropped` (ascending) are skipped.
    struct Plan: Sendable {
        var firstOrdinal: Int
        var segment: Int
        var dropped: [Int]
    }

    /// An accumulator that works the route's figures out (`measuring`), or leaves them to its saver.
    init(measuring: Bool = true) {
        figures = measuring ? TimelineFeed(options: .asStored, events: []) : nil
    }

    /// Continues a route of which `points` (in ordinal order) are already written, as a resumed
    /// session continues its own.
    init(continuing points: [RoutePoint]) {
        guard let last = points.last else { return }
        count = last.ordinal + 1
        segment = last.segment
        firstTime = points.first?.location.time?.timeIntervalSince1970
        lastTime = last.location.time?.timeIntervalSince1970
        atLastTime = [last.location]
    }

    /// How many segments the kept points span.
    var segmentCount: Int {
        count == 0 ? 0 : segment + 1
    }

    /// Makes the next kept point start a new segment (no effect before the first point).
    mutating func startNewSegment() {
        if count > 0 { segmentBreakPending = true }
    }

    /// Checks `batch` against the rules and what came before; on success, takes it in and says
    /// how to write it. On failure nothing changes. `bounds` (seconds since 1970), when known,
    /// is the workout the points must lie in.
    mutating func take(_ batch: [Location], workoutID: UUID?, within bounds: ClosedRange<Double>?) throws(WorkoutStoreError) -> Plan {
        let firstOrdinal = count
        var next = self
        if next.segmentBreakPending && !batch.isEmpty { next.segment += 1 }
        let batchSegment = next.segment
        var startsSegment = next.segmentBreakPending
        var dropped: [Int] = []
        for (indexInBatch, location) in batch.enumerated() {
            func refuse(_ problem: RoutePointProblem) -> WorkoutStoreError {
                .invalidRoutePoint(workoutID: workoutID, index: next.count, indexInBatch: indexInBatch, problem: problem)
            }
            if let problem = Validation.problem(with: location) { throw refuse(problem) }
            let time = location.time!.timeIntervalSince1970
            if let bounds, !bounds.contains(time) {
                throw refuse(.outsideWorkout(
                    start: Date(timeIntervalSince1970: bounds.lowerBound), end: Date(timeIntervalSince1970: bounds.upperBound)))
            }
            let before = next.lastTime
            if let last = next.lastTime {
                if time < last { throw refuse(.outOfOrder(previous: Date(timeIntervalSince1970: last))) }
                if time == last {
                    if next.atLastTime.contains(where: { Self.isDuplicate($0, of: location) }) {
                        dropped.append(indexInBatch)
                        next.droppedDuplicates += 1
                        continue
                    }
                    if next.atLastTime.count == Self.duplicateWindow { next.atLastTime.removeFirst() }
                    next.atLastTime.append(location)
                } else {
                    next.atLastTime = [location]
                }
            } else {
                next.atLastTime = [location]
                next.firstTime = time
            }
            next.lastTime = time
            next.count += 1
            if next.figures != nil {
                if startsSegment, let before {
                    next.figures!.append(WorkoutEvent(.pause, at: Date(timeIntervalSince1970: before)))
                    next.figures!.append(WorkoutEvent(.resume, at: Date(timeIntervalSince1970: time)))
                }
                next.figures!.add(TimelinePoint(ordinal: next.count - 1, segment: batchSegment, location: location))
            }
            startsSegment = false
        }
        if next.count == count {
            // Nothing kept: a pending segment break waits for the next point.
            next.segment = segment
        } else {
            next.segmentBreakPending = false
        }
        self = next
        return Plan(firstOrdinal: firstOrdinal, segment: batchSegment, dropped: dropped)
    }

    /// How many kept points sharing the last time are compared with a new one.
    static let duplicateWindow = 64

    private static func isDuplicate(_ kept: Location, of candidate: Location) -> Bool {
        kept.latitude == candidate.latitude && kept.longitude == candidate.longitude && kept.altitude == candidate.altitude
    }
}

extension RouteAccumulator.Plan {
    /// The ordinal the point at `index` of its batch takes, or `nil` when it was dropped.
    func ordinal(ofIndex index: Int) -> Int? {
        var before = 0
        for dropped in dropped {
            if dropped == index { return nil }
            if dropped > index { break }
            before += 1
        }
        return firstOrdinal + index - before
    }

    /// Calls `body` with the ordinal and location of each kept point of `batch`, in order.
    func forEachKept(in batch: [Location], _ body: (Int, Location) throws -> Void) rethrows {
        var ordinal = firstOrdinal
        var skip = dropped.makeIterator()
        var nextSkipped = skip.next()
        for (index, location) in batch.enumerated() {
            if index == nextSkipped {
                nextSkipped = skip.next()
                continue
            }
            try body(ordinal, location)
            ordinal += 1
        }
    }
}
