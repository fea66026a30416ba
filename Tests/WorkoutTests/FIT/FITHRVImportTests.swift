import FIT
import Foundation
import TestSupport
import Testing
@testable import Workout

/// Issue 24: a FIT file's `hrv` messages (beat-to-beat intervals, as Garmin's devices write them)
/// are imported as ``QuantityType/heartbeatInterval`` samples. A device's file says only the
/// intervals, one after another from the activity's start: each beat is dated where the one before
/// it ended, from the first timer start. The corpus's Garmin files with `hrv` messages (read in
/// place) give every interval Garmin's decoder reads, but those outside the activity's records.
@Suite struct FITHRVImportTests {
    static let folder = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/fit")

    static let isPresent = FileManager.default.fileExists(atPath: folder.appendingPathComponent("garmin-fenix-5-run.fit").path)

    @Test(.enabled(if: isPresent, "the FIT corpus is not at ../shared/corpora/fit"),
          .enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"),
          arguments: ["garmin-fenix-5-run.fit", "garmin-fenix-5-walk.fit", "garmin-edge-820-bike.fit"])
    func aDevicesBeatToBeatIntervalsAreImported(name: String) async throws {
        let path = Self.folder.appendingPathComponent(name).path
        let peer = try #require(try await FITPeers.read([path])[path]).garmin
        let store = try WorkoutStore.inMemory()
        let imported = try #require(try await FITImporter(store: store).importFile(at: path).workouts.first)
        let beats = try await store.samples(of: imported.workoutID, type: .heartbeatInterval)
        #expect(!peer.hrv.isEmpty && !beats.isEmpty)
        let outside = imported.skipped.filter { $0.reason.contains("beat-to-beat intervals lie outside") }
        #expect(beats.count <= peer.hrv.count && (beats.count == peer.hrv.count || outside.count == 1), "\(name): \(beats.count) of \(peer.hrv.count)")
        // In order, each beginning where the one before ended (to the millisecond the values have).
        #expect(zip(beats, beats.dropFirst()).allSatisfy { abs($1.start.timeIntervalSince($0.end)) < 1e-6 })
        #expect(beats.allSatisfy { imported.workout.contains($0.start) && imported.workout.contains($0.end) })
        let values = Set(peer.hrv.map { ($0 * 1000).rounded() })
        #expect(beats.allSatisfy { values.contains(($0.value * 1000).rounded()) })
    }

    @Test func aTypesKeyIsItsPlaceAmongAllTypes() {
        #expect(QuantityType.allCases.map(\.hashKey) == Array(QuantityType.allCases.indices))
    }
}
