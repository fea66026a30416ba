import Foundation
import GRDB
import LocationCore

/// A recorded workout's events, laps and splits: its points and events read once, in order, and
/// fed to the session engine's ``SessionTimeline``, as the session fed them live.
extension WorkoutStore {
    /// The events of a recorded workout, in order (none for an imported or chain-saved one).
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold it.
    public func events(of workoutID: UUID) async throws(WorkoutStoreError) -> [WorkoutEvent] {
        let events = try await read { db -> [WorkoutEvent]? in
            guard let stored = try WorkoutRows.find(workoutID, in: db) else { return nil }
            return try Self.events(ofWorkoutKey: stored.key, in: db)
        }
        guard let events else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        return events
    }

    /// The events of the workout row `key`, in order. A kind from a newer version is left out
    /// rather than misread.
    static func events(ofWorkoutKey key: Int64, in db: Database) throws -> [WorkoutEvent] {
        try Row.fetchAll(db, sql: "SELECT type, time, name, lap_trigger FROM workout_event WHERE workout = ? ORDER BY ordinal", arguments: [key])
            .compactMap { row in
                WorkoutEvent.Kind(rawValue: row["type"]).map {
                    WorkoutEvent(
                        $0, at: Date(timeIntervalSince1970: row["time"]), name: row["name"],
                        trigger: (row["lap_trigger"] as String?).flatMap(WorkoutEvent.LapTrigger.init(rawValue:)))
                }
            }
    }

    /// The laps of a workout: the spans between its lap events (one lap, the whole workout, when
    /// it has none), each with the distance covered while active, its active time (pauses and
    /// auto-pauses left out) and the figures of its samples (heart rate, cadence, power...), as
    /// the session that recorded it counted them. An imported or chain-saved workout is one lap,
    /// active throughout.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold it.
    public func laps(of workoutID: UUID) async throws(WorkoutStoreError) -> [WorkoutLap] {
        let laps = try await read { db -> [WorkoutLap]? in
            guard let timeline = try Self.timeline(of: workoutID, splitEvery: nil, in: db) else { return nil }
            var laps = timeline.timeline.laps
            try Self.addSampleFigures(to: &laps, workoutKey: timeline.key, in: db)
            return laps
        }
        guard let laps else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        return laps
    }

    /// The workout cut every `metres` of distance covered while active (the last split shorter):
    /// when each was reached (between two points, in proportion) and the active time it took.
    /// An imported or chain-saved workout, which has no pauses, is active throughout.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold it.
    public func splits(of workoutID: UUID, every metres: Double) async throws(WorkoutStoreError) -> [WorkoutLap] {
        guard metres > 0, metres.isFinite else { return [] }
        let splits = try await read { db -> [WorkoutLap]? in
            try Self.timeline(of: workoutID, splitEvery: metres, in: db)?.timeline.splits
        }
        guard let splits else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        return splits
    }

    /// The time-line options a stored workout is read with: its session's accuracy limit, or
    /// every point counting (imported, chain-saved, or recorded before configurations were kept);
    /// and where its distance came from, as its metadata says (``SensorDistance``).
    static func timelineOptions(ofWorkoutKey key: Int64, in db: Database) throws -> SessionTimeline.Options {
        var options = SessionTimeline.Options.asStored
        options.maximumHorizontalAccuracy = try sessionConfiguration(ofWorkoutKey: key, in: db)?.fixRules.maximumHorizontalAccuracy
        let metadata = try Self.metadata(ofWorkoutKey: key, in: db)
        options.expectsFixes = try Bool.fetchOne(db, sql: "SELECT 1 FROM route WHERE workout = ? AND point_count > 0", arguments: [key]) ?? false
        return SensorDistance.timelineOptions(options, metadata: metadata)
    }

    /// The stored workout's time line, fed its points and events; `nil` when it is not stored.
    private static func timeline(
        of workoutID: UUID, splitEvery metres: Double?, in db: Database
    ) throws -> (timeline: SessionTimeline, key: Int64)? {
        guard let stored = try WorkoutRows.find(workoutID, in: db) else { return nil }
        var options = try timelineOptions(ofWorkoutKey: stored.key, in: db)
        options.splitDistance = metres
        var feed = TimelineFeed(options: options, events: try events(ofWorkoutKey: stored.key, in: db))
        feed.begin(at: stored.start)
        try feedRoute(ofWorkoutKey: stored.key, to: &feed, in: db)
        return (feed.finish(at: stored.end), stored.key)
    }

    /// Feeds the points of the workout row `key` and its distance samples to `feed`, in time
    /// order (a sample after the points before its middle, ``SensorReading/placement``).
    static func feedRoute(ofWorkoutKey key: Int64, to feed: inout TimelineFeed, in db: Database) throws {
        let points = try Row.fetchCursor(db, sql: """
            SELECT \(timelinePointColumns.split(separator: ",").map { "route_point." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
            FROM route_point JOIN route ON route.id = route_point.route
            WHERE route.workout = ? ORDER BY route_point.ordinal
            """, arguments: [key])
        try self.feed(points, distances: distanceSamples(ofWorkoutKey: key, in: db), to: &feed)
    }

