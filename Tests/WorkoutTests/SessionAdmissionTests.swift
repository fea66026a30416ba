import Foundation
import LocationFacade
import Testing
@testable import Workout

/// The admission of fixes into a session, rule by rule, on the engine alone (no clock, no
/// store): what real receivers send never ends a recording, and each rule is counted.
@Suite struct SessionAdmissionTests {
    static let start = Date().addingTimeInterval(-3_600)

    /// A fix `seconds` after the start, `east` metres east of a point in London, arriving when dated.
    static func fix(_ seconds: Double, east: Double = 0, north: Double = 0, speed: Double? = 3, accuracy: Double? = 5) -> Location {
        let time = start.addingTimeInterval(seconds)
        return Location(
            latitude: 51.5 + north / 111_195, longitude: -0.1 + east / (111_195 * cos(51.5 * .pi / 180)), altitude: 20,
            horizontalAccuracy: accuracy, speed: speed, time: time, receivedAt: time, mode: .fix3D)
    }

    /// Seconds from the start to a point's time, to the microsecond (a time moved by 1024 weeks
    /// and back is not always the same double).
    static func seconds(_ point: SessionEngine.StagedPoint) -> Double {
        ((point.location.time!.timeIntervalSince(start)) * 1e6).rounded() / 1e6
    }

    /// A run east at 3 m/s, one fix a second.
    static func run(_ count: Int, from first: Int = 0) -> [Location] {
        (first..<(first + count)).map { fix(Double($0), east: 3 * Double($0)) }
    }

    func engine(_ activity: WorkoutActivityType = .running, autoPause: Bool = false) -> SessionEngine {
        SessionEngine(configuration: .init(activityType: activity, autoPause: autoPause ? .defaults(for: activity) : nil))
    }

    /// Feeds `fixes`, then lets admission take the last, which it holds for the next.
    func feed(_ fixes: [Location], into engine: inout SessionEngine) -> [SessionEngine.StagedPoint] {
        fixes.flatMap { engine.take($0).points } + engine.flushHeldFix().points
    }

    @Test func aFixWithoutATimeIsPlacedByWhenItArrived() {
        var engine = engine()
        var fixes = Self.run(120)
        fixes[60].time = nil  // gpsd omits it: the receiver has no date yet
        let points = feed(fixes, into: &engine)
        #expect(points.count == 120)
        #expect(Self.seconds(points[60]) == 60, "placed at the last fix plus the time between their arrivals")
        #expect(engine.admission.counts == [.fixWithoutTime: 1])
        _ = engine.finish()
        #expect(abs(engine.timeline.distance - 357) < 0.5)
    }

    @Test func aFixWithoutATimeBeforeTheFirstTimedOneIsDropped() {
        var engine = engine()
        var fixes = Self.run(5)
        fixes[0].time = nil
        fixes[1].time = nil
        let points = feed(fixes, into: &engine)
        #expect(points.map(\.ordinal) == [0, 1, 2])
        #expect(points.first.map(Self.seconds) == 2)
        #expect(engine.admission.counts == [.fixWithoutTimeBeforeFirst: 2])
    }

    @Test func aFixNotAfterTheLastIsDropped() {
        var engine = engine()
        var fixes = Self.run(10)
        fixes[5] = Self.fix(-1, east: 15)  // 5 s back in time
        let points = feed(fixes, into: &engine)
        #expect(points.count == 9)
        #expect(engine.admission.counts == [.fixNotAfterLast: 1])
    }

