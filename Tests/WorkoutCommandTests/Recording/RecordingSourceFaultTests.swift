import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
@testable import Workout

/// `workout record` when gpsd itself misbehaves (goes away, sends lines that are not reports), and
/// two recorders on one store.
@Suite("workout record through gpsd's faults", .timeLimit(.minutes(3)))
struct RecordingSourceFaultTests {
    /// gpsd goes away for 10 s after 60 fixes (restarted), then carries on: the recorder
    /// reconnects and records one workout with every fix gpsd sent.
    @Test func gpsdGoneForTenSecondsIsReconnectedAndNothingSentIsLost() async throws {
        // The fake holds its 61st fix for 5 s (a stall), so the restart below finds every fix
        // before it written out to the recorder, and none on the way.
        let recording = try Recording(.fixes(StraightRun.steady()), faults: [.stall(afterMessages: 60, duration: .seconds(5))])
        await recording.gpsd.waitUntil { $0.sentReports >= 60 && $0.isFlushed }
        try await recording.gpsd.restart(downtime: .seconds(10))
        let outcome = await recording.finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(recording.gpsd.status.acceptedConnections >= 3, "connected, back after the restart, back after the end")
        #expect(outcome.points == recording.gpsd.status.sentReports && outcome.points == 120)
        #expect(abs(outcome.distance - 357) < 1 && abs(outcome.duration - 119) < 0.01)
        #expect(outcome.input == [:] && outcome.errors == [], "\(outcome.errors)")
        #expect(try await WorkoutStore(path: recording.store).workouts().count == 1)
    }

    /// Lines that are not reports (not JSON, a cut-off TPV, a position out of range) are dropped:
    /// standard error says once what the first was and, at the end, how many there were.
    @Test func linesThatAreNotReportsAreDroppedAndSaidOnce() async throws {
        let recording = try Recording(.fixes(StraightRun.steady()), faults: [
            .garbageLine(afterMessages: 30),
            .garbageLine(afterMessages: 60, line: #"{"class":"TPV","mode":3,"lat":51.4"#),
            .garbageLine(afterMessages: 90, line: #"{"class":"TPV","mode":3,"lat":91.5,"lon":0.1}"#),
        ])
        let outcome = await recording.finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.points == 120)
        #expect(outcome.malformedLines == 3)
        let first = outcome.errors(containing: "dropped a line from the source that is not a report")
        #expect(first.count == 1 && first.first?.hasSuffix("this is not JSON") == true, "\(outcome.errors)")
        #expect(outcome.errors(containing: "dropped 3 lines from the source that were not reports.").count == 1, "\(outcome.errors)")
        #expect(outcome.errors.count == 2, "\(outcome.errors)")
    }

    /// Two recordings at once into one store file: both end well, two workouts.
    @Test func twoRecordersOnOneStoreSaveTwoWorkouts() async throws {
        let first = try Recording(.fixes(StraightRun.steady()))
        let elsewhere = SyntheticTrack.destination(SyntheticTrack.greenwich.latitude, SyntheticTrack.greenwich.longitude, course: 180, distance: 2_000)
        let second = try Recording(.fixes(StraightRun.steady(origin: elsewhere)), store: first.store)
        async let firstOutcome = first.finish()
        async let secondOutcome = second.finish()
        let outcomes = await [firstOutcome, secondOutcome]
        for outcome in outcomes {
            #expect(outcome.status == 0, "\(outcome)")
            #expect(outcome.points == 120)
            #expect(outcome.storeFailures.isEmpty)
        }
        let workouts = try await WorkoutStore(path: first.store).workouts()
        #expect(Set(workouts.map(\.id.uuidString)) == Set(outcomes.compactMap { $0.json["id"] as? String }))
        #expect(workouts.count == 2)
    }
}
