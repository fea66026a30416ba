import Foundation
import Testing
@testable import Workout

/// ``TrainingFigures``'s contract: the span (duration: pauses out, stops kept), the 1-second
/// series (the hold ``SampleFigures`` weighs by), and each figure's definition.
@Suite struct TrainingFiguresTests {
    let start = SyntheticRide.start
    let profile = TrainingProfile(functionalThresholdPower: 250, maximumHeartRate: 190)

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    @Test func aSteadyHourAtTheFTPIsOneHundredPoints() {
        let samples = (0...3_600).map { QuantitySample(type: .power, value: 250, at: at(Double($0))) }
        let summary = SyntheticRide.figures(samples, profile: profile).summary
        #expect(summary.duration == 3_600)
        #expect(summary.powerTime == 3_600, "the first sample holds over nothing: 3600 s from 3601 samples")
        #expect(abs((summary.normalizedPower ?? 0) - 250) < 1e-9)
        #expect(abs((summary.intensityFactor ?? 0) - 1) < 1e-12)
        #expect(abs((summary.trainingStressScore ?? 0) - 100) < 1e-9)
        #expect(abs((summary.work ?? 0) - 900) < 1e-9, "250 W for an hour is 900 kJ")
        #expect(summary.powerZones?.times == [0, 0, 0, 3_600, 0, 0, 0], "100 % of FTP is threshold, zone 4")
    }

    @Test func withoutAnFTPThereIsNoIntensityNorStressNorPowerZones() {
        let samples = (0...120).map { QuantitySample(type: .power, value: 200, at: at(Double($0))) }
        let summary = SyntheticRide.figures(samples, profile: TrainingProfile(), end: at(120)).summary
        #expect(summary.normalizedPower != nil)
        #expect(summary.intensityFactor == nil)
        #expect(summary.trainingStressScore == nil)
        #expect(summary.powerZones == nil)
        #expect(summary.work == 24)
    }

    @Test func normalizedPowerNeedsThirtySecondsAndWeighsSurgesByTheirFourthPower() {
        let short = (0...29).map { QuantitySample(type: .power, value: 300, at: at(Double($0))) }
        #expect(SyntheticRide.figures(short, profile: profile, end: at(29)).summary.normalizedPower == nil, "29 s: no whole window")
        // 60 s at 400 W then 60 s at 100 W: the mean is 250 W, NP is above it.
        let surges = (0...120).map { QuantitySample(type: .power, value: $0 <= 60 ? 400 : 100, at: at(Double($0))) }
        let summary = SyntheticRide.figures(surges, profile: profile, end: at(120)).summary
        var rolling: [Double] = []
        let series = (0..<120).map { $0 < 60 ? 400.0 : 100.0 }
        for end in 30...120 { rolling.append(series[(end - 30)..<end].reduce(0, +) / 30) }
        let expected = pow(rolling.map { pow($0, 4) }.reduce(0, +) / Double(rolling.count), 0.25)
        #expect(abs((summary.normalizedPower ?? 0) - expected) < 1e-9)
        #expect((summary.normalizedPower ?? 0) > 300)
    }

    @Test func theZonesMakeTheDurationWithPausesStopsAndDropouts() throws {
        var samples = SyntheticRide.irregular()
        // The user pauses from 20:00 to 25:00 (the power meter goes on sending); auto-pause
        // stops from 40:00 to 41:00 (kept: the duration keeps it).
        let events = [
            WorkoutEvent(.pause, at: at(1_200)), WorkoutEvent(.resume, at: at(1_500)),
            WorkoutEvent(.motionPaused, at: at(2_400)), WorkoutEvent(.motionResumed, at: at(2_460)),
        ]
        samples.removeAll { $0.type == .heartRate && (3_000..<3_100).contains($0.end.timeIntervalSince(start)) }
        let summary = SyntheticRide.figures(samples, events: events, profile: profile).summary
        #expect(summary.duration == 3_300, "an hour less the 5-minute pause")
        let power = try #require(summary.powerZones)
        let heart = try #require(summary.heartRateZones)
        #expect(abs(power.total - summary.duration) < 1e-6, "power zones \(power.times) + \(power.unrecorded) s")
        #expect(abs(heart.total - summary.duration) < 1e-6, "heart-rate zones \(heart.times) + \(heart.unrecorded) s")
        // The strap's 101 s between readings is no reading past the 10 s hold: 91 s unrecorded.
        #expect(abs(heart.unrecorded - 91) < 1e-6, "\(heart.unrecorded)")
        // The power meter's silences are zeros between readings: only the time before its first is unrecorded.
        #expect(power.unrecorded < 1, "\(power.unrecorded)")
    }

