import Foundation
import Testing
import LocationFacade
import Simulators
import WorkoutSimulators
@testable import Workout

/// A run recorded by a session, with everything a round trip through a file must keep: three
/// stops auto-paused, a user's pause and resume, a manual lap and auto-laps every 200 m, a marker
/// whose name XML must escape; and a chest strap read between fixes, as every real strap is: a
/// heart rate 0.4 s after each fix, and the beat-to-beat intervals of every beat (contiguous, but
/// for a beat missed now and then), as the Bluetooth sensors store them (1/1024 s).
enum RecordedRunFixture {
    /// How far after each fix the strap is read.
    static let strapDelay = 0.4

    /// Records the run into `store`; returns its workout.
    static func record(in store: WorkoutStore, stops: Int = 3, seed: UInt64 = 11) async throws -> WorkoutRecord {
        let clock = VirtualClock()
        let track = WorkoutSessionTests.runWithStops(stops, seed: seed)
        let source = ReplayLocationSource(locations: track, clock: clock)
        let session = WorkoutSession(
            store: store, source: source,
            configuration: .init(activityType: .running, autoPause: .defaults(for: .running), autoLapDistance: 200), clock: clock)
        try session.start()
        await clock.advance(by: .seconds(30))
        try session.pause()
        await clock.advance(by: .seconds(10))
        try session.resume()
        try session.lap()
        await clock.advance(by: .seconds(20))
        try session.mark(#"Bridge & <gate> "east""#)
        await clock.advance(by: .seconds(Double(track.count) + 10))
        let workout = try await session.end()
        try await store.addSamples(strap(following: track, within: workout), to: workout)
        return workout
    }

    /// The strap's samples over `track`, inside `workout`: a heart rate `strapDelay` after each
    /// fix (by the fake sensor's model, for the fixes' speeds), and a beat every 60/rate seconds.
    static func strap(following track: [Location], within workout: WorkoutRecord) -> [QuantitySample] {
        let rates = FakeHeartRateSensor(seed: 5).samples(for: track)
        var samples: [QuantitySample] = []
        for rate in rates {
            let time = rate.start.addingTimeInterval(strapDelay)
            guard workout.contains(time) else { continue }
            samples.append(QuantitySample(type: .heartRate, value: rate.value, at: time))
        }
        var beat = workout.start.timeIntervalSince1970 + 0.25
        var index = 0
        var number = 0
        while index < rates.count {
            let rate = rates[index].value
            let interval = (60 / rate * 1024).rounded() / 1024
            let next = beat + interval
            guard next <= workout.end.timeIntervalSince1970 else { break }
            number += 1
            // Every 40th beat is missed: the next interval begins a beat later.
            if number % 40 != 0 {
                samples.append(QuantitySample(
                    type: .heartbeatInterval, value: interval, start: Date(timeIntervalSince1970: beat), end: Date(timeIntervalSince1970: next)))
            }
            beat = next
            while index < rates.count, rates[index].start.timeIntervalSince1970 < beat { index += 1 }
        }
        return samples
    }
}

extension WorkoutExportFormat {
    /// The formats our importers read back.
    static let ours: [WorkoutExportFormat] = [.gpx, .fit, .tcx]
}

extension WorkoutStore {
    /// Imports `file` (GPX, FIT or TCX, as `format`); returns the first workout's id and outcome.
    func importOwn(_ file: String, format: WorkoutExportFormat) async throws -> (id: UUID, outcome: SaveOutcome) {
        switch format {
        case .gpx:
            let imported = try #require(try await GPXImporter(store: self).importFile(at: file).workouts.first)
            return (imported.workoutID, imported.outcome)
        case .fit:
            let imported = try #require(try await FITImporter(store: self).importFile(at: file).workouts.first)
            return (imported.workoutID, imported.outcome)
        case .tcx:
            let imported = try #require(try await TCXImporter(store: self).importFile(at: file).workouts.first)
            return (imported.workoutID, imported.outcome)
        case .geojson:
            throw FileFormatNotImported()
        }
    }
}

/// GeoJSON is exported, never imported.
struct FileFormatNotImported: Error {}
