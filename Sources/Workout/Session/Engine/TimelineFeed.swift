import Foundation

/// Feeds a stored workout to a ``SessionTimeline``: its points in order, each event after the
/// points up to its time (an event at a point's time comes after that point, as it was recorded),
/// and its distance samples among them, as ``DistanceSourcing`` decides them, so that a workout
/// whose distance is a sensor's (indoors, or across a tunnel) gets it back.
struct TimelineFeed: Sendable {
    private(set) var timeline: SessionTimeline
    private var sourcing: DistanceSourcing
    private var events: [WorkoutEvent]
    private var next = 0

    init(options: SessionTimeline.Options, events: [WorkoutEvent]) {
        timeline = SessionTimeline(options: options)
        sourcing = DistanceSourcing(source: options.distanceSource, threshold: nil, expectsFixes: options.expectsFixes)
        self.events = events
    }

    /// Starts the time line at `time`, before its first point: the start of an imported workout
    /// whose first moment has no position (its elapsed time and duration count from there).
    mutating func begin(at time: Double) {
        timeline.begin(at: time)
    }

    /// Adds an event after those given, for a feed whose events arrive with its points (an import
    /// reading a file): it is applied before the first later point, as a stored one would be.
    mutating func append(_ event: WorkoutEvent) {
        events.append(event)
    }

    /// Feeds the events before `point`, then `point`. Returns the point's fate, and the ordinal
    /// and segment of an earlier point that an event before it made count (a resume's first point).
    @discardableResult
    mutating func add(_ point: TimelinePoint) -> (fate: SessionTimeline.Fate, anchored: (ordinal: Int, segment: Int)?) {
        var anchored: (ordinal: Int, segment: Int)?
        for reading in sourcing.point(at: point.time, usable: timeline.options.isAccurate(point.horizontalAccuracy)) {
            anchored = add(reading) ?? anchored
        }
        anchored = applyEvents(before: point.time) ?? anchored
        return (timeline.add(point), anchored)
    }

    /// Feeds a sample, in time order (by its end) among the points: a distance moves the time
    /// line on where the workout's distance source takes it; other types leave a stored time
    /// line as it is (they decide nothing without a motion detector).
    mutating func add(_ sample: QuantitySample) {
        guard sample.type == .distance, let reading = SensorReading(sample) else { return }
        for decided in sourcing.take(reading) { add(decided) }
    }

    @discardableResult
    private mutating func add(_ reading: TimelineReading) -> (ordinal: Int, segment: Int)? {
        let anchored = applyEvents(before: reading.time)
        timeline.add(reading)
        return anchored
    }

    private mutating func applyEvents(before time: Double) -> (ordinal: Int, segment: Int)? {
        var anchored: (Int, Int)?
        while next < events.count, events[next].time.timeIntervalSince1970 < time {
            if let ordinal = timeline.apply(events[next]) { anchored = (ordinal, timeline.segment) }
            next += 1
        }
        return anchored
    }

    /// Feeds the remaining readings and events and ends the time line at `end`. Returns the
    /// finished time line.
    mutating func finish(at end: Double) -> SessionTimeline {
        for reading in sourcing.finish() { add(reading) }
        while next < events.count {
            timeline.apply(events[next])
            next += 1
        }
        timeline.finish(at: end)
        return timeline
    }

    /// Feeds the remaining events; returns the ordinal and segment of a point a resume among
    /// them made count, if any.
    mutating func flushEvents() -> (ordinal: Int, segment: Int)? {
        var anchored: (Int, Int)?
        for reading in sourcing.finish() { anchored = add(reading) ?? anchored }
        while next < events.count {
            if let ordinal = timeline.apply(events[next]) { anchored = (ordinal, timeline.segment) }
            next += 1
        }
        return anchored
    }
}