    @Test func thePausedTimeIsLeftOutWhateverItHolds() {
        // The same hour of power with a 10-minute pause in the middle, full of surges the
        // sensor sent while paused: the figures are those of the hour alone.
        let hour = SyntheticRide.oneHertz().filter { $0.type == .power }
        let shifted = hour.map { sample in
            var sample = sample
            if sample.end > at(1_800) { sample.start += 600; sample.end += 600 }
            return sample
        }
        let paused = (1_801..<2_400).map { QuantitySample(type: .power, value: 900, at: at(Double($0))) }
        let events = [WorkoutEvent(.pause, at: at(1_800)), WorkoutEvent(.resume, at: at(2_400))]
        let all = (shifted + paused).sorted { $0.end < $1.end }
        let withPause = SyntheticRide.figures(all, events: events, profile: profile, end: at(4_200)).summary
        let without = SyntheticRide.figures(hour, profile: profile).summary
        #expect(withPause.duration == 3_600)
        #expect(abs((withPause.normalizedPower ?? 0) - (without.normalizedPower ?? 0)) < 0.5, "\(withPause.normalizedPower ?? 0) against \(without.normalizedPower ?? 0)")
        #expect(abs((withPause.work ?? 0) - (without.work ?? 0)) < 0.5)
    }

    @Test(arguments: SampleAveraging.allCases)
    func theMeanPowerTimesItsTimeIsTheWork(averaging: SampleAveraging) throws {
        // Coasting zeros, dropouts within the hold and one past it: the same time under both.
        let samples = SyntheticRide.irregular().filter { $0.type == .power }
        let figures = try #require(SampleFigures(samples: samples, averaging: averaging))
        let summary = SyntheticRide.figures(samples, profile: profile).summary
        let work = try #require(summary.work)
        #expect(abs(figures.average * figures.weightedTime - work * 1_000) < 1e-6 * work * 1_000)
        if averaging == .includingZeros {
            #expect(abs(figures.weightedTime - summary.powerTime) < 1e-6, "the mean's time is the figures' power time")
        } else {
            let zeros = summary.powerTime - figures.weightedTime
            #expect(zeros > 12 * 20 - 1, "the coasting (12 × 20 s) and the silence past the hold are left out: \(zeros) s")
        }
    }

    @Test func readingAtAnyMomentChangesNothing() {
        let samples = SyntheticRide.irregular()
        var live = TrainingFigures(profile: profile, start: start)
        var readings = 0
        for sample in samples {
            live.add(sample)
            if live.summary.powerTime >= 0 { readings += 1 }
        }
        live.finish(at: at(3_600))
        #expect(readings == samples.count)
        #expect(live.summary == SyntheticRide.figures(samples, profile: profile).summary)
    }

    @Test func aLiveReadingCountsTheSecondUnderWay() {
        var figures = TrainingFigures(profile: profile, start: start)
        figures.add(QuantitySample(type: .power, value: 200, at: at(0)))
        figures.add(QuantitySample(type: .power, value: 200, at: at(0.5)))
        let summary = figures.summary
        #expect(summary.duration == 0.5)
        #expect(summary.work == 0.1)
        #expect(summary.powerZones?.total == 0.5)
    }
}
