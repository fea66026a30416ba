import FIT
import Foundation
import LocationFacade
import Simulators
import TestSupport
import Testing
import WorkoutSimulators
@testable import Workout

/// Every FIT file our export writes, read at test time by Garmin's decoder (no error, and its
/// integrity check: header, size and CRCs), fitdecode and gpsbabel, which must find our records,
/// laps and points; and the GPX export of an imported FIT file read by gpsbabel.
@Suite(.timeLimit(.minutes(2))) struct FITExportPeerTests {
    /// Workouts of every shape the store holds, exported as FIT into `folder`: a FIT import (pause,
    /// laps, developer fields), GPX imports (segments, fractional seconds, a heart rate FIT cannot
    /// hold), the export fixture (samples between points, power), a session (auto-pause, a user's
    /// pause, auto-laps), and samples without a route. Returns each file with the store's points.
    static func exports(into folder: TemporaryFolder) async throws -> [(file: String, points: Int, store: WorkoutStore, id: UUID)] {
        let store = try WorkoutStore.inMemory()
        var ids: [UUID] = []
        ids += try await FITImporter(store: store).importFile(at: Repository.fixture("fit/garmin-sdk-run.fit").path).workouts.map(\.workoutID)
        for gpx in ["two-runs.gpx", "garmin-trackpointextension.gpx", "gpx11-full.gpx"] {
            ids += try await GPXImporter(store: store).importFile(at: Repository.fixture("gpx/" + gpx).path).workouts.map(\.workoutID)
        }
        let fixture = ExportFixture()
        try await fixture.save(in: store)
        ids.append(fixture.workout.id)
        let clock = VirtualClock()
        let run = ReplayLocationSource(locations: WorkoutSessionTests.runWithStops(2), clock: clock)
        let session = WorkoutSession(
            store: store, source: run, samples: [FakeHeartRateSensor(seed: 3).live(following: run)],
            configuration: .init(activityType: .cycling, autoPause: .defaults(for: .running), autoLapDistance: 150), clock: clock)
        try session.start()
        await clock.advance(by: .seconds(20))
        try session.pause()
        await clock.advance(by: .seconds(5))
        try session.resume()
        await clock.advance(by: .seconds(400))
        ids.append(try await session.end().id)
        let indoor = workout(seconds: 60, activityType: .cycling)
        try await store.saveWorkout(indoor, samples: (0..<60).flatMap { second in
            [QuantitySample(type: .power, value: 200 + Double(second), at: indoor.start.addingTimeInterval(Double(second))),
             QuantitySample(type: .speed, value: 8.5, at: indoor.start.addingTimeInterval(Double(second)))]
        })
        ids.append(indoor.id)
        var files: [(String, Int, WorkoutStore, UUID)] = []
        for (index, id) in ids.enumerated() {
            let file = folder.file("export-\(index).fit")
            let summary = try await store.export(id, format: .fit, toFileAt: file)
            files.append((file, summary.points, store, id))
        }
        return files
    }

    @Test(.enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"))
    func garminsDecoderAndFitdecodeReadEveryFileWeWrite() async throws {
        let folder = try TemporaryFolder()
        let files = try await Self.exports(into: folder)
        let peers = try await FITPeers.read(files.map(\.file))
        for (file, points, store, id) in files {
            let peer = try #require(peers[file])
            #expect(peer.garmin.errors == [], "\(file): \(peer.garmin.errors ?? [])")
            #expect(peer.garmin.integrity == true, "\(file): Garmin's integrity check")
            #expect(peer.fitdecode.error == nil, "\(file): \(peer.fitdecode.error ?? "")")
            #expect(peer.garmin.fileTypes == [4], "an activity file")
            #expect(peer.garmin.records.filter { $0[1] != nil }.count == points, "\(file): records with a position")
            let laps = try await store.laps(of: id)
            #expect(peer.garmin.laps.count == max(1, laps.count), "\(file): a lap per lap: \(peer.garmin.laps) \(laps)")
            #expect(peer.garmin.sessions.count == 1)
            let timer = peer.garmin.timerEvents
            #expect(timer.first?[1] == 0 && timer.last?[1] == 4, "\(file): the timer starts first and stops last")
            #expect(zip(timer, timer.dropFirst()).allSatisfy { $0[1] != $1[1] }, "\(file): starts and stops alternate")
            #expect(peer.garmin.records.map { $0[0] } == peer.fitdecode.records.map { $0[0] })
        }
    }

    @Test(.enabled(if: Repository.hasProgram("gpsbabel"), "needs gpsbabel (scripts/install-deps installs it)"))
    func gpsbabelReadsOurFITFilesAndTheGPXOfAnImportedOne() async throws {
        let folder = try TemporaryFolder()
        for (file, points, _, _) in try await Self.exports(into: folder) {
            let read = try await Self.gpsbabelPoints(format: "garmin_fit", file: file)
            #expect(read == points, "\(file): gpsbabel reads \(read), we wrote \(points)")
        }
        // A FIT import exported as GPX.
        let store = try WorkoutStore.inMemory()
        for name in ["garmin-sdk-run.fit"] {
            let imported = try #require(try await FITImporter(store: store).importFile(at: Repository.fixture("fit/" + name).path).workouts.first)
            let gpx = folder.file(name + ".gpx")
            try await store.export(imported.workoutID, format: .gpx, toFileAt: gpx)
            #expect(try await Self.gpsbabelPoints(format: "gpx", file: gpx) == imported.points)
        }
    }

    /// The track points gpsbabel reads in `file`.
    static func gpsbabelPoints(format: String, file: String) async throws -> Int {
        let result = try await Command.run("/usr/bin/gpsbabel", ["-t", "-i", format, "-f", file, "-o", "unicsv", "-F", "-"])
        guard result.status == 0 else {
            throw FITPeers.PeerError(description: "gpsbabel: \(result.error.joined(separator: "\n"))")
        }
        // unicsv's lines end in CRLF; the first is the header.
        return max(0, result.output.split(separator: UInt8(ascii: "\n")).count - 1)
    }
}
