import FIT
import Foundation
import GRDB
import LocationCore
import Testing
@testable import Workout

/// The FIT export encoded a workout twice (to measure, then to write), and read the store in
/// separate transactions for each: a sample added between the two made them differ, and
/// FITWriter's precondition stopped the program. Both passes then read one snapshot of a file
/// store, and an in-memory store, which has none, threw. Since issue 24 the export encodes once,
/// into a temporary file, and writes the header when the data's size is known: a write to the
/// store while it runs cannot make the header and the data disagree, in either kind of store.
@Suite(.timeLimit(.minutes(2))) struct FITExportSnapshotTests {
    static let start = Date(timeIntervalSince1970: 1_714_546_800)
    static let count = 20_000

    /// A run of `count` points a second apart, with a heart rate at each point.
    static func saveRun(in store: WorkoutStore) async throws -> WorkoutRecord {
        let workout = WorkoutRecord(activityType: .running, start: start, end: start.addingTimeInterval(Double(count)))
        let points = (0..<count).map { index in
            let time = start.addingTimeInterval(Double(index))
            return Location(latitude: 51.5 + Double(index) * 1e-5, longitude: 0, altitude: 10, time: time, receivedAt: time)
        }
        let samples = points.map { QuantitySample(type: .heartRate, value: 120, at: $0.time!) }
        try await store.saveWorkout(workout, samples: samples, route: points)
        return workout
    }

    /// Writes a power reading between two points near the end, at once (the sink is synchronous):
    /// a power field in every record, had the export seen it.
    static func addSampleNow(to workout: WorkoutRecord, in store: WorkoutStore) throws {
        let sample = QuantitySample(type: .power, value: 150, at: start.addingTimeInterval(Double(count) - 10.5))
        try store.writer.write { db in
            let key = try #require(try WorkoutRows.find(workout.id, in: db)).key
            try store.insert([sample], workoutKey: key, workoutID: workout.id, in: db)
        }
    }

    @Test func aSampleAddedWhileAFileStoreExportsIsNotInTheFile() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore(path: folder.file("workouts.sqlite"))
        let workout = try await Self.saveRun(in: store)
        let before = try await store.exportData(workout.id, format: .fit)

        var written = Data()
        var added = false
        try await store.export(workout.id, format: .fit) { bytes in
            if !added {
                added = true
                try Self.addSampleNow(to: workout, in: store)
            }
            written.append(contentsOf: bytes)
        }
        #expect(added && written == before, "the file is the workout as it was when the export began")
        let (_, summary) = try FITReader(options: FITReadOptions(strict: true)).messages(of: Array(written))
        #expect(summary.issues.isEmpty)
        let after = try await store.exportData(workout.id, format: .fit)
        #expect(after.count > before.count, "the next export has the sample")
    }

    @Test func aSampleAddedWhileAnInMemoryStoreExportsLeavesAWholeFile() async throws {
        let store = try WorkoutStore.inMemory()
        let workout = try await Self.saveRun(in: store)
        let before = try await store.exportData(workout.id, format: .fit)
        var written = Data()
        var added = false
        try await store.export(workout.id, format: .fit) { bytes in
            if !added {
                added = true
                try Self.addSampleNow(to: workout, in: store)
            }
            written.append(contentsOf: bytes)
        }
        // The bytes reach the sink once the data is all encoded: the sample added at the first
        // of them is not in the file, and the file is whole (its header's size and CRC match).
        #expect(added && written == before)
        let (_, summary) = try FITReader(options: FITReadOptions(strict: true)).messages(of: Array(written))
        #expect(summary.issues.isEmpty)
    }
}