    /// gpsd reports a fix after each sentence of the receiver's cycle: the reports of one time
    /// (or without a time, read together) are one fix, what the later one says winning.
    @Test func reportsOfTheSameFixAreMergedIntoIt() {
        var engine = engine()
        var fixes = Self.run(5)
        var first = fixes[2]
        first.altitude = nil
        first.course = nil
        var second = fixes[2]
        second.course = 91
        second.longitude += 1e-6
        second.speed = nil
        fixes[2] = first
        fixes.insert(second, at: 3)
        let points = feed(fixes, into: &engine)
        #expect(points.count == 5)
        #expect(engine.admission.counts == [.fixSameTime: 1])
        let merged = points[2].location
        #expect(merged.longitude == second.longitude && merged.course == 91, "the later report wins")
        #expect(merged.altitude == 20 && merged.speed == 3, "what it lacks, the earlier says")
    }

    /// A fix without a time read with the fix before it (the same arrival time) is a fix of its
    /// own, placed a millisecond after.
    @Test func aFixWithoutATimeReadWithTheOneBeforeComesAfterIt() {
        var engine = engine()
        var fixes = Self.run(5)
        var timeless = fixes[3]
        timeless.time = nil
        timeless.receivedAt = fixes[2].receivedAt
        fixes[3] = timeless
        let points = feed(fixes, into: &engine)
        #expect(points.count == 5)
        #expect(engine.admission.counts == [.fixWithoutTime: 1])
        #expect(Self.seconds(points[3]) == 2.001)
    }

    /// One fix dated far ahead, the next back on the time line: the odd one out is dropped, not
    /// everything after it.
    @Test func aFixFarAheadOfTheNextIsTheOddOneOut() {
        var engine = engine()
        var fixes = Self.run(10)
        fixes[4].time = fixes[4].time?.addingTimeInterval(86_400 - 60)  // spliced recordings
        let points = feed(fixes, into: &engine)
        #expect(points.count == 9)
        #expect(engine.admission.counts == [.implausibleTime: 1])
        #expect(points.allSatisfy { Self.seconds($0) < 10 })
    }

    @Test func aWeekRolloverAtTheStartIsCorrectedByTheClock() {
        var engine = engine()
        var fixes = Self.run(120)
        for index in 0..<10 { fixes[index].time = fixes[index].time?.addingTimeInterval(-FixAdmission.rolloverPeriod) }
        let points = feed(fixes, into: &engine)
        #expect(points.count == 120)
        #expect(points.first.map(Self.seconds) == 0, "the first fixes are dated 1024 weeks early; the clock knows better")
        #expect(engine.admission.counts == [.weekRollover: 10])
        _ = engine.finish()
        #expect(engine.timeline.lastTime! - engine.timeline.start! == 119)
    }

    @Test func aRolloverInTheMiddleIsCorrectedByTheTimeLineWhateverTheClock() {
        var engine = engine()
        // A replay of an old recording: its dates are nowhere near the clock.
        var fixes = Self.run(120).map { fix in
            var fix = fix
            fix.time = fix.time?.addingTimeInterval(-5 * 365 * 86_400)
            fix.receivedAt = fix.receivedAt.addingTimeInterval(86_400 * 3)  // and it arrives later than dated
            return fix
        }
        for index in 60..<70 { fixes[index].time = fixes[index].time?.addingTimeInterval(-2 * FixAdmission.rolloverPeriod) }
        let points = feed(fixes, into: &engine)
        #expect(points.count == 120)
        #expect(zip(points, fixes.indices).allSatisfy { point, index in Self.seconds(point) == Double(index) - 5 * 365 * 86_400 })
        #expect(engine.admission.counts == [.weekRollover: 10])
    }

    @Test func aTimeMoreThanADayAheadIsDropped() {
        var engine = engine()
        var fixes = Self.run(10)
        fixes[5].time = fixes[5].time?.addingTimeInterval(3 * 86_400)
        let points = feed(fixes, into: &engine)
        #expect(points.count == 9)
        #expect(engine.admission.counts == [.implausibleTime: 1])
        _ = engine.finish()
        #expect(engine.timeline.lastTime! - engine.timeline.start! == 9, "the session spans its fixes' plausible time only")
    }

