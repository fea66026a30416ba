import Foundation
import LocationFacade
import Testing
import TestSupport
@testable import Workout

/// One statistics engine: a track imported from GPX, the same points saved through the chain
/// (`save`, `insertRouteData`, `finishRoute`) and through `saveWorkout`, all without totals of
/// their own, give the same distance, moving time and elevation gain and loss.
@Suite("Import, chain and saveWorkout work totals out alike", .timeLimit(.minutes(1)))
struct OneStatisticsEngineTests {
    @Test(arguments: ["greenwich-walk.gpx", "gpx11-full.gpx", "garmin-trackpointextension.gpx", "two-runs.gpx"])
    func theChainAndSaveWorkoutGiveAnImportsTotals(file: String) async throws {
        let imported = try WorkoutStore.inMemory()
        let report = try await GPXImporter(store: imported).importFile(at: Repository.fixture("gpx/" + file).path)
        #expect(!report.workouts.isEmpty)
        for workout in report.workouts.map(\.workout) {
            var segments: [[Location]] = []
            for try await batch in imported.routePoints(of: workout.id) {
                for point in batch {
                    if segments.count <= point.segment { segments.append([]) }
                    segments[point.segment].append(point.location)
                }
            }
            let bare = WorkoutRecord(id: UUID(), activityType: workout.activityType, start: workout.start, end: workout.end)

            let chained = try WorkoutStore.inMemory()
            try await chained.save(bare)
            let builder = RouteBuilder(store: chained)
            for segment in segments {
                try await builder.startNewSegment()
                try await builder.insertRouteData(segment)
            }
            try await builder.finishRoute(with: bare, metadata: nil)
            let chainTotals = try #require(try await chained.workout(id: bare.id)).totals
            #expect(chainTotals.distance != nil, "a chain-saved workout has a distance")
            #expect(chainTotals == workout.totals, "\(file): chain \(chainTotals) vs import \(workout.totals)")

            guard segments.count == 1 else { continue }  // the public saveWorkout takes one segment
            let saved = try WorkoutStore.inMemory()
            try await saved.saveWorkout(bare, route: segments[0])
            #expect(try #require(try await saved.workout(id: bare.id)).totals == workout.totals, "\(file): saveWorkout")
        }
    }

    @Test func totalsTheCallerGivesAreKept() async throws {
        let store = try WorkoutStore.inMemory()
        let start = Date(timeIntervalSince1970: 1_714_557_600)
        let route = (0..<30).map { second in
            Location(latitude: 51.5, longitude: -0.1 + Double(second) * 4e-5, altitude: 20, time: start + Double(second),
                     receivedAt: start + Double(second), mode: .fix3D)
        }
        let measured = WorkoutRecord(
            id: UUID(), activityType: .cycling, start: start, end: start + 29, totals: WorkoutTotals(distance: 100, energy: 12))
        try await store.saveWorkout(measured, route: route)
        #expect(try await store.workout(id: measured.id)?.totals == measured.totals, "a wheel sensor's distance is not replaced")
    }
}
