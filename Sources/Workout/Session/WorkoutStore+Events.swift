import Foundation
import GRDB
import LocationFacade

/// A recorded workout's events and laps.
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
        try Row.fetchAll(db, sql: "SELECT type, time, name FROM workout_event WHERE workout = ? ORDER BY ordinal", arguments: [key])
            .compactMap { row in
                WorkoutEvent.Kind(rawValue: row["type"]).map { WorkoutEvent($0, at: Date(timeIntervalSince1970: row["time"]), name: row["name"]) }
            }
    }

    /// The laps of a workout: the spans between its lap events (one lap, the whole workout, when
    /// it has none), each with the distance covered while moving, its active time (pauses and
    /// auto-pauses left out) and its mean heart rate.
    public func laps(of workoutID: UUID) async throws(WorkoutStoreError) -> [WorkoutLap] {
        guard let workout = try await workout(id: workoutID) else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        let events = try await events(of: workoutID)
        var points: [RoutePoint] = []
        for try await batch in routePoints(of: workoutID) { points += batch }
        let heartRate = try await samples(of: workoutID, type: .heartRate)
        return SessionFigures.laps(of: workout, events: events, points: points, heartRate: heartRate)
    }
}

extension WorkoutStore {
    /// The workout cut every `metres` of distance covered while moving (the last split shorter):
    /// when each was reached (between two points, in proportion) and the active time it took.
    /// An imported or chain-saved workout, which has no pauses, is active throughout.
    public func splits(of workoutID: UUID, every metres: Double) async throws(WorkoutStoreError) -> [WorkoutLap] {
        guard let workout = try await workout(id: workoutID) else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        let events = try await events(of: workoutID)
        var points: [RoutePoint] = []
        for try await batch in routePoints(of: workoutID) { points += batch }
        return SessionFigures.splits(of: workout, every: metres, events: events, points: points)
    }
}

/// Figures of a recorded workout worked out from its events and points: the same rules the
/// session applies live, so what is shown during the workout is what is stored after it.
enum SessionFigures {
    /// The spans in which the workout was active: outside user pauses and auto-pauses.
    static func activeSpans(start: Date, end: Date, events: [WorkoutEvent]) -> [ClosedRange<Date>] {
        var spans: [ClosedRange<Date>] = []
        var activeSince: Date? = start
        var userPaused = false
        var motionPaused = false
        for event in events {
            let wasActive = !userPaused && !motionPaused
            switch event.kind {
            case .pause: userPaused = true
            case .resume: userPaused = false
            case .motionPaused: motionPaused = true
            case .motionResumed: motionPaused = false
            case .lap, .marker: continue
            }
            let isActive = !userPaused && !motionPaused
            if wasActive, !isActive, let since = activeSince {
                if event.time > since { spans.append(since...event.time) }
                activeSince = nil
            } else if !wasActive, isActive {
                activeSince = event.time
            }
        }
        if let since = activeSince, end > since { spans.append(since...end) }
        return spans
    }

    /// Seconds of `spans` within `range`.
    static func seconds(of spans: [ClosedRange<Date>], within range: ClosedRange<Date>) -> TimeInterval {
        spans.reduce(0) { total, span in
            let lower = max(span.lowerBound, range.lowerBound)
            let upper = min(span.upperBound, range.upperBound)
            return total + max(0, upper.timeIntervalSince(lower))
        }
    }

    static func laps(of workout: WorkoutRecord, events: [WorkoutEvent], points: [RoutePoint], heartRate: [QuantitySample]) -> [WorkoutLap] {
        let spans = activeSpans(start: workout.start, end: workout.end, events: events)
        var bounds = [workout.start] + events.filter { $0.kind == .lap }.map(\.time).filter { $0 > workout.start && $0 < workout.end }
        bounds.append(workout.end)
        var laps: [WorkoutLap] = []
        for index in 0..<(bounds.count - 1) {
            let (start, end) = (bounds[index], bounds[index + 1])
            var distance = 0.0
            var previous: RoutePoint?
            for point in points {
                guard let time = point.location.time, time >= start, time <= end else { continue }
                if let previous, let previousTime = previous.location.time,
                   spans.contains(where: { $0.contains(previousTime) && $0.contains(time) }) {
                    distance += previous.location.distance(to: point.location)
                }
                previous = point
            }
            let rates = heartRate.filter { $0.start >= start && $0.start <= end }.map(\.value)
            laps.append(WorkoutLap(
                index: index + 1, start: start, end: end, distance: distance, duration: end.timeIntervalSince(start),
                activeDuration: seconds(of: spans, within: start...end),
                heartRateAverage: rates.isEmpty ? nil : rates.reduce(0, +) / Double(rates.count)))
        }
        return laps
    }

    static func splits(of workout: WorkoutRecord, every metres: Double, events: [WorkoutEvent], points: [RoutePoint]) -> [WorkoutLap] {
        guard metres > 0 else { return [] }
        let spans = activeSpans(start: workout.start, end: workout.end, events: events)
        var splits: [WorkoutLap] = []
        var splitStart = workout.start
        var covered = 0.0  // in the current split
        var previous: (location: Location, time: Date)?
        func close(at end: Date, distance: Double) {
            splits.append(WorkoutLap(
                index: splits.count + 1, start: splitStart, end: end, distance: distance,
                duration: end.timeIntervalSince(splitStart), activeDuration: seconds(of: spans, within: splitStart...max(splitStart, end))))
            splitStart = end
        }
        for point in points {
            guard let time = point.location.time else { continue }
            defer { previous = (point.location, time) }
            guard let (location, previousTime) = previous,
                  spans.contains(where: { $0.contains(previousTime) && $0.contains(time) }) else { continue }
            var step = location.distance(to: point.location)
            var from = previousTime
            while covered + step >= metres, step > 0 {
                let needed = metres - covered
                let at = from.addingTimeInterval(time.timeIntervalSince(from) * needed / step)
                close(at: at, distance: metres)
                step -= needed
                from = at
                covered = 0
            }
            covered += step
        }
        if covered > 0 { close(at: workout.end, distance: covered) }
        return splits
    }
}
