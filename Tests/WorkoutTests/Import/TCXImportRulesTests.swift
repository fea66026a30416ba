import Foundation
import GPSCore
import TCX
import Testing
@testable import Workout

/// The TCX importer's rules on small documents written here: points dated out of line.
@Suite struct TCXImportRulesTests {
    let store: WorkoutStore
    let folder: TemporaryFolder

    init() throws {
        store = try WorkoutStore.inMemory()
        folder = try TemporaryFolder()
    }

    /// 2024-05-01T07:00:00Z.
    static let start = 1_714_546_800.0

    static func date(_ second: Double) -> Date { Date(timeIntervalSince1970: start + second) }

    /// A TCX document of one activity with one lap per entry of `laps`, each a track of points at
    /// those seconds after ``start`` (a metre north per second, heart rate 120).
    static func document(laps: [[Double]], lapExtra: String = "") -> String {
        var text = #"<?xml version="1.0" encoding="UTF-8"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="Running"><Id>2024-05-01T07:00:00Z</Id>"#
        for seconds in laps {
            text += #"<Lap StartTime="\#(RFC3339.string(from: date(seconds.first ?? 0)))">\#(lapExtra)<Track>"#
            for second in seconds {
                text += "<Trackpoint><Time>\(RFC3339.string(from: date(second)))</Time><Position><LatitudeDegrees>\(51.5 + second * 0.000_009)</LatitudeDegrees>"
                    + "<LongitudeDegrees>0</LongitudeDegrees></Position><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>"
            }
            text += "</Track></Lap>"
        }
        return text + "</Activity></Activities></TrainingCenterDatabase>"
    }

    func importDocument(_ text: String, options: TCXImportOptions = TCXImportOptions()) async throws -> TCXImportReport {
        let path = folder.file("activity-\(UUID().uuidString).tcx")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try await TCXImporter(store: store, options: options).importFile(at: path)
    }

    /// A point dated an hour ahead dropped every point after it; it is now the odd one out, as
    /// in a FIT file and in a live session.
    @Test func aLonePointDatedFarAheadIsTheOddOneOut() async throws {
        let report = try await importDocument(Self.document(laps: [Array(0..<10).map(Double.init) + [3_600] + Array(10..<20).map(Double.init)]))
        let imported = try #require(report.workouts.first)
        #expect(imported.points == 20 && imported.workout.end == Self.date(19))
        #expect(imported.skipped.count == 1 && imported.skipped[0].reason.contains("ahead of the point after it"), "\(imported.skipped)")
    }

    /// The lap after a point held keeps its place: its start is a lap event.
    @Test func aLapAfterAPointHeldKeepsItsPlace() async throws {
        let report = try await importDocument(Self.document(laps: [[0, 1, 2, 5_000], [3, 4, 5]]))
        let imported = try #require(report.workouts.first)
        #expect(imported.points == 6 && imported.laps == 2)
        let events = try await store.events(of: imported.workoutID)
        #expect(events.map(\.kind) == [.lap] && events.map(\.time) == [Self.date(3)])
    }

    /// Strict mode stops at the first point the import would skip, at its line, as at an
    /// invalid value the reader finds; nothing of the activity is saved.
    @Test func strictStopsAtTheFirstPointItWouldSkip() async throws {
        let text = Self.document(laps: [[0, 1, 5, 3, 6]])
        let lenient = try await importDocument(text)
        let skip = try #require(lenient.workouts.first?.skipped.first)
        #expect(skip.reason.contains("earlier than the point before it"))

        let strictStore = try WorkoutStore.inMemory()
        let path = folder.file("strict.tcx")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        await #expect {
            try await TCXImporter(store: strictStore, options: TCXImportOptions(strict: true)).importFile(at: path)
        } throws: { error in
            guard let error = error as? TCXImportError, case let .read(.invalidValue(file, line, _, reason), imported) = error else { return false }
            return file == path && line == skip.line && reason == skip.reason && imported.isEmpty
        }
        #expect(try await strictStore.workoutCount() == 0)
    }

    /// 20,000 points without a valid time grew the reader's list of skips by one each, and 12,000
    /// laps the importer's list of lap starts by one each. The skips listed stop at 1,000 (the count
    /// goes on), and an activity keeps 10,000 laps (the later ones belong to the last).
    @Test func aHostileDocumentKeepsItsListsBounded() async throws {
        var text = Self.document(laps: (0..<12_000).map { [Double($0)] })
        let badPoint = "<Trackpoint><Time>not a time</Time></Trackpoint>"
        let bad = String(repeating: badPoint, count: 20_000)
        text = text.replacingOccurrences(of: "</Track></Lap></Activity>", with: bad + "</Track></Lap></Activity>")
        let report = try await importDocument(text)
        #expect(report.read.skippedCount == 20_000 && report.read.skipped.count == TCXReadSummary.maximumSkipsListed)
        let imported = try #require(report.workouts.first)
        #expect(imported.points == 12_000)
        #expect(imported.laps == TCXActivityCollector.maximumLaps, "12,000 laps in the file; the last 2,001 are one")
    }
}
