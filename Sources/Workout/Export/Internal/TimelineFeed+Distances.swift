import Foundation

/// How the FIT and TCX exports feed a workout's wheel, foot pod or trainer `.distance` samples to
/// its time line as they write it, in the order the store feeds them (``WorkoutStore/laps(of:)``):
/// a sample before the point it ends before, else after it; so the distance a record or track
/// point carries is the one the store's time line counts there.
extension TimelineFeed {
    /// Feeds the distance samples of `cursor` that end before `time` (and, `including`, at it).
    mutating func addDistances(from cursor: inout SampleCursor, endingBefore time: Double, including: Bool = false)
        async throws(WorkoutStoreError) {
        while let sample = try await cursor.head(), sample.end < time || (including && sample.end == time) {
            cursor.advance()
            add(QuantitySample(
                type: .distance, value: sample.value, start: Date(timeIntervalSince1970: sample.start),
                end: Date(timeIntervalSince1970: sample.end)))
        }
    }

    /// Feeds the distances up to a record (a FIT record, a TCX track point) at `time`, whose point,
    /// if it holds one, is fed; returns the distance the record carries (`nil` for none: no route
    /// and no distances).
    ///
    /// - With a route, the distance counted by the record's time: the distances that end by then
    ///   fed, and, where the workout counts a sensor's (its source the sensor, or automatic once a
    ///   point came: `afterFirstPoint`), the readings the time line still holds decided as if
    ///   nothing came after (``distanceDecided``). A tunnel's wheel is released a reading behind,
    ///   and the one before a stop only after it: the record at the stop then carries it, and our
    ///   import, which turns the records' differences back into the sensor's samples, counts it
    ///   before the stop, as the session did. (Automatic's readings in the first 5 s after a fix
    ///   wait for the stretch to be known as a gap: they come in the record that knows it.)
    /// - Without a route, the distance through the record's interval (`through`: its second, a
    ///   trainer's distance over it), decided.
    mutating func recordDistance(
        at time: Double, through: Double, from cursor: inout SampleCursor?, hasRoute: Bool, afterFirstPoint: Bool
    ) async throws(WorkoutStoreError) -> Double? {
        guard cursor != nil else { return hasRoute ? timeline.distance : nil }
        guard hasRoute else {
            try await addDistances(from: &cursor!, endingBefore: through, including: true)
            return distanceDecided
        }
        try await addDistances(from: &cursor!, endingBefore: time, including: true)
        let decides = switch timeline.options.distanceSource {
        case .gps: false
        case .sensor: true
        // Before the first fix a reading waits for it, and would count only if none came.
        case .automatic: afterFirstPoint
        }
        return decides ? distanceDecided : timeline.distance
    }

    /// The distance counted once the readings fed so far are decided: the time line holds a
    /// sensor's reading until the next input shows what came with it (``DistanceSourcing``), so a
    /// record's distance, the last's above all, would lag a reading behind. Worked out on a copy:
    /// the feed goes on as it was.
    var distanceDecided: Double {
        var probe = self
        _ = probe.flushEvents()
        return probe.timeline.distance
    }
}
