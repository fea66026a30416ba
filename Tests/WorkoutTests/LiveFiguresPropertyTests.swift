import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
@testable import Workout

/// What a session shows live is what it saves: random sessions (``SessionPropertyTests/makeCase(seed:)``:
/// speeds reported, never or now and then; auto-pause on and off; stops with drift, gaps, jumps,
/// inaccurate fixes, fixes without a time; the user's pauses, laps and markers), with a heart rate
/// read between the fixes, are fed to the session engine one input at a time. After every input,
/// the live distance is at most what the saved workout has for the same moment (its time line,
/// fed the saved points and events, up to that moment), and the live moving time at most the
/// saved moving time then; once the session has ended, every live figure equals the saved one.
///
/// A session used to add the distance of the points its motion detector still held on top of the
/// distance decided, and never take it back: a speedless run with stops showed about twice the
/// distance it saved.
@Suite struct LiveFiguresPropertyTests {
    static let seeds: [UInt64] = Array(1...40)

    /// The saved workout's time line at each of its points: the distance and moving time up to
    /// that point's time.
    struct Saved {
        var times: [Double] = []
        var distances: [Double] = []
        var timelines: [SessionTimeline] = []

        /// The index of the last point at or before `time`, if any.
        func last(atOrBefore time: Double) -> Int? {
            var low = 0, high = times.count
            while low < high {
                let middle = (low + high) / 2
                if times[middle] <= time { low = middle + 1 } else { high = middle }
            }
            return low == 0 ? nil : low - 1
        }
    }

    @Test(arguments: seeds)
    func liveFiguresNeverExceedTheSavedOnesAndEndEqual(seed: UInt64) throws {
        let example = SessionPropertyTests.makeCase(seed: seed)
        var random = SeededRandom(seed: seed ^ 0x5EED)
        var engine = SessionEngine(configuration: example.configuration)
        var points: [SessionEngine.StagedPoint] = []
        var ticks: [(now: Double, figures: LiveFigures)] = []
        var heartRate = 120.0
        var lastSampleTime: Double?
        var taken: [QuantitySample] = []

        func tick() {
            guard let now = engine.now else { return }
            ticks.append((now, engine.liveFigures))
        }
        var nextAction = 0
        for (index, fix) in example.fixes.enumerated() {
            points += engine.take(fix).points
            tick()
            // A strap reads between fixes, as every real one does.
            if let time = fix.time?.timeIntervalSince1970, time > (lastSampleTime ?? -.infinity) {
                heartRate = min(190, max(60, heartRate + Double.random(in: -3...3, using: &random)))
                let at = time + 0.37
                let sample = QuantitySample(type: .heartRate, value: heartRate.rounded(), at: Date(timeIntervalSince1970: at))
                let result = engine.take(sample)
                points += result.output.points
                if result.taken {
                    lastSampleTime = at
                    taken.append(sample)
                }
            }
            while nextAction < example.actions.count, example.actions[nextAction].index == index {
                let output: SessionEngine.Output
                switch example.actions[nextAction].action {
                case .pause where !engine.detector.isPaused: output = engine.act(.pause)
                case .resume where engine.detector.isPaused: output = engine.act(.resume)
                case .lap: output = engine.act(.lap)
                case .mark: output = engine.act(.marker, name: "mark \(index)")
                default: output = SessionEngine.Output()
                }
                points += output.points
                tick()
                nextAction += 1
            }
        }
        points += engine.finish().points
        let live = engine.liveFigures

        // What is saved, as the session publishes it and the store reads it back.
        let settlement = SessionSettlement(
            id: UUID(), configuration: example.configuration, events: engine.events, inputIssues: engine.admission.counts,
            start: try #require(engine.timeline.start))
        let publication = SessionPublication(settlement: settlement, hasPoints: true, hasSensorDistance: false) { feed in
            for point in points { feed.add(TimelinePoint(ordinal: point.ordinal, segment: point.segment, location: point.location)) }
        }
        let workout = publication.workout
        var feed = TimelineFeed(
            options: .init(maximumHorizontalAccuracy: example.configuration.fixRules.maximumHorizontalAccuracy),
            events: publication.events)
        feed.begin(at: workout.start.timeIntervalSince1970)
        var saved = Saved()
        for point in points {
            feed.add(TimelinePoint(ordinal: point.ordinal, segment: point.segment, location: point.location))
            saved.times.append(TimelinePoint(ordinal: point.ordinal, segment: point.segment, location: point.location).time)
            saved.distances.append(feed.timeline.distance)
            saved.timelines.append(feed.timeline)
        }
        let timeline = feed.finish(at: workout.end.timeIntervalSince1970)

        for (now, figures) in ticks {
            let index = saved.last(atOrBefore: now)
            let distance = index.map { saved.distances[$0] } ?? 0
            #expect(figures.distance <= distance + 1e-6, "seed \(seed): \(figures.distance) m live at \(now), \(distance) m saved")
            let moving = index.map { saved.timelines[$0].movingTime(at: now) } ?? 0
            #expect(figures.movingTime <= moving + 1e-6, "seed \(seed): \(figures.movingTime) s moving live at \(now), \(moving) s saved")
        }
        let totals = workout.totals
        #expect(live.distance == totals.distance, "\(example)")
        #expect(live.duration == totals.duration && live.movingTime == totals.movingTime, "\(example)")
        #expect(live.elapsedTime == workout.elapsedTime, "\(example)")
        #expect(live.elevationGain == (totals.elevationGain ?? 0), "\(example)")
        #expect(timeline.totals(end: workout.end.timeIntervalSince1970) == totals, "\(example): read back as saved")
        // The heart rate as the store works it out from the samples saved (those in the workout).
        let kept = taken.filter { workout.contains($0.start) }
        let stored = try #require(SampleFigures(samples: kept))
        let shown = try #require(engine.samples[.heartRate])
        #expect(shown.count == taken.count && stored.maximum == shown.maximum, "\(example)")
        #expect(abs(stored.average - shown.average) < 1, "seed \(seed): \(shown.average) bpm live, \(stored.average) saved")
    }
}
