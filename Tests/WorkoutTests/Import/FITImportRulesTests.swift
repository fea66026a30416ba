import FIT
import Foundation
import Testing
@testable import Workout

/// The FIT importer's rules on shapes the fixtures lack, on small files our FITWriter makes
/// (`FITActivityScript`): timer events around the last record, records dated out of line.
@Suite struct FITImportRulesTests {
    let store: WorkoutStore
    let folder: TemporaryFolder

    init() throws {
        store = try WorkoutStore.inMemory()
        folder = try TemporaryFolder()
    }

    func importScript(_ steps: [FITActivityScript.Step], options: FITImportOptions = FITImportOptions()) async throws -> FITImportReport {
        try await FITImporter(store: store, options: options).importFile(at: try FITActivityScript(steps).write(to: folder))
    }

    func date(_ second: Double) -> Date { FITActivityScript.date(second) }

    /// The timer started again after the last record: the whole activity failed to save (its
    /// resume lay after the workout's end). The start no record follows makes no resume: the
    /// workout ends at its last record, paused.
    @Test func aTimerStartedAfterTheLastRecordMakesNoResume() async throws {
        let report = try await importScript([.record(100), .timer(starts: false, at: 110), .record(115), .timer(starts: true, at: 120)])
        let imported = try #require(report.workouts.first)
        #expect(imported.isNew && imported.points == 2)
        #expect(imported.workout.start == date(100) && imported.workout.end == date(115))
        let events = try await store.events(of: imported.workoutID)
        #expect(events.map(\.kind) == [.pause] && events.map(\.time) == [date(110)])
        #expect(imported.workout.totals.movingTime == 10, "active from 100 s to the pause at 110 s")
    }

    /// A resume some record follows is kept, dated no later than that record, which starts the
    /// route's next segment.
    @Test func aResumeARecordFollowsIsKeptAndStartsASegment() async throws {
        let report = try await importScript([
            .record(100), .timer(starts: false, at: 110), .record(115), .timer(starts: true, at: 120), .record(118), .record(121),
        ])
        let imported = try #require(report.workouts.first)
        let events = try await store.events(of: imported.workoutID)
        #expect(events.map(\.kind) == [.pause, .resume])
        #expect(events.map(\.time) == [date(110), date(118)], "the resume at the record after it, which is dated before the start")
        #expect(imported.segments == 2 && imported.workout.end == date(121))
    }
}
