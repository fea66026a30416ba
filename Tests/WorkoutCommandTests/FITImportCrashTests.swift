import FIT
import Foundation
import Simulators
import Testing
import TestSupport
@testable import Workout

extension Stage.Alone {
    /// kill -9 in the middle of a FIT import: the store opens readable, the activity imported before
    /// is complete, the one being imported is absent, and nothing staged is left. Alone in
    /// `scripts/test`: the signal must land while the import is at work, and nothing here holds
    /// the child there (the GPX kill test feeds its file through a pipe, in part, so that the
    /// import cannot end; the FIT import reads its file whole, and beside every other test the
    /// 300,000 records were imported before the test saw them begin).
    @Suite(.tags(.childProcess), .timeLimit(.minutes(2)))
    struct FITImportCrashTests {
        /// A FIT activity of `records` records one second apart, each with a position and heart rate,
        /// written by our FITWriter.
        static func largeActivity(records: Int) -> [UInt8] {
            FITWriter.file { writer in
                writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [FITFieldDefinition(number: 0, baseType: .enumeration)])
                writer.write(localType: 0, values: [.integer(4)])
                writer.define(localType: 1, globalNumber: FITMessageNumber.record, fields: [
                    FITFieldDefinition(number: 253, baseType: .uint32), FITFieldDefinition(number: 0, baseType: .sint32),
                    FITFieldDefinition(number: 1, baseType: .sint32), FITFieldDefinition(number: 3, baseType: .uint8),
                ])
                for second in 0..<records {
                    writer.write(localType: 1, values: [
                        .integer(1_083_481_200 + Int64(second)), .integer(300_000_000 + Int64(second) * 300), .integer(0), .integer(120 + Int64(second % 40)),
                    ])
                }
            }
        }

        @Test func killedDuringAFITImportLeavesEachWorkoutCompleteOrAbsent() async throws {
            let folder = NSTemporaryDirectory() + "fit-crash-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let store = folder + "/workouts.sqlite", large = folder + "/large.fit"
            _ = FileManager.default.createFile(atPath: large, contents: Data(Self.largeActivity(records: 300_000)))
            let small = Repository.fixture("fit/garmin-sdk-run.fit").path
            let importer = try ChildProcess(Repository.builtExecutable("workout").path, ["import", "--store", store, "--json", small, large])
            #expect(await importer.waitForLine { $0.contains("garmin-sdk-run.fit") } != nil, "\(importer.lines(.error))")
            // The kill lands once the large activity's first batches are staged.
            let watcher = try WorkoutStore(path: store)
            try await waitUntil { try await watcher.storageCounts().stagedPoints >= 10_000 || importer.exitStatus != nil }
            importer.send(signal: SIGKILL)
            let status = await importer.waitUntilExit()
            try #require(status == 128 + SIGKILL, "the import ended before it could be killed: \(status)")

            let reopened = try WorkoutStore(path: store)
            #expect(try await reopened.checkIntegrity() == [])
            let workouts = try await reopened.workouts()
            #expect(workouts.count == 1)
            let kept = try #require(workouts.first)
            #expect(try await reopened.route(of: kept.id)?.pointCount == 100)
            #expect(try await reopened.events(of: kept.id).count == 3)
            let counts = try await reopened.storageCounts()
            #expect(counts.stagedRoutes + counts.stagedPoints + counts.stagedWorkouts + counts.stagedSamples == 0)
        }
    }
}
