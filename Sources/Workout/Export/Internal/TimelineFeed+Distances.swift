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
