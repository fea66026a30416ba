import Foundation
import LocationFacade
import Testing
import TestSupport
import Workout

@Suite("Track statistics")
struct TrackStatisticsTests {
    static func point(_ latitude: Double, _ longitude: Double, ele: Double? = nil, at seconds: Double? = nil,
                      hr: Double? = nil) -> GPXPoint {
        GPXPoint(latitude: latitude, longitude: longitude, elevation: ele,
                 time: seconds.map { GPXTime(date: epoch(1_714_550_400 + $0)) }, heartRate: hr)
    }

    @Test func distanceIsNotMeasuredAcrossSegmentBreaks() {
        var totals = TrackStatistics()
        totals.startSegment()
        totals.add(Self.point(0, 0))
        totals.add(Self.point(1, 0))
        totals.startSegment()
        totals.add(Self.point(5, 0))
        totals.add(Self.point(6, 0))
        #expect(totals.pointCount == 4)
        #expect(totals.segmentCount == 2)
        #expect(abs(totals.distance - 2 * 111_195.0802) < 0.01)
    }

    @Test func pointsWithoutASegmentStartOne() {
        var totals = TrackStatistics()
        totals.add(Self.point(0, 0))
        totals.add(Self.point(1, 0))
        #expect(totals.segmentCount == 1)
        #expect(abs(totals.distance - 111_195.0802) < 0.01)
    }

    @Test func rawAndSmoothedElevation() {
        var totals = TrackStatistics()
        for ele in [10.0, 12, 11, 15] { totals.add(Self.point(0, 0, ele: ele)) }
        totals.add(Self.point(0, 0))  // no elevation: passed over
        totals.startSegment()
        for ele in [10.0, 20, 14, 8] { totals.add(Self.point(0, 0, ele: ele)) }
        // Raw: +2 -1 +4 | +10 -6 -6.
        #expect(totals.elevationGain == 16)
        #expect(totals.elevationLoss == 13)
        // Hysteresis at 5 m: 10→15 (+5) | 10→20 (+10), 20→14 (-6), 14→8 (-6).
        #expect(totals.smoothedElevationGain == 15)
        #expect(totals.smoothedElevationLoss == 12)
    }

    @Test func movingTimeCountsGapsCoveredFastEnoughAndNotTooLong() {
        var totals = TrackStatistics()
        totals.add(Self.point(0, 0, at: 0))
        totals.add(Self.point(0, 0.0009, at: 10))  // ~100 m in 10 s: moving
        totals.add(Self.point(0, 0.0009, at: 20))  // still: not moving
        totals.add(Self.point(0, 0.01, at: 200))  // 180 s gap: a pause, not counted
        totals.add(Self.point(0, 0.01001, at: 201))  // ~1.1 m in 1 s: moving
        #expect(totals.movingTime == 11)
        #expect(totals.firstTime?.date == epoch(1_714_550_400))
        #expect(totals.lastTime?.date == epoch(1_714_550_601))
        #expect(totals.elapsedTime == 201)
    }

    @Test func heartRate() {
        var totals = TrackStatistics()
        #expect(totals.heartRateAverage == nil)
        for hr in [100.0, 120, nil, 140] { totals.add(Self.point(0, 0, hr: hr)) }
        #expect(totals.heartRateCount == 3)
        #expect(totals.heartRateMinimum == 100)
        #expect(totals.heartRateMaximum == 140)
        #expect(totals.heartRateAverage == 120)
    }
}
