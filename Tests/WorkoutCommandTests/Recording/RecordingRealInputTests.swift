import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
@testable import Workout

/// `workout record` against the fake gpsd sending what real receivers send: each way a live
/// session used to lose a workout, and the cases that always passed, checked as a user checks a
/// recording (the exit code, the saved workout's points, distance, active time and events, the
/// `input` counts of `--json`, the lines on standard error).
///
/// Every run is a straight line at 3 m/s, a fix a second, dated now, played ten times faster than
/// its times, and ended with SIGINT once the fake has sent everything.
@Suite("workout record on what real receivers send", .timeLimit(.minutes(3)))
struct RecordingRealInputTests {
    /// The clean run: 120 fixes, 357 m in 119 s, nothing to correct.
    @Test func aCleanRunIsSavedWhole() async throws {
        let run = StraightRun.steady()
        let outcome = try await Recording(.fixes(run)).finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.points == 120 && outcome.segments == 1)
        #expect(abs(outcome.distance - 357) < 1, "\(outcome.distance) m")
        #expect(abs(outcome.duration - 119) < 0.01 && abs(outcome.activeTime - 119) < 0.01)
        #expect(outcome.start == run[0].time)
        #expect(outcome.events == [])
        #expect(outcome.input == [:] && outcome.storeFailures.isEmpty && outcome.malformedLines == 0)
        #expect(outcome.errors == [])
    }

    /// Fix 61 of 120 without a time used to end the recording with 74: it is placed on the time
    /// line by when it arrived, and kept.
    @Test func aFixWithoutATimeMidwayIsPlacedAndKept() async throws {
        let outcome = try await Recording(.fixes(StraightRun.steady(), quirks: [.withoutTime(fix: 60)])).finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.points == 120)
        #expect(outcome.input == ["fix_without_time": 1])
        #expect(abs(outcome.distance - 357) < 1, "\(outcome.distance) m")
        #expect(outcome.errors == ["workout record: 1 fixes without a time, placed on the time line by when they arrived."])
    }

    /// A receiver that has a position before it knows the date: its first fix has no time. It
    /// used to end the recording at once; it is dropped (there is nothing to place it by).
    @Test func aTimelessFirstFixIsDroppedAndTheRestKept() async throws {
        let run = StraightRun.steady()
        let outcome = try await Recording(.fixes(run, quirks: [.withoutTime(fix: 0)])).finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.points == 119)
        #expect(outcome.input == ["fix_without_time_before_first": 1])
        #expect(outcome.start == run[1].time)
        #expect(outcome.errors(containing: "1 fixes without a time before the first timed fix, dropped").count == 1)
    }

    /// Without a reported speed, auto-pause used to see the drift of a stop as motion (or the
    /// run as a stop). It works the speed out from the positions: the same stop, distance and
    /// active time as with the receiver's speed.
    @Test func autoPauseWithoutAReportedSpeedFindsTheStopAsWithOne() async throws {
        async let withoutSpeed = try Recording(.fixes(StraightRun.withStop(reportingSpeed: false))).finish()
        async let withSpeed = try Recording(.fixes(StraightRun.withStop(reportingSpeed: true))).finish()
        let outcomes = try await [withoutSpeed, withSpeed]
        for (outcome, name) in zip(outcomes, ["without speed", "with speed"]) {
            #expect(outcome.status == 0, "\(name): \(outcome)")
            #expect(outcome.points == 180, "\(name)")
            #expect(abs(outcome.distance - 357) <= 20, "\(name): \(outcome.distance) m, 357 m run")
            #expect(abs(outcome.activeTime - 119) <= 15, "\(name): \(outcome.activeTime) s active, 119 s moving")
            #expect(outcome.events == ["motion_paused", "motion_resumed"], "\(name)")
        }
        #expect(abs(outcomes[0].distance - outcomes[1].distance) <= 20, "\(outcomes[0].distance) m and \(outcomes[1].distance) m")
        #expect(abs(outcomes[0].activeTime - outcomes[1].activeTime) <= 15, "\(outcomes[0].activeTime) s and \(outcomes[1].activeTime) s")
    }

    /// A receiver past a GPS week rollover dates its first fixes 1024 weeks early: the workout
    /// used to start in 2006 and last twenty years. The dates are corrected.
    @Test func aWeekRolloverAtTheStartIsCorrected() async throws {
        let run = StraightRun.steady()
        let outcome = try await Recording(.fixes(run, quirks: [.gpsWeekRollover(fixes: 0..<10)])).finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.start == run[0].time)
        #expect(abs((outcome.start ?? .distantPast).timeIntervalSinceNow) < 86_400)
        #expect(abs(outcome.duration - 119) < 0.01 && outcome.points == 120)
        #expect(outcome.input == ["week_rollover": 10])
        #expect(abs(outcome.distance - 357) < 1)
    }

    @Test func aWeekRolloverMidwayIsCorrected() async throws {
        let run = StraightRun.steady()
        let outcome = try await Recording(.fixes(run, quirks: [.gpsWeekRollover(fixes: 60..<70)])).finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.start == run[0].time)
        #expect(abs(outcome.duration - 119) < 0.01 && outcome.points == 120)
        #expect(outcome.input == ["week_rollover": 10])
        #expect(abs(outcome.distance - 357) < 1 && abs(outcome.activeTime - 119) < 0.01)
    }

    /// How a receiver spends the minute before it jumps.
    enum Blackout: String, CaseIterable, Sendable {
        /// Nothing at all.
        case noReports
        /// Mode-1 TPVs: no position.
        case noPosition

        func quirk(_ fixes: Range<Int>) -> ReceiverQuirk {
            self == .noReports ? .silent(fixes: fixes) : .withoutPosition(fixes: fixes)
        }
    }

    /// A minute without a fix, then a fix 5 km away (a receiver that re-acquires wrongly): the
    /// jump used to add 5 km. It starts a new segment and adds nothing.
    @Test(arguments: Blackout.allCases)
    func aJumpAfterAMinuteWithoutAFixStartsASegment(blackout: Blackout) async throws {
        let run = StraightRun.steady(count: 180)
        let outcome = try await Recording(.fixes(run, quirks: [blackout.quirk(60..<120), .moved(fixes: 120..., metres: 5_000)])).finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.points == 120)
        #expect(abs(outcome.distance - 354) < 1, "\(outcome.distance) m: 177 m before the minute, 177 m after")
        #expect(outcome.input == ["jump": 1])
        #expect(outcome.segments == 2)
    }

    /// A minute of fixes without a position, then 200 m further on (a runner through a tunnel):
    /// a plausible move, counted.
    @Test func aMoveAfterAMinuteWithoutAPositionIsCounted() async throws {
        // 3 m/s; fix 120 is 200 m on from fix 59 (the fixes between have no position).
        let along = (0..<180).map { (index: Int) -> Double in
            let seconds = Double(index)
            return index < 120 ? 3 * seconds : 377 + 3 * (seconds - 120)
        }
        let run = StraightRun.fixes(along: along, speeds: Array(repeating: 3, count: 180), start: StraightRun.now())
        let outcome = try await Recording(.fixes(run, quirks: [.withoutPosition(fixes: 60..<120)])).finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.points == 120 && outcome.segments == 1)
        #expect(abs(outcome.distance - 554) < 1, "\(outcome.distance) m: 177 m, then 200 m through the tunnel, then 177 m")
        #expect(outcome.input == [:])
    }

    /// A fix dated 5 s before the one before it used to end the recording: it is dropped.
    @Test func aFixGoingBackInTimeIsDropped() async throws {
        let run = StraightRun.steady()
        let outcome = try await Recording(.fixes(run, quirks: [.timeShifted(fixes: 60...60, by: .seconds(-5))])).finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.points == 119)
        #expect(outcome.input == ["fix_not_after_last": 1])
        #expect(abs(outcome.distance - 357) < 1 && abs(outcome.duration - 119) < 0.01)
    }
}
