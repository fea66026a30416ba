import FIT
import Foundation
import GPX
import TCX
import TestSupport
import Testing
@testable import Workout

/// Issue 24: our exports of a recorded run (``RecordedRunFixture``) held to readers we did not
/// write. FIT: Garmin's decoder and fitdecode read it without error, every record records
/// something, the beat-to-beat intervals are in `hrv` messages, our developer fields are named by
/// their descriptions, and the timer stops and starts alternate. TCX: it validates against
/// Garmin's schema, and no track point is empty. GPX: gpxpy reads it, with a heart rate on every
/// point and the workout's distance.
@Suite(.timeLimit(.minutes(3))) struct OwnFilePeerTests {
    @Test(.enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"))
    func garminsDecoderAndFitdecodeReadOurFITWithTheBeatsAndOurFields() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let workout = try await RecordedRunFixture.record(in: store)
        let file = folder.file("run.fit")
        try await store.export(workout.id, format: .fit, toFileAt: file)
        let readings = try #require(try await FITPeers.read([file])[file])
        #expect(readings.garmin.errors == [] && readings.garmin.integrity == true, "\(readings.garmin.errors ?? [])")
        #expect(readings.fitdecode.error == nil, "\(readings.fitdecode.error ?? "")")

        // Records only where there is something to record: beat-to-beat intervals made empty ones.
        for reading in [readings.garmin, readings.fitdecode] {
            #expect(reading.records.allSatisfy { row in row[1...].contains { $0 != nil } }, "a record with nothing but a time")
        }
        let points = try #require(try await store.route(of: workout.id)).pointCount
        let heartRates = try await store.samples(of: workout.id, type: .heartRate)
        // A record per fix, holding the heart rate the strap read 0.4 s after it, as a head unit
        // writes them; a record of its own only for a second with a heart rate and no fix.
        let pointSeconds = Set(try await store.routePoints(of: workout.id).reduce([], +).map { floor($0.location.time!.timeIntervalSince1970) })
        let alone = Set(heartRates.map { floor($0.start.timeIntervalSince1970) }).subtracting(pointSeconds)
        #expect(readings.garmin.records.count == points + alone.count, "\(readings.garmin.records.count) records, \(points) points")
        let withBoth = readings.garmin.records.filter { $0[1] != nil && $0[3] != nil }.count
        #expect(withBoth >= points - alone.count - 2, "a position and a heart rate in the same record: \(withBoth) of \(points)")

        let beats = try await store.samples(of: workout.id, type: .heartbeatInterval)
        for reading in [readings.garmin, readings.fitdecode] {
            #expect(reading.hrv.count == beats.count)
            #expect(zip(reading.hrv, beats).allSatisfy { abs($0 - $1.value) <= 0.000_5 + 1e-9 }, "intervals to the millisecond")
        }
        #expect(readings.fitdecode.sessionDeveloper["workout_id"] == workout.id.uuidString)
        #expect(readings.fitdecode.sessionDeveloper["auto_pause"] == "1")
        #expect(readings.garmin.sessionDeveloper["0"] == workout.id.uuidString)

        // Timer events: stop (4, stop_all) and start (0) alternate, auto-pause's with trigger 1;
        // a pause while auto-paused is a timer marker (3), which changes no timer.
        let changes = readings.garmin.timerEvents.filter { $0[1] == 0 || $0[1] == 4 }.map { $0[1] }
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0 != $1 }, "\(changes)")
        #expect(readings.garmin.timerEvents.contains { $0[1] == 4 && $0[2] == 1 }, "an auto-pause")
        #expect(readings.garmin.timerEvents.contains { $0[1] == 4 && $0[2] == 0 }, "the user's pause")
    }

    @Test(.enabled(if: TCXSchema.isAvailable, "the TCX v2 schema or xmllint is missing: run scripts/install-tcx-schema"))
    func ourTCXValidatesAndHasNoEmptyTrackPoint() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let workout = try await RecordedRunFixture.record(in: store)
        let file = folder.file("run.tcx")
        try await store.export(workout.id, format: .tcx, toFileAt: file)
        let (valid, messages) = try await TCXSchema.validate(file)
        #expect(valid, "\(messages)")
        var points: [TCXTrackpoint] = []
        _ = try TCXReader(options: TCXReadOptions(strict: true)).read(fileAt: file) { event in
            if case let .trackpoint(point) = event { points.append(point) }
        }
        #expect(points.allSatisfy { $0.hasPosition || $0.heartRate != nil || $0.cadence != nil || $0.power != nil || $0.speed != nil },
                "a <Trackpoint> with nothing but a time")
        let route = try #require(try await store.route(of: workout.id))
        #expect(points.filter(\.hasPosition).count == route.pointCount)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!text.contains("<Trackpoint><Time>") || !text.contains("</Time></Trackpoint>"), "no empty track point")
    }

    @Test(.enabled(if: GPXPeers.isAvailable, "gpxpy is not installed: run scripts/install-fit-peers"))
    func gpxpyReadsOurGPXWithAHeartRateOnEveryPointAndTheDistance() async throws {
        let folder = try TemporaryFolder()
        let store = try WorkoutStore.inMemory()
        let workout = try await RecordedRunFixture.record(in: store)
        let file = folder.file("run.gpx")
        let summary = try await store.export(workout.id, format: .gpx, toFileAt: file)
        let reading = try #require(try await GPXPeers.read([file])[file])
        let track = try #require(reading.tracks?.first, "\(reading.error ?? "")")
        #expect(track.segments.count == summary.segments && track.segments.reduce(0, +) == summary.points)
        // The strap is read 0.4 s after each fix but the last (the workout ends at it): every
        // point but the last has a heart rate (2 of 983 had one).
        #expect(track.heartRates.dropLast().allSatisfy { $0 != nil },
                "points without one: \(track.heartRates.indices.filter { track.heartRates[$0] == nil }) of \(track.heartRates.count)")
        // gpxpy measures on a sphere of the WGS84 semi-major axis (6,378,137 m), we on the mean
        // radius (6,371,008.8 m): its lengths are 0.11 % longer for the same points.
        let distance = try #require(workout.totals.distance)
        let length = track.length2D * 6_371_008.8 / 6_378_137
        #expect(abs(length - distance) <= distance * 0.001, "gpxpy measures \(length) m (on our radius), the session \(distance) m")
    }
}
