import FIT
import Foundation
import LocationCore
import Testing
@testable import Workout

/// Data faster than 1 Hz through FIT, whose record times are whole seconds (`date_time`): what the
/// README's "lost" row says of it, checked. The export writes every point and sample, each
/// instant a record, so two instants of one second make two records with the same time; imported
/// again, every point is kept (at its second) and the first sample of each type in a second,
/// the others reported as skipped.
@Suite struct FITSubsecondExportTests {
    @Test func twoHertzDataKeepsItsPointsAndTheFirstSampleOfEachSecond() async throws {
        let store = try WorkoutStore.inMemory()
        let start = Date(timeIntervalSince1970: 1_714_546_800)
        let workout = WorkoutRecord(activityType: .running, start: start, end: start.addingTimeInterval(19.5))
        let points = (0..<40).map { index in
            let time = start.addingTimeInterval(Double(index) / 2)
            return Location(latitude: 51.5 + Double(index) * 1e-5, longitude: 0, time: time, receivedAt: time)
        }
        let samples = points.enumerated().map { index, point in
            QuantitySample(type: .heartRate, value: 120 + Double(index % 2), at: point.time!)
        }
        try await store.saveWorkout(workout, samples: samples, route: points)

        let folder = try TemporaryFolder()
        let file = folder.file("two-hertz.fit")
        let summary = try await store.export(workout.id, format: .fit, toFileAt: file)
        #expect(summary.points == 40 && summary.samplesWritten == 40 && summary.samplesNotWritten == 0, "every point and sample is written")
        var times: [Int64] = []
        _ = try FITReader(options: FITReadOptions(strict: true)).read(fileAt: file) { event in
            if case let .message(message) = event, message.globalNumber == FITMessageNumber.record, let time = message.timestamp {
                times.append(Int64(time))
            }
        }
        #expect(times.count == 40 && Set(times).count == 20, "two records a second, with the same time")

        let again = try WorkoutStore.inMemory()
        let imported = try #require(try await FITImporter(store: again).importFile(at: file).workouts.first)
        #expect(imported.points == 40, "every point, at its second")
        let heartRates = try await again.samples(of: imported.workoutID, type: .heartRate)
        #expect(heartRates.count == 20 && heartRates.allSatisfy { $0.value == 120 }, "the first of each second")
        #expect(imported.skipped.count == 20 && imported.skipped.allSatisfy { $0.reason.contains("has the same time") })
    }
}