    @Test func anImpossibleFixIsDropped() {
        var engine = engine()
        var fixes = Self.run(5)
        fixes[2].latitude = 91
        fixes[3].speed = .nan
        #expect(feed(fixes, into: &engine).count == 3)
        #expect(engine.admission.counts == [.invalidFix: 2])
    }

    /// 5 km after a minute without a fix is a jump (a new segment, no distance); 200 m after a
    /// minute is a run (counted).
    @Test func aJumpFasterThanTheActivityIsANewSegmentAndAPlausibleMoveCounts() {
        var jumped = engine()
        let before = Self.run(60)
        let after = (120..<180).map { Self.fix(Double($0), east: 180 + 5_000 + 3 * Double($0 - 120)) }
        let points = feed(before + after, into: &jumped)
        #expect(points[60].segment == points[59].segment + 1)
        #expect(jumped.admission.counts == [.jump: 1])
        _ = jumped.finish()
        #expect(abs(jumped.timeline.distance - (177 + 177)) < 0.5, "\(jumped.timeline.distance) m: the 5 km jump adds nothing")

        var moved = engine()
        let later = (120..<180).map { Self.fix(Double($0), east: 177 + 200 + 3 * Double($0 - 120)) }
        _ = feed(before + later, into: &moved)
        #expect(moved.admission.counts.isEmpty)
        _ = moved.finish()
        #expect(abs(moved.timeline.distance - (177 + 200 + 177)) < 0.5, "\(moved.timeline.distance) m")
    }

    @Test func anInaccurateFixIsKeptButNotCounted() {
        var engine = engine()
        var fixes = Self.run(10)
        fixes[5] = Self.fix(5, east: 15 + 80, accuracy: 120)  // 80 m off, and says it may be
        let points = feed(fixes, into: &engine)
        #expect(points.count == 10)
        #expect(engine.admission.counts == [.inaccurate: 1])
        _ = engine.finish()
        #expect(abs(engine.timeline.distance - 27) < 0.1, "\(engine.timeline.distance) m: measured around it")
    }

    @Test func samplesNotAfterTheLastOfTheirTypeOrImpossibleAreDropped() throws {
        var engine = engine()
        _ = feed(Self.run(1), into: &engine)
        let at = Self.start
        let taken = [
            QuantitySample(type: .heartRate, value: 120, at: at), QuantitySample(type: .heartRate, value: 121, at: at),
            QuantitySample(type: .cadence, value: 80, at: at), QuantitySample(type: .power, value: -5, at: at),
            QuantitySample(type: .power, value: .infinity, at: at),
        ].map { engine.take($0).taken }
        #expect(taken == [true, false, true, false, false])
        #expect(engine.admission.counts == [.sampleNotAfterLast: 1, .invalidSample: 2])
        let heartRate = try #require(engine.samples[.heartRate])
        #expect(heartRate.count == 1 && heartRate.average == 120)
    }

    /// A strap connected while the receiver searches the sky sends before the first fix, dated by
    /// the machine's clock (here a day ahead, as a machine without a real-time clock may be): those
    /// samples are not the workout's, and must not have every later one dropped as not after them.
    @Test func samplesBeforeTheFirstFixAreDroppedAndDecideNothing() {
        var engine = engine()
        let early = (0..<3).map { QuantitySample(type: .heartRate, value: 100, at: Self.start.addingTimeInterval(86_400 + Double($0))) }
        #expect(early.map { engine.take($0).taken } == [false, false, false])
        _ = feed(Self.run(3), into: &engine)
        let dated = (0..<3).map { QuantitySample(type: .heartRate, value: 130 + Double($0), at: Self.start.addingTimeInterval(Double($0))) }
        #expect(dated.map { engine.take($0).taken } == [true, true, true])
        #expect(engine.admission.counts == [.sampleBeforeFirstFix: 3])
        #expect(engine.samples[.heartRate]?.maximum == 132 && engine.samples[.heartRate]?.count == 3)
    }
}
