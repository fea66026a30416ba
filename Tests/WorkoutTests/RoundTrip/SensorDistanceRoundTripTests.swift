import FIT
import Foundation
import LocationCore
import Testing
import TestSupport
@testable import Workout

/// Our own files of a ride whose distance a wheel counted where the fixes could not: the tunnel
/// ride of ``SensorDistanceTests`` (``SensorDistanceTests/TunnelRide``: 20 minutes at 8 m/s, a 90 s
/// tunnel without fixes that turns back on a half circle, a 20 s stop in it, a wheel sensor beside
/// the GPS whose too-large circumference the fixes calibrate), recorded with each distance source
/// and a lap every kilometre (the fifth ends in the tunnel, on the wheel's metres), exported as GPX,
/// FIT and TCX and imported into a new store, comes back with the distance the session counted
/// (not the straight line across the tunnel, 204 m short), its duration, moving time and laps, and
/// its metadata saying where the distance came from.
///
/// How exactly: GPX carries the wheel's own samples and the fixes to the last bit (shortest
/// decimals), and TCX the distance counted at each track point and the fixes the same way, so the
/// import adds up the same numbers again: equal to a micrometre (the rounding of the differences
/// of the track points' distances, summed again). FIT holds a record's distance to the centimetre
/// and a position to a semicircle (8.4e-8°, about 9 mm): the steps measured again from the rounded
/// positions differ by millimetres, so its distances are held to 5 cm. The times are whole seconds
/// and the events (the stop, the laps) travel to the millisecond in every format: the duration,
/// moving time and laps' times are equal.
@Suite(.timeLimit(.minutes(3))) struct SensorDistanceRoundTripTests {
    typealias TunnelRide = SensorDistanceTests.TunnelRide

    /// The ride recorded with `source`, a lap every kilometre.
    static func record(
        _ source: DistanceSource, fixes: [Location] = TunnelRide.fixes, wheel: [QuantitySample] = TunnelRide.wheel
    ) async throws -> (WorkoutRecord, WorkoutStore) {
        var configuration = SensorDistanceTests.cycling
        configuration.distanceSource = source
        configuration.autoLapDistance = 1_000
        let (workout, store, _) = try await SensorDistanceTests().record(configuration, fixes: fixes, wheel: wheel)
        return (workout, store)
    }

    /// Exports `workout` as `format` and imports the file into a new store.
    static func roundTrip(_ workout: WorkoutRecord, of store: WorkoutStore, as format: WorkoutExportFormat) async throws -> (WorkoutRecord, WorkoutStore) {
        let folder = try TemporaryFolder()
        let file = folder.file("ride." + format.fileExtension)
        try await store.export(workout.id, format: format, toFileAt: file)
        let copy = try WorkoutStore.inMemory()
        let id = try await copy.importOwn(file, format: format).id
        return (try #require(try await copy.workout(id: id)), copy)
    }

    /// How near an imported distance must be to the original's (see the suite).
    static func tolerance(_ format: WorkoutExportFormat) -> Double {
        format == .fit ? 0.05 : 1e-6
    }

    @Test(arguments: [WorkoutExportFormat.gpx, .fit, .tcx], DistanceSource.allCases)
    func theTunnelRideComesBackWithItsDistance(format: WorkoutExportFormat, source: DistanceSource) async throws {
        let (workout, store) = try await Self.record(source)
        let distance = try #require(workout.totals.distance)
        let straight = TunnelRide.distance - TunnelRide.arc + 2 * TunnelRide.radius
        // What the session counted: the wheel's half circle, unless the fixes alone count.
        #expect(abs(distance - (source == .gps ? straight : TunnelRide.distance)) < 0.5, "\(source): recorded \(distance) m")
        let laps = try await store.laps(of: workout.id)
        #expect(laps.count == 10 && laps[4].end.timeIntervalSince(TunnelRide.start) > TunnelRide.tunnel.lowerBound, "\(source): \(laps)")

        let folder = try TemporaryFolder()
        let file = folder.file("ride." + format.fileExtension)
        try await store.export(workout.id, format: format, toFileAt: file)
        if format == .tcx, TCXSchema.isAvailable {
            // Our attributes on `sgf:workout` stay in the Extensions that Garmin's schema takes laxly.
            let result = try await TCXSchema.validate(file)
            #expect(result.valid, "\(result.messages)")
        }
        let copy = try WorkoutStore.inMemory()
        let id = try await copy.importOwn(file, format: format).id
        let back = try #require(try await copy.workout(id: id))
        let tolerance = Self.tolerance(format)
        let backDistance = try #require(back.totals.distance)
        #expect(abs(backDistance - distance) <= tolerance, "\(format), \(source): \(backDistance) m against \(distance) m")
        #expect(back.duration == workout.duration && back.movingTime == workout.movingTime && back.elapsedTime == workout.elapsedTime,
                "\(format), \(source): duration \(back.duration), moving \(back.movingTime) against \(workout.duration), \(workout.movingTime)")

        // The store reads the imported workout's distance as the import saved it, lap by lap as the original's.
        let lapsBack = try await copy.laps(of: id)
        #expect(abs(lapsBack.map(\.distance).reduce(0, +) - backDistance) < 1e-6, "\(format), \(source)")
        #expect(lapsBack.count == laps.count && lapsBack.map(\.trigger) == laps.map(\.trigger), "\(format), \(source): \(lapsBack.count) laps")
        for (lap, original) in zip(lapsBack, laps) {
            #expect(abs(lap.distance - original.distance) <= tolerance, "\(format), \(source): lap \(lap.index), \(lap.distance) m against \(original.distance) m")
            #expect(lap.start == original.start && lap.end == original.end && lap.duration == original.duration
                    && lap.movingTime == original.movingTime, "\(format), \(source): lap \(lap.index): \(lap) against \(original)")
        }

        // Where the distance came from, as the session said; GPX brings back the wheel's own samples,
        // which the factor multiplies; FIT's records and TCX's track points have it in them already.
        let recorded = try #require(SensorDistance(workout.metadata))
        let imported = try #require(SensorDistance(back.metadata), "\(format), \(source): \(back.metadata.values)")
        #expect(imported.source == source, "\(format): \(imported.source)")
        #expect(imported.factor == (format == .gpx ? recorded.factor : 1), "\(format), \(source): factor \(imported.factor)")
        #expect(back.metadata.isIndoor == workout.metadata.isIndoor)
    }

    /// The ride cut so that it begins in the tunnel (no fix before 690 s) or ends in it (none after
    /// 600 s): before the first fix the wheel counts only with ``DistanceSource/sensor`` (with
    /// automatic, a reading waits for a fix, and the first one ends no gap), after the last one, once
    /// past the gap limit, with both; the import counts the same.
    @Test(arguments: [WorkoutExportFormat.fit, .tcx], [DistanceSource.automatic, .sensor])
    func aRideThatBeginsOrEndsInTheTunnel(format: WorkoutExportFormat, source: DistanceSource) async throws {
        for begins in [true, false] {
            let fixes = TunnelRide.fixes.filter {
                let time = $0.time!.timeIntervalSince(TunnelRide.start)
                return begins ? time >= TunnelRide.tunnel.upperBound : time <= TunnelRide.tunnel.lowerBound
            }
            let (workout, store) = try await Self.record(source, fixes: fixes)
            let (back, copy) = try await Self.roundTrip(workout, of: store, as: format)
            let distance = try #require(workout.totals.distance), backDistance = try #require(back.totals.distance)
            let ridden = begins ? TunnelRide.distance - TunnelRide.covered(at: TunnelRide.tunnel.upperBound) : TunnelRide.distance
            // What the session counted: the whole ride's, but for the wheel's metres before the first fix with automatic.
            if begins {
                #expect(source == .automatic ? abs(distance - ridden) < 1 : distance > ridden + 5_000, "\(source), begins: \(distance) m")
            } else {
                #expect(abs(distance - TunnelRide.distance) < 1, "\(source), ends: \(distance) m")
            }
            #expect(abs(backDistance - distance) <= Self.tolerance(format), "\(format), \(source), begins \(begins): \(backDistance) m against \(distance) m")
            #expect(back.duration == workout.duration && back.movingTime == workout.movingTime, "\(format), \(source), begins \(begins)")
            let laps: [WorkoutLap] = try await store.laps(of: workout.id)
            let lapsBack: [WorkoutLap] = try await copy.laps(of: back.id)
            let differences = zip(lapsBack, laps).map { abs($0.distance - $1.distance) }
            #expect(lapsBack.count == laps.count && differences.allSatisfy { $0 <= Self.tolerance(format) },
                    "\(format), \(source), begins \(begins): laps differ by \(differences) m")
        }
    }

    /// Without a wheel a GPS dropout is the straight line, as the session counted it, and the
    /// import makes no sensor samples of it: the difference at the fix after the gap is the line itself.
    @Test(arguments: [WorkoutExportFormat.fit, .tcx])
    func withoutAWheelTheTunnelIsTheStraightLineAndNoSensorSample(format: WorkoutExportFormat) async throws {
        let (workout, store) = try await Self.record(.automatic, wheel: [])
        let folder = try TemporaryFolder()
        let file = folder.file("ride." + format.fileExtension)
        try await store.export(workout.id, format: format, toFileAt: file)
        let copy = try WorkoutStore.inMemory()
        let id = try await copy.importOwn(file, format: format).id
        let back = try #require(try await copy.workout(id: id))
        let distance = try #require(workout.totals.distance)
        #expect(abs(distance - (TunnelRide.distance - TunnelRide.arc + 2 * TunnelRide.radius)) < 0.5)
        #expect(abs(try #require(back.totals.distance) - distance) <= Self.tolerance(format), "\(format): \(back.totals.distance ?? 0) m")
        #expect(try await copy.samples(of: id, type: .distance).isEmpty, "\(format): no wheel, no wheel's distance")
    }

    /// Another tool's file keeps the rule of devices' files: a record's distance beside positions is
    /// the device's GPS's, measured again from the points. Our TCX export with our elements taken
    /// out is such a file: across the tunnel it counts the straight line.
    @Test func aFileWithoutOurEnvelopeCountsThePoints() async throws {
        let (workout, store) = try await Self.record(.automatic)
        let folder = try TemporaryFolder()
        let file = folder.file("ride.tcx")
        try await store.export(workout.id, format: .tcx, toFileAt: file)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let plain = text.replacing(/<sgf:[^>]*\/>/, with: "")
        #expect(plain != text && !plain.contains("sgf:"))
        try plain.write(toFile: file, atomically: true, encoding: .utf8)
        let copy = try WorkoutStore.inMemory()
        let imported = try #require(try await TCXImporter(store: copy).importFile(at: file).workouts.first)
        let back = try #require(try await copy.workout(id: imported.workoutID))
        #expect(back.id != workout.id, "not recognised as ours")
        let straight = TunnelRide.distance - TunnelRide.arc + 2 * TunnelRide.radius
        #expect(abs(try #require(back.totals.distance) - straight) < 0.5, "\(back.totals.distance ?? 0) m")
        #expect(SensorDistance(back.metadata) == nil && back.metadata.isIndoor == nil)
    }

    /// An envelope whose counting does not read (a damaged file) says nothing of it: the import
    /// counts as for another tool's file, and the rest of the envelope still holds.
    @Test func aCountingThatDoesNotReadIsLeftOut() {
        let header = #"<sgf:workout xmlns:sgf="urn:swift-gps-facade:workout:1" id="5C9F2E64-7A0B-4F4D-9C1E-2B8D3A6F0E51" "#
            + #"start="2024-05-01T10:00:00.000Z" end="2024-05-01T10:20:00.000Z" autoPause="true""#
        for attributes in [#"distanceSource="wheel" sensorFactor="1""#, #"distanceSource="sensor" sensorFactor="-1""#,
                           #"distanceSource="sensor" sensorFactor="nan""#, #"distanceSource="sensor""#, #"indoor="maybe""#] {
            let read = WorkoutEnvelope.marks(in: [header + " " + attributes + "/>"]).header
            #expect(read != nil, "\(attributes): the header still reads")
            #expect(read?.counting == nil && read?.isIndoor == nil && read?.autoPause == true, "\(attributes)")
        }
        let good = WorkoutEnvelope.marks(in: [header + #" distanceSource="sensor" sensorFactor="0.99" indoor="false"/>"#]).header
        #expect(good?.counting == WorkoutEnvelope.DistanceCounting(source: .sensor, sensorFactor: 0.99) && good?.isIndoor == false)
    }

    /// Garmin's decoder and fitdecode read our FIT export of the ride without an error, find how
    /// its distance was counted on the first timer start (fitdecode by the names our
    /// `field_description`s give), and see the wheel's half circle in the records' distances across
    /// the tunnel, as they would a head unit's.
    @Test(.enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"))
    func garminsDecoderReadsHowTheDistanceWasCounted() async throws {
        let (workout, store) = try await Self.record(.automatic)
        let factor = try #require(SensorDistance(workout.metadata)?.factor)
        let folder = try TemporaryFolder()
        let file = folder.file("ride.fit")
        try await store.export(workout.id, format: .fit, toFileAt: file)
        let peers = try #require(try await FITPeers.read([file])[file])
        #expect(peers.garmin.errors == [] && peers.garmin.integrity == true && peers.fitdecode.error == nil,
                "\(peers.garmin.errors ?? []) \(peers.fitdecode.error ?? "")")
        #expect(peers.fitdecode.startDeveloper["distance_source"] == "automatic", "\(peers.fitdecode.startDeveloper)")
        #expect(peers.fitdecode.startDeveloper["sensor_factor"].flatMap(Double.init) == factor, "\(peers.fitdecode.startDeveloper)")
        #expect(peers.garmin.startDeveloper["9"] == "automatic" && peers.garmin.startDeveloper["10"].flatMap(Double.init) == factor,
                "\(peers.garmin.startDeveloper)")
        // The records at the fixes either side of the tunnel: the wheel's 560 m between them, not the line's 356 m.
        let fitStart = TunnelRide.start.timeIntervalSince1970 - FITTime.epoch
        func distance(at seconds: Double) throws -> Double {
            let index = try #require(peers.garmin.records.firstIndex { $0[0] == fitStart + seconds }, "a record at \(seconds) s")
            return try #require(peers.garmin.recordDistances[index])
        }
        let across = try distance(at: TunnelRide.tunnel.upperBound) - distance(at: TunnelRide.tunnel.lowerBound)
        #expect(abs(across - TunnelRide.arc) < 0.5, "\(across) m across the tunnel")
    }
}
