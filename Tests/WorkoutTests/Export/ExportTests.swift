import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
@testable import Workout

@Suite("Export writes a stored workout as GPX or GeoJSON that reads back the same")
struct ExportTests {
    @Test func gpxReadsBackWithEveryPointTimeElevationHeartRateAndCadence() async throws {
        let (store, fixture) = try await ExportFixture.store()
        var data = Data()
        let summary = try await store.export(fixture.workout.id, format: .gpx) { data.append(contentsOf: $0) }
        // Issue 24: a point carries the sample nearest its time within its interval, of power too
        // (it took only samples at its exact time, heart rate and cadence): the power reading at
        // the first point's time is written on it; the heart rate of 99 half a second later lies
        // in the first point's interval too, where the one at its time is nearer: it is written
        // beside the point, in our extension (it was not written). Every sample is in the file.
        #expect(summary == ExportSummary(
            format: .gpx, points: 9, segments: 2, samplesWritten: 15, samplesNotWritten: 0, bytes: Int64(data.count)))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#"<sgf:sample xmlns:sgf="urn:swift-gps-facade:workout:1" type="heart_rate" start="2024-05-01T10:00:00.623Z" value="99"/>"#))

        var events: [GPXEvent] = []
        let read = try GPXReader(options: GPXReadOptions(strict: true)).read(data: data, name: "export.gpx") { events.append($0) }
        #expect(read.skipped.isEmpty)
        #expect(read.tracks == 1 && read.segments == 2)

        // Segment boundaries: 5 points, then 4.
        var perSegment: [Int] = []
        var points: [GPXPoint] = []
        for event in events {
            switch event {
            case .segmentStart: perSegment.append(0)
            case .trackPoint(let point):
                perSegment[perSegment.count - 1] += 1
                points.append(point)
            default: break
            }
        }
        #expect(perSegment == [5, 4])
        try #require(points.count == fixture.points.count)
        for (index, (point, stored)) in zip(points, fixture.points).enumerated() {
            #expect(abs(point.latitude - stored.latitude) <= 1e-9, "point \(index) latitude")
            #expect(abs(point.longitude - stored.longitude) <= 1e-9, "point \(index) longitude")
            #expect(point.latitude == stored.latitude && point.longitude == stored.longitude, "point \(index) round-trips exactly")
            #expect(point.elevation == stored.altitude, "point \(index) elevation")
            let time = try #require(point.time?.date, "point \(index) has a time")
            #expect(abs(time.timeIntervalSince(stored.time!)) < 0.000_5, "point \(index) time to the millisecond")
            #expect(point.heartRate == fixture.heartRates[index], "point \(index) heart rate")
            #expect(point.cadence == fixture.cadences[index], "point \(index) cadence")
            #expect(point.power == (index == 0 ? 250 : nil), "point \(index) power")
            #expect(point.speed == stored.speed && point.course == stored.course, "point \(index) speed and course")
        }

        let metadata = try #require(events.lazy.compactMap { if case .metadata(let m) = $0 { m } else { nil } }.first)
        #expect(metadata.version == "1.1" && metadata.creator == "swift-gps-facade")
        let start = try #require(metadata.time?.date)
        #expect(abs(start.timeIntervalSince(ExportFixture.start)) < 0.000_5)
        let track = try #require(events.lazy.compactMap { if case .trackEnd(let info) = $0 { info } else { nil } }.first)
        #expect(track.type == "running")
    }

    @Test func gpxTimesAreUTCWithMilliseconds() async throws {
        let (store, fixture) = try await ExportFixture.store()
        let text = String(decoding: try await store.exportData(fixture.workout.id, format: .gpx), as: UTF8.self)
        #expect(text.contains("<metadata><time>2024-05-01T10:00:00.123Z</time></metadata>"))
        #expect(text.contains("<time>2024-05-01T10:00:01.124Z</time>"))
        #expect(text.contains(#"xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2""#))
        // The longitude 2.3456789e-08 is written in plain decimal notation, as xsd:decimal requires.
        #expect(!text.contains("e-"))
    }

    @Test func namesAreEscapedInXMLAndJSON() async throws {
        let (store, fixture) = try await ExportFixture.store()
        let gpx = try await store.exportData(fixture.workout.id, format: .gpx)
        #expect(String(decoding: gpx, as: UTF8.self).contains("<name>Tom &amp; Jerry's &lt;run&gt; \"fast\"</name>"))
        var names: [String?] = []
        _ = try GPXReader().read(data: gpx, name: "export.gpx") { event in
            if case .trackEnd(let info) = event { names.append(info.name) }
        }
        #expect(names == [ExportFixture.name])

        let geojson = try await store.exportData(fixture.workout.id, format: .geojson)
        let feature = try Self.feature(geojson)
        #expect((feature["properties"] as? [String: Any])?["name"] as? String == ExportFixture.name)
    }

    @Test func withoutANameTheTrackIsNamedByActivityAndDay() async throws {
        let (store, fixture) = try await ExportFixture.store(name: nil)
        let text = String(decoding: try await store.exportData(fixture.workout.id, format: .gpx), as: UTF8.self)
        #expect(text.contains("<name>Running 2024-05-01</name>"))
        #expect(text.contains("<type>running</type>"))
    }

    @Test func geoJSONHasOneLinePerSegmentWithTimesAndHeartRates() async throws {
        let (store, fixture) = try await ExportFixture.store()
        var data = Data()
        let summary = try await store.export(fixture.workout.id, format: .geojson) { data.append(contentsOf: $0) }
        #expect(summary == ExportSummary(
            format: .geojson, points: 9, segments: 2, samplesWritten: 13, samplesNotWritten: 2, bytes: Int64(data.count)))

        let collection = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(collection["type"] as? String == "FeatureCollection")
        let feature = try Self.feature(data)
        #expect(feature["type"] as? String == "Feature")
        let geometry = try #require(feature["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "MultiLineString")
        let lines = try #require(geometry["coordinates"] as? [[[Double]]])
        #expect(lines.map(\.count) == [5, 4])
        for (index, (position, stored)) in zip(lines.flatMap { $0 }, fixture.points).enumerated() {
            #expect(position.count == (stored.altitude == nil ? 2 : 3), "point \(index) has [lon, lat, ele?]")
            #expect(abs(position[0] - stored.longitude) <= 1e-9 && abs(position[1] - stored.latitude) <= 1e-9, "point \(index)")
            if let altitude = stored.altitude { #expect(abs(position[2] - altitude) <= 1e-9, "point \(index) elevation") }
        }

        let properties = try #require(feature["properties"] as? [String: Any])
        #expect(properties["id"] as? String == fixture.workout.id.uuidString)
        #expect(properties["activity"] as? String == "running")
        #expect(properties["start"] as? String == "2024-05-01T10:00:00.123Z")
        #expect(properties["end"] as? String == "2024-05-01T10:02:00.123Z")
        #expect(properties["distance_m"] as? Double == 123.5)
        #expect(properties["duration_s"] as? Double == 120)
        #expect(properties["elevation_gain_m"] as? Double == 4.25)
        let times = try #require(properties["coordTimes"] as? [[String]])
        #expect(times.map(\.count) == [5, 4])
        for (index, (text, stored)) in zip(times.flatMap { $0 }, fixture.points).enumerated() {
            let time = try #require(RFC3339.parse(text)?.date, "point \(index) time \(text)")
            #expect(abs(time.timeIntervalSince(stored.time!)) < 0.000_5, "point \(index) time")
        }
        let heartRates = try #require(properties["heartRates"] as? [[Any]])
        #expect(heartRates.map(\.count) == [5, 4])
        #expect(heartRates.flatMap { $0 }.map { $0 as? Double } == fixture.heartRates)
        let cadences = try #require(properties["cadences"] as? [[Any]])
        #expect(cadences.flatMap { $0 }.map { $0 as? Double } == fixture.cadences)
    }

    @Test func geoJSONWithoutHeartRateHasNoHeartRates() async throws {
        let store = try WorkoutStore.inMemory()
        var run = workout(seconds: 60, startingAt: ExportFixture.start)
        run.totals = WorkoutTotals(distance: 90)  // its own totals, without elevation: none is worked out
        try await store.saveWorkout(run, route: fixes(10, from: ExportFixture.start))
        let properties = try #require(try Self.feature(try await store.exportData(run.id, format: .geojson))["properties"] as? [String: Any])
        #expect(properties["heartRates"] == nil)
        #expect((properties["coordTimes"] as? [[String]])?.map(\.count) == [10])
        #expect(properties["elevation_gain_m"] is NSNull)
    }

    @Test(arguments: WorkoutExportFormat.allCases)
    func anUnknownWorkoutIsNotSavedAndNoFileIsLeft(format: WorkoutExportFormat) async throws {
        let store = try WorkoutStore.inMemory()
        let id = UUID()
        await #expect(throws: WorkoutStoreError.workoutNotSaved(workoutID: id, step: .export)) {
            _ = try await store.exportData(id, format: format)
        }
        let folder = try TemporaryFolder()
        await #expect(throws: WorkoutStoreError.workoutNotSaved(workoutID: id, step: .export)) {
            _ = try await store.export(id, format: format, toFileAt: folder.file("out." + format.fileExtension))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test(arguments: WorkoutExportFormat.allCases)
    func aFileExportReplacesTheFileWhole(format: WorkoutExportFormat) async throws {
        let (store, fixture) = try await ExportFixture.store()
        let folder = try TemporaryFolder()
        let path = folder.file("run." + format.fileExtension)
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let summary = try await store.export(fixture.workout.id, format: format, toFileAt: path)
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written == (try await store.exportData(fixture.workout.id, format: format)))
        #expect(summary.bytes == Int64(written.count))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["run." + format.fileExtension])
    }

    @Test func aFileThatCannotBeWrittenSaysWhichAndWhy() async throws {
        let (store, fixture) = try await ExportFixture.store()
        let folder = try TemporaryFolder()
        let path = folder.file("missing/run.gpx")
        let error = await thrownError { _ = try await store.export(fixture.workout.id, format: .gpx, toFileAt: path) }
        guard case let .exportFailed(id, failedPath, reason) = error else { throw Unexpected(error) }
        #expect(id == fixture.workout.id && failedPath == path)
        #expect(reason.contains("No such file or directory"))
        #expect(error?.description.contains(path) == true)
    }

    @Test func anOutputThatThrowsFailsTheExport() async throws {
        struct DiskFull: Error, CustomStringConvertible { var description: String { "disk full" } }
        let (store, fixture) = try await ExportFixture.store()
        await #expect(throws: WorkoutStoreError.exportFailed(workoutID: fixture.workout.id, path: nil, reason: "disk full")) {
            _ = try await store.export(fixture.workout.id, format: .geojson) { _ in throw DiskFull() }
        }
    }

    @Test(arguments: WorkoutExportFormat.allCases)
    func aLongRouteIsWrittenInBoundedChunks(format: WorkoutExportFormat) async throws {
        let store = try WorkoutStore.inMemory()
        let run = workout(seconds: 30_000, startingAt: ExportFixture.start)
        try await store.saveWorkout(run, route: fixes(20_000, from: ExportFixture.start))
        var chunks: [Int] = []
        let summary = try await store.export(run.id, format: format) { chunks.append($0.count) }
        #expect(summary.points == 20_000 && summary.segments == 1)
        // Flushed as it fills: as many chunks as the bytes fill buffers (FIT, binary, makes fewer than GPX).
        #expect(chunks.count > 5 && chunks.count >= Int(summary.bytes) / ExportOutput.flushThreshold, "\(chunks.count) chunks")
        #expect(chunks.max()! < ExportOutput.flushThreshold + 1_000, "one buffer, flushed as it fills: \(chunks.max()!)")
        #expect(Int64(chunks.reduce(0, +)) == summary.bytes)
    }

    @Test func numbersAreShortestRoundTripWithoutExponents() {
        func text(_ value: Double) -> String {
            var bytes: [UInt8] = []
            TextBytes.appendShortest(value, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(text(51.5) == "51.5")
        #expect(text(10) == "10")
        #expect(text(-0.0) == "0")
        #expect(text(1e-7) == "0.0000001")
        #expect(text(-2.3456789e-08) == "-0.000000023456789")
        #expect(text(1.5e20) == "150000000000000000000")
        #expect(text(-10.4043211) == "-10.4043211")
        for value in [0.1 + 0.2, 51.123456789012345, -179.99999999999997, 1.0 / 3.0, 8_848.86] {
            #expect(Double(text(value)) == value, "\(value) round-trips")
        }
    }

    /// The first feature of a GeoJSON FeatureCollection.
    static func feature(_ data: Data) throws -> [String: Any] {
        let collection = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let features = try #require(collection["features"] as? [[String: Any]])
        try #require(features.count == 1)
        return features[0]
    }
}
