import Foundation
import Testing
import TestSupport
import Workout

/// The README's GPX example, as written there, run on a fixture.
@Test func theReadmeGPXExampleRuns() async throws {
    let folder = try TemporaryFolder()
    let store = try WorkoutStore.inMemory()
    let ride = Repository.fixture("gpx/gpx11-full.gpx.gz").path
    let exported = folder.file("ride.gpx")
    var workoutID = UUID()

    // From the README:
    let report = try await GPXImporter(store: store).importFile(at: ride)   // one workout per track
    for track in report.workouts {
        print(track.isNew ? "imported" : "already imported", track.workoutID, track.points, track.skipped)
        workoutID = track.workoutID
    }
    try await store.export(workoutID, format: .gpx, toFileAt: exported)                 // or .geojson
    let svg = try await store.plotSVG(of: workoutID)                                    // route, elevation, heart rate

    #expect(!report.workouts.isEmpty)
    #expect(FileManager.default.fileExists(atPath: exported))
    #expect(svg.contains("<svg"))
}
