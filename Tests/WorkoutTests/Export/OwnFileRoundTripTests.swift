import FIT
import Foundation
import TestSupport
import Testing
@testable import Workout

/// Issue 24: a workout exported as GPX, FIT or TCX and imported again is the same workout. A
/// recorded run (``RecordedRunFixture``: stops auto-paused, a user's pause, laps manual and
/// automatic, a marker, a strap read between fixes with its beat-to-beat intervals) goes out in
/// each format and comes back: into the store that holds it, as the workout it is (nothing
/// saved); into a new store, under its id, with its events exactly, its distance within 0.1 %, its
/// elapsed time, duration and moving time within a second, its heart rate's mean within 1 bpm,
/// and (GPX, FIT) its beat-to-beat intervals.
@Suite(.timeLimit(.minutes(3))) struct OwnFileRoundTripTests {
    /// Exports `workout` from `store` as `format`, and imports the file into `store` and into a
    /// new store; returns the new store and the workout's id there.
    func roundTrip(_ workout: WorkoutRecord, of store: WorkoutStore, as format: WorkoutExportFormat, in folder: TemporaryFolder)
        async throws -> (file: String, copy: WorkoutStore, id: UUID) {
        let file = folder.file("run." + format.fileExtension)
        let summary = try await store.export(workout.id, format: format, toFileAt: file)
        let samples = try await store.samples(of: workout.id)
        // Every sample the format holds is written: FIT, GPX (in our extension beside the points)
        // all of them; TCX all but temperatures and beat-to-beat intervals.
        let unheld = format == .tcx ? samples.filter { $0.type == .heartbeatInterval || $0.type == .temperature }.count : 0
        #expect(summary.samplesNotWritten == unheld, "\(format)")
        let again = try await store.importOwn(file, format: format)
        #expect(again.outcome == .alreadySaved(existingID: workout.id, matchedBy: .id), "\(format): found in the store that holds it")
        #expect(try await store.workouts().count == 1)
        let copy = try WorkoutStore.inMemory()
        let imported = try await copy.importOwn(file, format: format)
        #expect(imported.id == workout.id, "\(format): under its own id")
        return (file, copy, imported.id)
    }

    @Test(arguments: WorkoutExportFormat.ours)
    func aRecordedRunComesBackAsItself(format: WorkoutExportFormat) async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let workout = try await RecordedRunFixture.record(in: store)
        let (_, copy, id) = try await roundTrip(workout, of: store, as: format, in: folder)
        let back = try #require(try await copy.workout(id: id))

        let events = try await store.events(of: workout.id)
        #expect(Set(events.map(\.kind)) == Set(WorkoutEvent.Kind.allCases), "the run has every kind of event")
        #expect(try await copy.events(of: id) == events.map { WorkoutEvent($0.kind, at: WorkoutEnvelope.written($0.time), name: $0.name, trigger: $0.trigger) },
                "\(format): the events exactly (times to the millisecond, as written)")
        // FIT dates its records to the second: the workout may begin up to a second earlier.
        #expect(abs(back.start.timeIntervalSince(workout.start)) < (format == .fit ? 1 : 0.000_5) && abs(back.end.timeIntervalSince(workout.end)) < 0.000_5, "\(format)")
        let distance = try #require(workout.totals.distance)
        #expect(abs(try #require(back.totals.distance) - distance) <= distance * 0.001, "\(format): distance \(back.totals.distance ?? 0) against \(distance)")
        #expect(abs(back.elapsedTime - workout.elapsedTime) <= 1, "\(format): elapsed time")
        #expect(abs(back.duration - workout.duration) <= 1, "\(format): duration \(back.duration) against \(workout.duration)")
        #expect(abs(back.movingTime - workout.movingTime) <= 1, "\(format): moving time \(back.movingTime) against \(workout.movingTime)")
        let laps = try await store.laps(of: workout.id), copiedLaps = try await copy.laps(of: id)
        #expect(copiedLaps.count == laps.count && copiedLaps.map(\.trigger) == laps.map(\.trigger), "\(format): laps")

        // The heart rate: the mean weighted by time (the store's figures), and the samples' plain mean.
        let heartRate = try #require(try await store.sampleFigures(of: workout.id)[.heartRate])
        let copiedHeartRate = try #require(try await copy.sampleFigures(of: id)[.heartRate])
        #expect(abs(copiedHeartRate.average - heartRate.average) <= 1, "\(format): mean \(copiedHeartRate.average) against \(heartRate.average)")
        let values = try await store.samples(of: workout.id, type: .heartRate).map(\.value)
        let copiedValues = try await copy.samples(of: id, type: .heartRate).map(\.value)
        #expect(abs(Self.mean(copiedValues) - Self.mean(values)) <= 1, "\(format): the samples' plain mean")
        #expect(copiedValues.count >= values.count - 1, "\(format): a heart rate for (nearly) every sample: \(copiedValues.count) of \(values.count)")

        let beats = try await store.samples(of: workout.id, type: .heartbeatInterval)
        let copiedBeats = try await copy.samples(of: id, type: .heartbeatInterval)
        switch format {
        case .tcx:
            #expect(copiedBeats.isEmpty, "TCX has no place for beat-to-beat intervals (counted as not written)")
        default:
            // FIT holds an interval to the millisecond (hrv), each beat dated from its message's first.
            let tolerance = format == .fit ? 0.003 : 0.000_5
            #expect(copiedBeats.count == beats.count, "\(format): every interval")
            for (old, new) in zip(beats, copiedBeats) {
                #expect(abs(new.value - old.value) <= 0.000_5 + 1e-9 && abs(new.end.timeIntervalSince(old.end)) <= tolerance, "\(format): \(old) came back as \(new)")
            }
        }
    }

    /// An export of an import of our file is that file: nothing is lost or added on the second
    /// trip. (FIT dates records to the second: the strap's heart rates 0.4 s after the fixes come
    /// back at the fixes' seconds, in the points' records; so the FIT file of the first import
    /// is the one that comes back the same.)
    @Test(arguments: WorkoutExportFormat.ours)
    func anExportOfTheImportIsTheSameFile(format: WorkoutExportFormat) async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let workout = try await RecordedRunFixture.record(in: store, stops: 1)
        var (file, copy, id) = try await roundTrip(workout, of: store, as: format, in: folder)
        if format == .fit {
            let again = folder.file("again.fit")
            try await copy.export(id, format: .fit, toFileAt: again)
            copy = try WorkoutStore.inMemory()
            id = try await copy.importOwn(again, format: .fit).id
            file = again
        }
        let second = try await copy.exportData(id, format: format)
        #expect(second == (try Data(contentsOf: URL(fileURLWithPath: file))), "\(format)")
    }

    /// The FIT export works out its laps as it writes the records (without reading the workout a
    /// second time): they are the store's, to the file's resolution.
    @Test func aFITFilesLapsAreTheStoresLaps() async throws {
        let store = try WorkoutStore.inMemory()
        let workout = try await RecordedRunFixture.record(in: store)
        let laps = try await store.laps(of: workout.id)
        let (messages, _) = try FITReader().messages(of: Array(try await store.exportData(workout.id, format: .fit)))
        let written = messages.compactMap(FITTotals.init).filter { $0.kind == .lap }
        try #require(laps.count > 2 && written.count == laps.count)
        for (lap, message) in zip(laps, written) {
            #expect(abs((message.distance ?? -1) - lap.distance) <= 0.005, "lap \(lap.index): distance")
            // The timer stops at pauses and auto-pauses, as the file's timer events say: the lap's moving time.
            #expect(abs((message.timerTime ?? -1) - lap.movingTime) <= 0.000_5, "lap \(lap.index): timer time \(message.timerTime ?? -1) against moving time \(lap.movingTime)")
            #expect(abs((message.elapsedTime ?? -1) - lap.elapsedTime) <= 0.000_5, "lap \(lap.index): elapsed time")
            let heartRate = try #require(lap.samples[.heartRate])
            #expect(message.averageHeartRate == heartRate.average.rounded() && message.maximumHeartRate == heartRate.maximum,
                    "lap \(lap.index): heart rate \(message.averageHeartRate ?? 0), \(message.maximumHeartRate ?? 0)")
        }
    }

    /// A workout without a route (an indoor ride: heart rate and power) has no position for a
    /// GPX track to hold: the GPX export refuses it, saying to export FIT or TCX instead, and
    /// leaves no file.
    @Test func aWorkoutWithoutARouteIsRefusedByGPX() async throws {
        let store = try WorkoutStore.inMemory()
        let start = Date(timeIntervalSince1970: 1_714_557_600.5)
        let workout = WorkoutRecord(activityType: .cycling, start: start, end: start.addingTimeInterval(600))
        let samples = (0..<600).map { QuantitySample(type: .power, value: Double(200 + $0 % 7), at: start.addingTimeInterval(Double($0))) }
        try await store.saveWorkout(workout, samples: samples, route: [])
        let folder = try TemporaryFolder()
        let file = folder.file("ride.gpx")
        let error = await #expect(throws: WorkoutStoreError.self) {
            try await store.export(workout.id, format: .gpx, toFileAt: file)
        }
        guard case let .formatCannotHold(id, format, _, instead)? = error else {
            Issue.record("refused with \(String(describing: error))")
            return
        }
        #expect(id == workout.id && format == .gpx && instead == [.fit, .tcx])
        let text = error?.description ?? ""
        #expect(text.contains("no route") && text.contains("Export it as FIT or TCX instead"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: file), "no file is left")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nor a temporary one")
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }
}
