import Foundation
import Testing
import TestSupport
import GPX

/// The reader on the project's own fixtures (fixtures/gpx): versions, structure, fields,
/// extensions, encodings and compression.
@Suite("GPX reader")
struct GPXReaderTests {
    @Test func gpx10TopLevelFieldsSpeedAndCourse() throws {
        let read = try GPXRead.fixture("gpx10-speed-course.gpx")
        let metadata = try #require(read.metadata)
        #expect(metadata.version == "1.0")
        #expect(metadata.creator == "swift-gps-facade fixtures")
        #expect(metadata.name == "Morning ride")
        #expect(metadata.description == "GPX 1.0 keeps the file's fields at the top level")
        #expect(metadata.author == "A. Rider")
        #expect(metadata.keywords == "ride, test")
        #expect(metadata.time == GPXTime(date: epoch(1_714_546_800), utcOffset: 0))
        #expect(read.waypoints == [GPXPoint(latitude: 51.4779, longitude: -0.0015, elevation: 45.5, name: "Greenwich",
                                            symbol: "Flag", line: 10)])
        let points = read.trackPoints
        #expect(points.count == 2)
        #expect(points[0] == GPXPoint(
            latitude: 51.4779, longitude: -0.0015, elevation: 45.5, time: GPXTime(date: epoch(1_714_546_800)),
            hdop: 0.9, vdop: 1.4, pdop: 1.7, satellites: 9, fix: "3d", speed: 4.25, course: 92.5, line: 19))
        #expect(points[1].speed == 3.5)
        #expect(points[1].course == 88)
        #expect(points[1].fix == "dgps")
        guard case .trackStart(let track) = read.events[2] else {
            Issue.record("expected trackStart, got \(read.events[2])")
            return
        }
        #expect(track.name == "Ride")
        #expect(track.number == 7)
        #expect(read.summary.encoding == "UTF-8")
        #expect(read.summary.compressed == false)
        #expect(read.summary.skipped.isEmpty)
    }

    @Test func gpx11StructureInFileOrder() throws {
        let read = try GPXRead.fixture("gpx11-full.gpx")
        let shape = read.events.map { event -> String in
            switch event {
            case .metadata: "metadata"
            case .waypoint(let p): "wpt \(p.name ?? "")"
            case .routeStart(let r): "rte \(r.index) \(r.name ?? "")"
            case .routePoint(let p): "rtept \(p.name ?? "")"
            case .routeEnd: "/rte"
            case .trackStart(let t): "trk \(t.index) \(t.name ?? "")"
            case .segmentStart: "trkseg"
            case .trackPoint(let p): "trkpt \(p.elevation ?? .nan)"
            case .segmentEnd: "/trkseg"
            case .trackEnd(let t): "/trk \(t.description ?? "-")"
            }
        }
        #expect(shape == [
            "metadata", "wpt Big Ben", "wpt Tower",
            "rte 0 Bridges", "rtept Tower Bridge", "rtept London Bridge", "rtept Millennium Bridge", "/rte",
            "trk 0 Towpath", "trkseg", "trkpt 5.0", "trkpt 9.0", "trkpt 7.0", "/trkseg",
            "trkseg", "trkpt 20.0", "trkpt 18.0", "/trkseg", "trkseg", "/trkseg",
            "/trk a description after the segments",
            "trk 1 Empty", "/trk -",
        ])
        let metadata = try #require(read.metadata)
        #expect(metadata == GPXMetadata(
            version: "1.1", creator: "swift-gps-facade fixtures", name: "Thames & towpaths",
            description: "Waypoints, a route, a two-segment track, an empty segment and an empty track",
            author: "A. Walker", time: GPXTime(date: epoch(1_714_550_400), utcOffset: 4500), keywords: "walk"))
        #expect(read.waypoints[0] == GPXPoint(
            latitude: 51.5007, longitude: -0.1246, name: "Big Ben", comment: "bells", description: "clock tower",
            symbol: "Bell", type: "landmark", line: 13))
        guard case .routeStart(let route) = read.events[3] else { throw Failure("no routeStart") }
        #expect(route == GPXPathInfo(index: 0, name: "Bridges", comment: "east to west", description: "three bridges",
                                     source: "map", type: "walking", number: 2, line: 15))
        var summary = GPXReadSummary(file: Repository.fixture("gpx/gpx11-full.gpx").path)
        (summary.tracks, summary.segments, summary.trackPoints) = (2, 3, 5)
        (summary.routes, summary.routePoints, summary.waypoints) = (1, 3, 2)
        summary.encoding = "UTF-8"
        #expect(read.summary == summary)
    }

    @Test func gzipIsDetectedByItsMagicNotItsName() throws {
        let plain = try GPXRead.fixture("gpx11-full.gpx")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpx-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The same gzip data under a name that does not say so.
        let renamed = folder.appendingPathComponent("ride.gpx")
        try FileManager.default.copyItem(at: Repository.fixture("gpx/gpx11-full.gpx.gz"), to: renamed)
        for path in [Repository.fixture("gpx/gpx11-full.gpx.gz").path, renamed.path] {
            var progress: [(Int64, Int64?)] = []
            var events: [GPXEvent] = []
            let summary = try GPXReader().read(fileAt: path, progress: { progress.append(($0, $1)) }) {
                events.append($0)
            }
            #expect(summary.compressed)
            #expect(events == plain.events)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(progress.last?.0 == Int64(size))
            #expect(progress.last?.1 == Int64(size))
        }
    }

    @Test func garminTrackPointExtensionsByNamespaceWhateverThePrefix() throws {
        let points = try GPXRead.fixture("garmin-trackpointextension.gpx").trackPoints
        #expect(points.count == 3)
        #expect(points[0].heartRate == 121)
        #expect(points[0].cadence == 84)
        #expect(points[0].airTemperature == 18.5)
        #expect(points[0].waterTemperature == 14)
        #expect(points[0].depth == 1.5)
        #expect(points[0].unknownExtensions.isEmpty)
        // v2: speed and course; the unknown `bearing` inside the known container is dropped; the
        // second container (default namespace) is read too, and its later hr wins.
        #expect(points[1].speed == 3.75)
        #expect(points[1].course == 270.5)
        #expect(points[1].cadence == 85)
        #expect(points[1].heartRate == 999)
        #expect(points[1].unknownExtensions.isEmpty)
        #expect(points[2].airTemperature == 21.5)
        #expect(points[2].depth == 3.25)
    }

    @Test func gpxdataPowerAndHeartrate() throws {
        let points = try GPXRead.fixture("gpxdata-power-heartrate.gpx").trackPoints
        #expect(points.map(\.heartRate) == [140, 141, 142])
        #expect(points.map(\.power) == [250, 260, 270])
        #expect(points[0].cadence == 90)
        #expect(points[0].airTemperature == 12.5)
        #expect(points[0].distance == 1234.5)
        #expect(points.allSatisfy { $0.unknownExtensions.isEmpty })
    }

    @Test func unknownExtensionsAreKeptAsStandaloneXML() throws {
        let point = try #require(try GPXRead.fixture("unknown-extensions.gpx").trackPoints.first)
        #expect(point.unknownExtensions == [
            #"<ot:accuracy_horizontal xmlns:ot="http://opentracksapp.com/xmlschemas/v1">10</ot:accuracy_horizontal>"#,
            #"<x:sensor xmlns:x="urn:example:x" xmlns:y="urn:example:y" id="a&amp;b" y:unit="&quot;m&quot;">"#
                + #"<x:reading>1 &lt; 2 &amp; 3</x:reading><y:flag/></x:sensor>"#,
        ])
        // An unprefixed `<speed>` inside <extensions> (older OsmAnd) is read as the point's speed.
        #expect(point.speed == 4.5)
        // Each fragment parses on its own, with its namespaces.
        for fragment in point.unknownExtensions {
            let wrapped = #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="0" lon="0"><extensions>"#
                + fragment + "</extensions></wpt></gpx>"
            let again = try GPXRead.text(wrapped).waypoints
            #expect(again.first?.unknownExtensions == [fragment])
        }
    }

    @Test func undeclaredPrefixesAreToleratedAndDroppedFromKeptExtensions() throws {
        // libxml2 reports an undeclared prefix as a namespace error and goes on; so do we. The
        // kept text must stand alone, so the prefixes without a namespace are left out.
        let read = try GPXRead.text(
            #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="1" lon="2"><extensions>"#
                + #"<u:thing a:b="1" c:b="2" d="3">x</u:thing><v:hr>99</v:hr></extensions></wpt></gpx>"#)
        let point = try #require(read.waypoints.first)
        #expect(point.unknownExtensions == [#"<thing b="1" d="3">x</thing>"#, "<hr>99</hr>"])
        #expect(point.heartRate == nil)
    }

    @Test func times() throws {
        let times = try GPXRead.fixture("times.gpx").waypoints.map { try #require($0.time) }
        #expect(times.count == 8)
        #expect(times[0] == GPXTime(date: epoch(1_714_550_400), utcOffset: 4500))
        #expect(times[1] == GPXTime(date: epoch(1_714_550_400), utcOffset: -12_600))
        #expect(abs(times[2].date.timeIntervalSince1970 - 1_714_550_400.123456789) < 1e-6)
        #expect(times[3] == GPXTime(date: epoch(-23_215_049_511 + 0.5), utcOffset: 0))
        #expect(abs(times[4].date.timeIntervalSince1970 - 67_095_302_399.999) < 1e-5)
        #expect(times[5] == GPXTime(date: epoch(1_714_550_400), utcOffset: nil))
        #expect(abs(times[6].date.timeIntervalSince1970 - 1_709_208_000.001) < 1e-6)
        #expect(times[7] == GPXTime(date: epoch(1_714_550_400 - 19_800), utcOffset: 19_800))
    }

    @Test func timesRoundTripToTheMillisecond() throws {
        // Every millisecond of a second, at dates far apart.
        for base in ["1234-05-06T07:08:09", "2024-05-01T08:00:00", "4096-02-29T23:59:59"] {
            var xml = #"<gpx xmlns="http://www.topografix.com/GPX/1/1">"#
            for millisecond in 0..<1000 {
                xml += #"<wpt lat="0" lon="0"><time>\#(base).\#(String(format: "%03d", millisecond))Z</time></wpt>"#
            }
            let times = try GPXRead.text(xml + "</gpx>").waypoints.map { $0.time!.date.timeIntervalSince1970 }
            let whole = times[0]
            for (millisecond, time) in times.enumerated() {
                #expect(Int(((time - whole) * 1000).rounded()) == millisecond)
            }
        }
    }

    @Test func encodings() throws {
        let latin = try GPXRead.fixture("iso-8859-1.gpx")
        #expect(latin.waypoints.first?.name == "Café Zürich ° ½")
        #expect(latin.summary.encoding == "ISO-8859-1")
        let bom = try GPXRead.fixture("utf8-bom.gpx")
        #expect(bom.waypoints.first?.name == "Tour Eiffel — été")
        #expect(bom.summary.encoding == "UTF-8")
    }

    @Test func noNamespaceAndNoRootAttributes() throws {
        let read = try GPXRead.fixture("no-namespace.gpx")
        #expect(read.metadata == GPXMetadata())
        #expect(read.trackPoints == [GPXPoint(latitude: 1.5, longitude: 2.5, time: GPXTime(date: epoch(981_173_106)),
                                              line: 2)])
    }

    @Test func elementsInUnknownNamespacesOutsideExtensionsAreIgnored() throws {
        let read = try GPXRead.text("""
            <gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:o="urn:other">
              <o:wpt lat="1" lon="1"/>
              <trk><o:name>not this</o:name><trkseg><trkpt lat="1" lon="2"><o:ele>9</o:ele><ele>3</ele></trkpt></trkseg></trk>
            </gpx>
            """)
        #expect(read.waypoints.isEmpty)
        #expect(read.trackPoints.map(\.elevation) == [3])
        guard case .trackStart(let track) = read.events[1] else { throw Failure("no trackStart") }
        #expect(track.name == nil)
    }

    @Test func notGPX() {
        #expect(throws: GPXError.malformed(
            file: "x.xml", line: 1, column: 6,
            reason: "the root element is <html>, not <gpx>: this is not a GPX file")) {
            try GPXRead.text("<html></html>", name: "x.xml")
        }
        #expect(throws: GPXError.malformed(
            file: "x.gpx", line: 1, column: 32,
            reason: "the root <gpx> is in a namespace that is neither GPX 1.0 nor GPX 1.1")) {
            try GPXRead.text(#"<gpx xmlns="urn:something-else"></gpx>"#, name: "x.gpx")
        }
    }

    @Test func unreadableFile() {
        #expect(throws: GPXError.unreadable(file: "/nonexistent/a.gpx", reason: "No such file or directory")) {
            try GPXRead.file("/nonexistent/a.gpx")
        }
    }

    @Test func handlerErrorStopsTheRead() {
        struct Enough: Error, CustomStringConvertible {
            var description: String { "enough points" }
        }
        var seen = 0
        #expect(throws: GPXError.handlerFailed(file: "h.gpx", line: 4, reason: "enough points")) {
            _ = try GPXReader().read(data: Data("""
                <gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
                <trkpt lat="1" lon="1"/>
                <trkpt lat="1" lon="2"/>
                <trkpt lat="1" lon="3"/>
                <trkpt lat="1" lon="4"/>
                </trkseg></trk></gpx>
                """.utf8), name: "h.gpx") { event in
                if case .trackPoint = event {
                    seen += 1
                    if seen == 3 { throw Enough() }
                }
            }
        }
        #expect(seen == 3)
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
