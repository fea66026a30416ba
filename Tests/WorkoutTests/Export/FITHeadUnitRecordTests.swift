import FIT
import Foundation
import LocationCore
import TestSupport
import Testing
@testable import Workout

/// FIT as a head unit writes it. A ride with a strap (1 Hz, 0.31 s after each fix), a speed and
/// cadence sensor (1 Hz, 0.62 s after) and a power meter (4 Hz), with a 20 s tunnel without fixes,
/// exported: a record per fix and one per second of the tunnel, each holding every sensor's value
/// nearest its time; the power meter's three other readings a second are not written, and counted.
/// Imported again, the distance, times and laps are the ride's, the heart rates and cadences every
/// one of them (so their means exactly), and the power's mean within 1 % of the 4 Hz mean: the
/// reading nearest each second, against the mean of all four. (The wheel's speed on a fix's record
/// is read back as the fix's speed, FIT having one speed a record: only the tunnel's are samples.)
@Suite(.timeLimit(.minutes(3))) struct FITHeadUnitRecordTests {
    static let start = Date(timeIntervalSince1970: 1_714_546_800)
    static let seconds = 600
    static let tunnel = 300..<320

    /// The power at `time` seconds into the ride: a slow swell, so that a second's readings differ.
    static func power(_ time: Double) -> Double { (220 + 60 * sin(time / 20)).rounded() }

    static func saveRide(in store: WorkoutStore) async throws -> WorkoutRecord {
        let workout = WorkoutRecord(activityType: .cycling, start: start, end: start.addingTimeInterval(Double(seconds - 1) + 0.9))
        var points: [Location] = []
        var samples: [QuantitySample] = []
        for second in 0..<seconds {
            let time = start.addingTimeInterval(Double(second))
            if !tunnel.contains(second) {
                points.append(Location(latitude: 51.5 + Double(second) * 6e-5, longitude: -0.1, altitude: 20, time: time, receivedAt: time))
            }
            samples.append(QuantitySample(type: .heartRate, value: Double(130 + second % 25), at: time.addingTimeInterval(0.31)))
            samples.append(QuantitySample(type: .cadence, value: Double(85 + second % 9), at: time.addingTimeInterval(0.45)))
            samples.append(QuantitySample(type: .speed, value: 6.5 + Double(second % 5) / 10, at: time.addingTimeInterval(0.45)))
            for quarter in [0.05, 0.3, 0.55, 0.8] {
                samples.append(QuantitySample(type: .power, value: power(Double(second) + quarter), at: time.addingTimeInterval(quarter)))
            }
        }
        try await store.saveWorkout(workout, samples: samples, route: points)
        return try #require(try await store.workout(id: workout.id))
    }

    @Test func aRecordAFixAndASecondInTheTunnelEachWithEverySensor() async throws {
        let store = try WorkoutStore.inMemory()
        let workout = try await Self.saveRide(in: store)
        let folder = try TemporaryFolder()
        let file = folder.file("ride.fit")
        let summary = try await store.export(workout.id, format: .fit, toFileAt: file)
        let fixes = Self.seconds - Self.tunnel.count
        #expect(summary.points == fixes)
        #expect(summary.samplesWritten == 4 * Self.seconds, "a heart rate, cadence, speed and power a record")
        #expect(summary.samplesNotWritten == 3 * Self.seconds, "the power meter's other three readings a second")

        let (messages, read) = try FITReader(options: FITReadOptions(strict: true)).messages(of: Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(read.issues.isEmpty)
        let records = messages.compactMap { $0.globalNumber == FITMessageNumber.record ? FITRecord($0) : nil }
        #expect(records.count == Self.seconds, "one record a second: \(records.count)")
        #expect(Set(records.compactMap(\.time)).count == Self.seconds, "no two records share a second")
        #expect(records.filter { $0.latitude != nil }.count == fixes)
        #expect(records.allSatisfy { $0.heartRate != nil && $0.cadence != nil && $0.power != nil && $0.speed != nil },
                "every record holds every sensor's value")
        for (second, record) in records.enumerated() {
            // The values nearest the record's time: the strap's and the sensor's of its second, the
            // power meter's reading 0.05 s after a fix, and 0.55 s into a second of the tunnel.
            #expect(record.heartRate == Double(130 + second % 25) && record.cadence == Double(85 + second % 9), "record \(second)")
            let quarter = Self.tunnel.contains(second) ? 0.55 : 0.05
            #expect(record.power == Self.power(Double(second) + quarter), "record \(second): power \(record.power ?? -1)")
        }
        // In the tunnel the distance stays where the last fix left it.
        let tunnelDistances = Set(records[Self.tunnel].map(\.distance))
        #expect(tunnelDistances.count == 1 && tunnelDistances.first! == records[Self.tunnel.lowerBound - 1].distance)

        // Imported again: the ride's distance, times and laps; every heart rate and cadence.
        let copy = try WorkoutStore.inMemory()
        let imported = try #require(try await FITImporter(store: copy).importFile(at: file).workouts.first)
        let back = try #require(try await copy.workout(id: imported.workoutID))
        #expect(back.start == workout.start && abs(back.end.timeIntervalSince(workout.end)) < 0.000_5)
        #expect(abs(back.duration - workout.duration) < 0.001 && abs(back.movingTime - workout.movingTime) < 0.001
                && abs(back.elapsedTime - workout.elapsedTime) < 0.001)
        let distance = try #require(workout.totals.distance)
        // Positions to the semicircle (8.4e-8°, about 9 mm): the distance to a millimetre a kilometre.
        #expect(abs(try #require(back.totals.distance) - distance) <= distance * 1e-6, "\(back.totals.distance ?? 0) against \(distance)")
        let laps = try await store.laps(of: workout.id), lapsAgain = try await copy.laps(of: back.id)
        #expect(lapsAgain.count == laps.count && zip(lapsAgain, laps).allSatisfy { abs($0.distance - $1.distance) <= $1.distance * 1e-6 + 1e-6 })
        #expect(imported.skipped.isEmpty, "\(imported.skipped)")
        let original = try await store.sampleFigures(of: workout.id), again = try await copy.sampleFigures(of: back.id)
        for type in [QuantityType.heartRate, .cadence] {
            let before = try #require(original[type]), after = try #require(again[type])
            #expect(after.count == before.count && abs(after.average - before.average) < 1e-9, "\(type): \(after) against \(before)")
        }
        let power = try #require(original[.power]), powerAgain = try #require(again[.power])
        #expect(powerAgain.count == Self.seconds)
        #expect(abs(powerAgain.average - power.average) <= power.average * 0.01, "power: \(powerAgain.average) against \(power.average)")
    }

    @Test(.enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"))
    func garminsDecoderReadsARecordASecondWithAPositionAndEverySensor() async throws {
        let store = try WorkoutStore.inMemory()
        let workout = try await Self.saveRide(in: store)
        let folder = try TemporaryFolder()
        let file = folder.file("ride.fit")
        try await store.export(workout.id, format: .fit, toFileAt: file)
        let peers = try #require(try await FITPeers.read([file])[file])
        for reading in [peers.garmin, peers.fitdecode] {
            #expect(reading.records.count == Self.seconds)
            // [time, lat, lon, heart_rate, cadence, power, ...]
            let withAll = reading.records.filter { $0[1] != nil && $0[3] != nil && $0[4] != nil && $0[5] != nil }
            #expect(withAll.count == Self.seconds - Self.tunnel.count, "a position and every sensor in each fix's record")
        }
        #expect(peers.garmin.errors == [] && peers.garmin.integrity == true)
    }
}

