import FIT
import Foundation
import LocationCore
import TCX
import Testing
@testable import Workout

/// What ended each lap, in FIT (`lap_trigger`) and TCX (`TriggerMethod`): the FIT and TCX exports
/// matched the workout's lap events to its laps by position, so a lap event at the workout's
/// start (which ends no lap) gave every lap the trigger of the one before. Each lap now carries
/// its own (``WorkoutLap/trigger``).
@Suite struct LapTriggerExportTests {
    static let start = Date(timeIntervalSince1970: 1_714_546_800)

    /// 90 s of points a second apart; lap events at the start (distance: it ends nothing), at 30 s
    /// (time) and at 60 s (manual).
    static func store() async throws -> (WorkoutStore, UUID) {
        let store = try WorkoutStore.inMemory()
        let workout = WorkoutRecord(activityType: .running, start: start, end: start.addingTimeInterval(90))
        let points = (0...90).map { second in
            let time = start.addingTimeInterval(Double(second))
            return Location(latitude: 51.5 + Double(second) * 2e-5, longitude: 0, time: time, receivedAt: time)
        }
        let events = [
            WorkoutEvent(.lap, at: start, trigger: .distance),
            WorkoutEvent(.lap, at: start.addingTimeInterval(30), trigger: .time),
            WorkoutEvent(.lap, at: start.addingTimeInterval(60), trigger: .manual),
        ]
        _ = try await store.saveWorkout(workout, samples: [], segments: [points], events: events, routeMetadata: nil)
        return (store, workout.id)
    }

    @Test func eachLapCarriesWhatEndedIt() async throws {
        let (store, id) = try await Self.store()
        let laps = try await store.laps(of: id)
        #expect(laps.map(\.start) == [0, 30, 60].map { Self.start.addingTimeInterval($0) })
        #expect(laps.map(\.trigger) == [.time, .manual, nil], "the last lap ended with the workout")
    }

    @Test func theFITExportWritesEachLapsOwnTrigger() async throws {
        let (store, id) = try await Self.store()
        let data = try await store.exportData(id, format: .fit)
        let (messages, _) = try FITReader(options: FITReadOptions(strict: true)).messages(of: Array(data))
        let triggers = messages.compactMap(FITTotals.init).filter { $0.kind == .lap }.map(\.lapTrigger)
        #expect(triggers == [1, 0, 7], "time, manual, session end (by position: distance, time, manual)")
    }

    @Test func theTCXExportWritesEachLapsOwnTriggerMethod() async throws {
        let (store, id) = try await Self.store()
        let data = try await store.exportData(id, format: .tcx)
        var methods: [String?] = []
        _ = try TCXReader().read(data: data, name: "laps.tcx") { event in
            if case let .lapEnd(lap) = event { methods.append(lap.triggerMethod) }
        }
        #expect(methods == ["Time", "Manual", "Manual"], "by position: Distance, Time, Manual")
    }
}
