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

    /// One record dated an hour ahead (a receiver's glitch, two recordings spliced) made every
    /// record after it "earlier than the record before it": all dropped. Now that one is the odd
    /// one out, as the live session's admission has it: dated more than ten minutes ahead of the
    /// record after it, which goes back.
    @Test func aLoneRecordDatedFarAheadIsTheOddOneOut() async throws {
        let steps: [FITActivityScript.Step] = (0..<10).map { .record(Double($0)) } + [.record(3_600)] + (10..<20).map { .record(Double($0)) }
        let report = try await importScript(steps)
        let imported = try #require(report.workouts.first)
        #expect(imported.points == 20 && imported.workout.end == date(19))
        #expect(imported.skipped.count == 1 && imported.skipped[0].reason.contains("ahead of the record after it"), "\(imported.skipped)")
        let route = try await readRoute(store, imported.workoutID)
        #expect(route.map(\.location.time) == (0..<20).map { date(Double($0)) })
    }

    /// The first record can be the odd one out too; a gap the records after it keep to stands.
    @Test func theFirstRecordCanBeTheOddOneOutAndARealGapStands() async throws {
        let first = try await importScript([.record(5_000)] + (0..<10).map { .record(Double($0)) })
        #expect(first.workouts.first?.points == 10 && first.workouts.first?.workout.start == date(0))
        #expect(first.workouts.first?.skipped.count == 1)

        let gap = try await importScript((0..<5).map { .record(Double($0)) } + (1_000..<1_005).map { .record(Double($0)) })
        let imported = try #require(gap.workouts.first)
        #expect(imported.points == 10 && imported.skipped.isEmpty && imported.workout.end == date(1_004))
    }

    /// What waits behind a record held is bounded in bytes too (a FIT message may hold 65 KB and
    /// more): past 4 MB the record held stands, and the records after it that go back are skipped.
    @Test func aRecordHeldStandsPastFourMegabytesBehindIt() async throws {
        let steps: [FITActivityScript.Step] = [.record(0), .record(1), .record(3_600)]
            + Array(repeating: .filler, count: 70) + [.record(2), .record(3)]
        let imported = try #require(try await importScript(steps).workouts.first)
        #expect(imported.points == 3 && imported.workout.end == date(3_600))
        #expect(imported.skipped.count == 2 && imported.skipped.allSatisfy { $0.reason.contains("earlier than the record before it") })
    }

    /// The timer events that came after a record held wait with it, and keep their order.
    @Test func eventsAfterARecordHeldKeepTheirPlace() async throws {
        let report = try await importScript([
            .record(0), .record(1), .record(2_000), .timer(starts: false, at: 2), .record(3), .timer(starts: true, at: 10), .record(11),
        ])
        let imported = try #require(report.workouts.first)
        #expect(imported.points == 4 && imported.skipped.count == 1)
        let events = try await store.events(of: imported.workoutID)
        #expect(events.map(\.kind) == [.pause, .resume] && events.map(\.time) == [date(2), date(10)])
    }

    /// --strict said it stops at the first invalid value, and went past FIT records it skipped.
    /// A record the import would skip (here, one earlier than the record before) now stops a strict
    /// import at its offset, and nothing of the activity is saved.
    @Test func strictStopsAtTheFirstRecordItWouldSkip() async throws {
        let steps: [FITActivityScript.Step] = [.record(0), .record(1), .record(5), .record(3), .record(6)]
        let lenient = try await importScript(steps)
        let skip = try #require(lenient.workouts.first?.skipped.first)
        #expect(lenient.workouts.first?.skipped.count == 1 && skip.reason.contains("earlier than the record before it"))

        let strictStore = try WorkoutStore.inMemory()
        await #expect {
            try await FITImporter(store: strictStore, options: FITImportOptions(strict: true)).importFile(at: try FITActivityScript(steps).write(to: folder))
        } throws: { error in
            guard let error = error as? FITImportError, case let .invalidRecord(_, offset, reason, imported) = error else { return false }
            return offset == skip.offset && reason == skip.reason && imported.isEmpty
        }
        #expect(try await strictStore.workoutCount() == 0)
        let counts = try await strictStore.storageCounts()
        #expect(counts.stagedRoutes + counts.stagedPoints + counts.stagedWorkouts + counts.stagedSamples == 0)
    }

    /// The odd one out is a skipped record too: strict stops there.
    @Test func strictStopsAtTheOddOneOut() async throws {
        let steps: [FITActivityScript.Step] = [.record(0), .record(1), .record(3_600), .record(2)]
        await #expect {
            try await importScript(steps, options: FITImportOptions(strict: true))
        } throws: { error in
            guard let error = error as? FITImportError, case let .invalidRecord(_, _, reason, _) = error else { return false }
            return reason.contains("ahead of the record after it")
        }
    }

    /// A chain of 20,000 empty FIT files (16 bytes each) after a run grew the reader's list of
    /// headers and the report's list of files not imported by an entry per 16 bytes. Both lists
    /// now stop at their limits; the counts go on.
    @Test func aChainOfEmptyFilesKeepsTheReportBounded() async throws {
        let empty = FITWriter.file { _ in }
        #expect(empty.count == 16)
        let run = try Data(contentsOf: URL(fileURLWithPath: FITImporterTests.run))
        let path = folder.file("hostile-chain.fit")
        try (run + Data(Array(repeating: empty, count: 20_000).joined())).write(to: URL(fileURLWithPath: path))
        let report = try await FITImporter(store: store).importFile(at: path)
        #expect(report.workouts.count == 1 && report.read.issues.isEmpty)
        #expect(report.read.fileCount == 20_001 && report.read.files.count == FITReadSummary.maximumFilesListed)
        #expect(report.notImportedCount == 20_000 && report.notImported.count == FITImportReport.maximumNotImportedListed)
        #expect(report.notImported.allSatisfy { $0.reason.contains("no records") })
    }

    /// 300 records, each with 100 developer fields of 255 bytes: some 63 KB of XML per point, kept
    /// whole, and batches of 4,096 points counted by points alone (260 MB at once). A point now
    /// keeps at most 8 KB of them (the rest reported), and a batch goes on at 1 MB of XML.
    static let developerHeavy: [UInt8] = FITWriter.file { writer in
        writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [FITFieldDefinition(number: 0, baseType: .enumeration)])
        writer.write(localType: 0, values: [.integer(4)])
        let developer = (0..<100).map { FITDeveloperFieldDefinition(number: UInt8($0), size: 255, developerIndex: 0) }
        writer.define(localType: 1, globalNumber: FITMessageNumber.record, fields: [
            FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 0, baseType: .sint32),
            FITFieldDefinition(number: 1, baseType: .sint32),
        ], developerFields: developer)
        for second in 0..<300 {
            let values: [FITValue?] = [.integer(FITActivityScript.fitTime(Double(second))), .integer(600_000_000 + Int64(second) * 100), .integer(0)]
            writer.write(localType: 1, values: values + developer.map { _ in .bytes(Array(repeating: UInt8(second % 200), count: 255)) })
        }
    }

    @Test func developerFieldsAreBoundedPerPointAndPerBatch() async throws {
        var batches: [PointBatch] = []
        let collector = FITActivityCollector(file: "developer.fit", options: FITImportOptions(), outlet: ImportOutlet(send: { item in
            if case let .points(batch) = item { batches.append(batch) }
            return true
        }, isClosed: { false }))
        _ = try FITReader().read(data: Self.developerHeavy, name: "developer.fit") { try collector.handle($0) }
        try collector.finish()
        let extensions = batches.flatMap(\.extensions)
        #expect(extensions.count == 300 && extensions.allSatisfy { $0.xml.utf8.count <= FITDeveloperXML.maximumBytes })
        let sizes = batches.map { $0.extensions.map(\.xml.utf8.count).reduce(0, +) }
        #expect(batches.count > 1 && sizes.allSatisfy { $0 < FITActivityCollector.maximumBatchExtensionBytes + FITDeveloperXML.maximumBytes }, "\(sizes)")

        let path = folder.file("developer.fit")
        try Data(Self.developerHeavy).write(to: URL(fileURLWithPath: path))
        let imported = try #require(try await FITImporter(store: store).importFile(at: path).workouts.first)
        #expect(imported.points == 300 && imported.skipped.count == 300)
        #expect(imported.skipped.first?.reason.contains("developer fields were dropped") == true, "\(imported.skipped.first!)")
        let route = try await readRoute(store, imported.workoutID)
        #expect(route.allSatisfy { ($0.unknownExtensions?.utf8.count ?? 0) > 0 && $0.unknownExtensions!.utf8.count <= FITDeveloperXML.maximumBytes })
    }
}