/// The FIT export's timer agrees with itself: the session's and the laps' `total_timer_time` is
/// the time the file's own timer events have the timer running, which stops at the user's pause
/// and at each auto-pause (as a Garmin device's does): the workout's moving time. Our import reads
/// the events from our fields, so the duration, moving time and events come back exactly.
@Suite(.timeLimit(.minutes(3))) struct FITTimerExportTests {
    @Test func theTimerTimeIsTheTimeTheFilesTimerRuns() async throws {
        let store = try WorkoutStore.inMemory()
        let workout = try await RecordedRunFixture.record(in: store)
        let data = try await store.exportData(workout.id, format: .fit)
        let (messages, _) = try FITReader().messages(of: Array(data))
        let totals = messages.compactMap(FITTotals.init)
        let session = try #require(totals.first { $0.kind == .session })
        let events = try await store.events(of: workout.id)
        #expect(events.contains { $0.kind == .motionPaused } && events.contains { $0.kind == .pause })
        #expect(workout.movingTime < workout.duration - 10, "the auto-pauses stopped the run for a while")
        #expect(abs((session.timerTime ?? -1) - workout.movingTime) < 0.000_5, "timer \(session.timerTime ?? -1), moving \(workout.movingTime)")
        let laps = totals.filter { $0.kind == .lap }
        #expect(abs(laps.compactMap(\.timerTime).reduce(0, +) - (session.timerTime ?? -1)) < 0.005, "the laps' timers add up to the session's")

        // The standard timer events, whole seconds: running from each start to the stop after it.
        var running = 0.0, since: Double?
        for event in messages.compactMap(FITEventMessage.init) where event.startsTimer != nil {
            guard let time = event.time else { continue }
            if event.startsTimer == true { since = since ?? time } else if let started = since { running += time - started; since = nil }
        }
        let changes = events.filter { [.pause, .resume, .motionPaused, .motionResumed].contains($0.kind) }.count + 2
        #expect(abs(running - (session.timerTime ?? -1)) <= Double(changes), "the events' \(running) s against the session's \(session.timerTime ?? -1) s")

        let folder = try TemporaryFolder()
        let file = folder.file("run.fit")
        try data.write(to: URL(fileURLWithPath: file))
        let copy = try WorkoutStore.inMemory()
        let id = try await copy.importOwn(file, format: .fit).id
        let back = try #require(try await copy.workout(id: id))
        #expect(abs(back.duration - workout.duration) < 0.001 && abs(back.movingTime - workout.movingTime) < 0.001,
                "duration \(back.duration) against \(workout.duration), moving \(back.movingTime) against \(workout.movingTime)")
        #expect(try await copy.events(of: id) == events.map { WorkoutEvent($0.kind, at: WorkoutEnvelope.written($0.time), name: $0.name, trigger: $0.trigger) })
    }
}
