import Foundation
import LocationFacade
import Testing
import TestSupport
@testable import Workout

/// Import → export → import keeps points, times to the millisecond, elevations and samples.
@Suite struct RoundTripTests {
    /// Imports `path` into a new store; returns the store and the workouts' ids.
    func imported(_ path: String) async throws -> (WorkoutStore, [UUID]) {
        let store = try WorkoutStore.inMemory()
        let report = try await GPXImporter(store: store).importFile(at: path)
        return (store, report.workouts.map(\.workoutID))
    }

    @Test(arguments: ["two-runs.gpx", "garmin-trackpointextension.gpx", "greenwich-walk.gpx", "gpx11-full.gpx.gz"])
    func importExportImportKeepsTheRun(fixture: String) async throws {
        let folder = try TemporaryFolder()
        let (first, ids) = try await imported(Repository.fixture("gpx/" + fixture).path)
        #expect(!ids.isEmpty)
        for (index, id) in ids.enumerated() {
            let exported = folder.file("\(index).gpx")
            _ = try await first.export(id, format: .gpx, toFileAt: exported)
            let (second, secondIDs) = try await imported(exported)
            let copy = try #require(secondIDs.first)
            #expect(secondIDs.count == 1)

            let before = try await readRoute(first, id), after = try await readRoute(second, copy)
            #expect(after.count == before.count)
            for (old, new) in zip(before, after) {
                #expect(new.segment == old.segment)
                #expect(new.location.latitude == old.location.latitude)
                #expect(new.location.longitude == old.location.longitude)
                #expect(new.location.altitude == old.location.altitude)
                let oldTime = try #require(old.location.time), newTime = try #require(new.location.time)
                #expect(abs(newTime.timeIntervalSince(oldTime)) < 0.0005, "times keep their milliseconds")
            }
            for type in [QuantityType.heartRate, .cadence] {
                let old = try await first.samples(of: id, type: type), new = try await second.samples(of: copy, type: type)
                #expect(new.map(\.value) == old.map { $0.value.rounded() }, "\(type)")
                #expect(zip(old, new).allSatisfy { abs($0.start.timeIntervalSince($1.start)) < 0.0005 })
            }
            let a = try #require(try await first.workout(id: id)), b = try #require(try await second.workout(id: copy))
            #expect(b.start == a.start && b.end == a.end)
            #expect(b.activityType == a.activityType)
            #expect(b.metadata.externalID == a.metadata.externalID, "the same points make the same identity")
        }
    }
}

extension RoundTripTests {
    @Test func unknownExtensionsOfAPointComeBackOnExport() async throws {
        let folder = try TemporaryFolder()
        let source = folder.file("extensions.gpx")
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1" xmlns:x="urn:example:x"
                 xmlns:tpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
              <trk><trkseg>
                <trkpt lat="1" lon="2"><time>2024-05-01T08:00:00Z</time>
                  <extensions><x:sensor id="a&amp;b"><x:reading>1 &lt; 2</x:reading></x:sensor>
                    <tpx:TrackPointExtension><tpx:hr>99</tpx:hr></tpx:TrackPointExtension></extensions></trkpt>
                <trkpt lat="1.001" lon="2"><time>2024-05-01T08:00:01Z</time></trkpt>
              </trkseg></trk>
            </gpx>
            """.write(toFile: source, atomically: true, encoding: .utf8)
        var original: [GPXPoint] = []
        _ = try GPXReader().read(fileAt: source) { if case let .trackPoint(point) = $0 { original.append(point) } }
        #expect(original[0].unknownExtensions.count == 1)

        let (store, ids) = try await imported(source)
        let route = try await readRoute(store, try #require(ids.first))
        #expect(route[0].unknownExtensions == original[0].unknownExtensions.joined())
        #expect(route[1].unknownExtensions == nil)

        let data = try await store.exportData(ids[0], format: .gpx)
        var exported: [GPXPoint] = []
        _ = try GPXReader(options: GPXReadOptions(strict: true)).read(data: data, name: "export") {
            if case let .trackPoint(point) = $0 { exported.append(point) }
        }
        #expect(exported.map(\.unknownExtensions) == original.map(\.unknownExtensions))
        #expect(exported[0].heartRate == 99)
    }
}