    /// The columns of `route_point` a ``TimelinePoint`` is read from, in the order ``feed(_:distances:to:)`` reads them.
    static let timelinePointColumns = "ordinal, segment, time, latitude, longitude, altitude, speed, h_accuracy"

    /// Feeds `points` (rows of ``timelinePointColumns``, in order) and `distances` to `feed`, merged by time.
    static func feed(_ points: RowCursor, distances: SampleQueue, to feed: inout TimelineFeed) throws {
        var distances = distances
        while let row = try points.next() {
            let point = TimelinePoint(
                ordinal: row[0], segment: row[1], time: row[2], latitude: row[3], longitude: row[4], altitude: row.optionalDouble(5),
                speed: row.optionalDouble(6), horizontalAccuracy: row.optionalDouble(7))
            while let sample = distances.peek(), SensorReading.placement(of: sample) < point.time {
                feed.add(sample)
                distances.advance()
            }
            feed.add(point)
        }
        while let sample = distances.peek() {
            feed.add(sample)
            distances.advance()
        }
    }

    /// The distance samples of the workout row `key`, by their middle.
    static func distanceSamples(ofWorkoutKey key: Int64, in db: Database) throws -> SampleQueue {
        let rows = try Row.fetchAll(db, sql: """
            SELECT start_time, end_time, value FROM quantity_sample WHERE workout = ? AND type = ? ORDER BY start_time + end_time, start_time
            """, arguments: [key, QuantityType.distance.rawValue])
        return SampleQueue(rows.map { row in
            QuantitySample(type: .distance, value: row[2], start: Date(timeIntervalSince1970: row[0]), end: Date(timeIntervalSince1970: row[1]))
        })
    }

    /// The figures of each type of sample of a workout (heart rate, cadence, power...), the mean
    /// weighted by time as ``SampleFigures`` says, zeros counted as the workout's metadata says
    /// (``SampleAveraging``): what the session showed live when it ended, and
    /// what `workout show` prints.
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold it.
    public func sampleFigures(of workoutID: UUID) async throws(WorkoutStoreError) -> [QuantityType: SampleFigures] {
        let figures = try await read { db -> [QuantityType: SampleFigures]? in
            guard let stored = try WorkoutRows.find(workoutID, in: db) else { return nil }
            var figures: [QuantityType: SampleFigures] = [:]
            let averaging = try Self.sampleAveraging(ofWorkoutKey: stored.key, in: db)
            var events = try Self.events(ofWorkoutKey: stored.key, in: db)[...]
            try Self.forEachSample(ofWorkoutKey: stored.key, in: db) { sample in
                while let event = events.popFirst(where: { $0.time <= sample.end }) {
                    for type in figures.keys { figures[type]?.apply(event) }
                }
                figures[sample.type].add(sample, averaging: averaging)
            }
            return figures
        }
        guard let figures else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        return figures
    }

    /// Calls `body` with each sample of the workout row `key`, in time order (by start, then
    /// end). A type from a newer version is left out.
    static func forEachSample(ofWorkoutKey key: Int64, in db: Database, _ body: (QuantitySample) throws -> Void) throws {
        let samples = try Row.fetchCursor(db, sql: """
            SELECT type, start_time, end_time, value FROM quantity_sample WHERE workout = ? ORDER BY start_time, end_time, type
            """, arguments: [key])
        while let row = try samples.next() {
            guard let type = QuantityType(rawValue: row[0]) else { continue }
            try body(QuantitySample(
                type: type, value: row[3], start: Date(timeIntervalSince1970: row[1]), end: Date(timeIntervalSince1970: row[2])))
        }
    }

    /// Adds to each lap the figures of the samples that began in it.
    private static func addSampleFigures(to laps: inout [WorkoutLap], workoutKey: Int64, in db: Database) throws {
        guard !laps.isEmpty else { return }
        var index = 0
        let averaging = try sampleAveraging(ofWorkoutKey: workoutKey, in: db)
        var events = try events(ofWorkoutKey: workoutKey, in: db)[...]
        try forEachSample(ofWorkoutKey: workoutKey, in: db) { sample in
            while let event = events.popFirst(where: { $0.time <= sample.end }) {
                for lap in laps.indices { for type in laps[lap].samples.keys { laps[lap].samples[type]?.apply(event) } }
            }
            while index < laps.count - 1, sample.start >= laps[index].end { index += 1 }
            guard sample.start >= laps[index].start, sample.start <= laps[index].end else { return }
            laps[index].samples[sample.type].add(sample, averaging: averaging)
        }
        for index in laps.indices {
            laps[index].heartRateAverage = laps[index].samples[.heartRate]?.average
        }
    }
}

/// Samples taken one by one from the front, in the order given.
struct SampleQueue: Sendable {
    private let samples: [QuantitySample]
    private var next = 0

    init(_ samples: [QuantitySample]) {
        self.samples = samples
    }

    func peek() -> QuantitySample? {
        next < samples.count ? samples[next] : nil
    }

    mutating func advance() {
        next += 1
    }
}
