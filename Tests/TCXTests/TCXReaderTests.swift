import Foundation
import GPSCore
import GPX
import TCX
import Testing
import TestSupport

/// The TCX reader on our fixtures (fixtures/tcx, made by scripts/make-tcx-fixtures: one by
/// gpsbabel's TCX writer, one by our exporter), on the public TCX corpus (../shared/corpora/tcx,
/// read in place) against gpsbabel's reading of it, and on hostile and broken documents written here.
@Suite struct TCXReaderTests {
    struct Read {
        var events: [TCXEvent] = []
        var summary: TCXReadSummary
        var points: [TCXTrackpoint] { events.compactMap { if case let .trackpoint(point) = $0 { point } else { nil } } }
        var laps: [TCXLap] { events.compactMap { if case let .lapEnd(lap) = $0 { lap } else { nil } } }
        var activities: [TCXActivity] { events.compactMap { if case let .activityEnd(activity) = $0 { activity } else { nil } } }
    }

    static func read(_ path: String, options: TCXReadOptions = TCXReadOptions()) throws -> Read {
        var events: [TCXEvent] = []
        let summary = try TCXReader(options: options).read(fileAt: path) { events.append($0) }
        return Read(events: events, summary: summary)
    }

    static func read(text: String, options: TCXReadOptions = TCXReadOptions()) throws -> Read {
        var events: [TCXEvent] = []
        let summary = try TCXReader(options: options).read(data: Data(text.utf8), name: "test.tcx") { events.append($0) }
        return Read(events: events, summary: summary)
    }

    @Test func ourExportReadsWithItsLapsTracksAndExtensions() throws {
        // fixtures/tcx/exported-run.tcx: our TCX export of fixtures/fit/garmin-sdk-run.fit.
        let read = try Self.read(Repository.fixture("tcx/exported-run.tcx").path)
        #expect(read.summary.activities == 1 && read.summary.laps == 2 && read.summary.tracks == 3 && read.summary.skipped.isEmpty)
        #expect(read.points.count == 101 && read.points.filter(\.hasPosition).count == 100)
        let first = try #require(read.points.first)
        #expect(first.time.date == Date(timeIntervalSince1970: 1_714_546_800))
        #expect(first.heartRate == 120 && first.cadence == 86 && first.speed == 3 && first.power == 250 && first.altitude == 10)
        #expect(read.laps.map(\.triggerMethod) == ["Manual", "Manual"])
        #expect(read.laps.first?.averageWatts == 254 && read.laps.first?.totalTime == 60, "the first lap: 61 s of 250-259 W, the pause left out")
        #expect(read.activities.first?.sport == "Running" && read.activities.first?.creator == "Garmin product 3113")
    }

    @Test func gpsbabelsTCXReadsAsTheGPXItCameFrom() throws {
        // fixtures/tcx/gpsbabel-two-runs.tcx: gpsbabel's TCX writer given fixtures/gpx/two-runs.gpx;
        // it leaves out the points GPX's reader skips (a latitude of 95...), and writes positions to 1e-7°.
        let read = try Self.read(Repository.fixture("tcx/gpsbabel-two-runs.tcx").path)
        #expect(read.summary.activities == 3)
        let courses = try Self.read(Repository.fixture("tcx/gpsbabel-two-runs-course.tcx").path)
        #expect(courses.summary.activities == 0 && courses.summary.courses == 3 && courses.points.isEmpty)
        let gpx = try GPXRead.fixture("two-runs.gpx").trackPoints.filter { $0.time != nil }
        // gpsbabel writes the point at latitude 95 that GPX's reader skips: ours keeps its time, drops its position.
        let positioned = read.points.filter(\.hasPosition)
        #expect(positioned.count == gpx.count && read.points.count == gpx.count + 1)
        #expect(read.summary.skipped.map(\.reason).contains { $0.contains("95.0, 6.6 is outside") }, "\(read.summary.skipped)")
        #expect(zip(positioned, gpx).allSatisfy { tcx, gpx in
            abs(tcx.latitude! - gpx.latitude) < 1e-7 && abs(tcx.longitude! - gpx.longitude) < 1e-7 && tcx.time.date == gpx.time!.date
        })
    }

    @Test func aCourseIsReadWholeWithItsPositionsAndCoursePoints() throws {
        // gpsbabel's courses of fixtures/gpx/two-runs.gpx: the point at latitude 95 is skipped, and said.
        let read = try Self.read(Repository.fixture("tcx/gpsbabel-two-runs-course.tcx").path)
        let courses = read.events.compactMap { event -> TCXCourse? in if case let .course(course) = event { course } else { nil } }
        #expect(courses.map(\.name) == ["Morning run", "Evening ride", "Planned route,"])
        #expect(courses.map(\.trackpoints) == [5, 7, 2] && courses.map(\.positions.count) == [5, 6, 2])
        #expect(courses[0].positions.first == TCXCoursePosition(latitude: 51.4779, longitude: -0.0015, altitude: 45, line: courses[0].positions[0].line))
        #expect(read.summary.skipped.map(\.reason) == ["a course's track point's position 95.0, 6.6 is outside ±90°, ±180°; it was skipped"])
        let text = """
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Courses><Course>
            <Name>Hook</Name><Track><Trackpoint><Position><LatitudeDegrees>50</LatitudeDegrees><LongitudeDegrees>-4</LongitudeDegrees></Position>
            <DistanceMeters>0</DistanceMeters></Trackpoint></Track>
            <CoursePoint><Name>Spring</Name><Position><LatitudeDegrees>50.001</LatitudeDegrees><LongitudeDegrees>-4</LongitudeDegrees></Position>
            <AltitudeMeters>12</AltitudeMeters><PointType>Water</PointType><Notes>Cold</Notes></CoursePoint>
            <CoursePoint><Name>Nowhere</Name><PointType>Left</PointType></CoursePoint>
            </Course></Courses></TrainingCenterDatabase>
            """
        let made = try Self.read(text: text)
        guard case let .course(course)? = made.events.last else { Issue.record("no course: \(made.events)"); return }
        #expect(course.positions.map(\.distance) == [0])
        #expect(course.points.map(\.name) == ["Spring"] && course.points.first?.pointType == "Water" && course.points.first?.notes == "Cold")
        #expect(course.points.first?.altitude == 12)
        #expect(made.summary.skipped.map(\.reason) == ["a course point has no position (a latitude and a longitude); it was skipped"])
    }

    static let corpus = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/tcx")
    static let corpusFiles = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter { $0.hasSuffix(".tcx") }.sorted()

    @Test(.enabled(if: !corpusFiles.isEmpty, "the TCX corpus is not at ../shared/corpora/tcx"),
          .enabled(if: Repository.hasProgram("gpsbabel"), "needs gpsbabel (scripts/install-deps installs it)"),
          arguments: corpusFiles)
    func theCorpusReadsAsGPSBabelReadsIt(_ name: String) async throws {
        let path = Self.corpus.appendingPathComponent(name).path
        let read = try Self.read(path)
        #expect(read.summary.skipped.isEmpty)
        // gpsbabel keeps the points with a position, with their heart rate.
        let babel = try await Self.gpsbabel(path)
        let ours = read.points.filter(\.hasPosition)
        #expect(ours.count == babel.count, "\(name): points")
        #expect(zip(ours, babel).allSatisfy { point, row in
            abs(point.latitude! - row.latitude) < 5e-7 && abs(point.longitude! - row.longitude) < 5e-7 && point.heartRate == row.heartRate
        }, "\(name): positions and heart rates")
    }

    /// gpsbabel's points of a TCX file: latitude, longitude and heart rate.
    static func gpsbabel(_ path: String) async throws -> [(latitude: Double, longitude: Double, heartRate: Double?)] {
        let data = try await Command.run("/usr/bin/gpsbabel", ["-t", "-i", "gtrnctr", "-f", path, "-o", "unicsv", "-F", "-"]).output
        let lines = data.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self).trimmingWhitespace() }
        guard let header = lines.first?.split(separator: ",").map(String.init) else { return [] }
        let heartRate = header.firstIndex(of: "Heartrate")
        return lines.dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return (Double(fields[1])!, Double(fields[2])!, heartRate.flatMap { Double(fields[$0]) })
        }
    }

    static let header = #"<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" xmlns:x="http://www.garmin.com/xmlschemas/ActivityExtension/v2">"#

    @Test func aBadValueIsDroppedWithItsLineAndAPointWithoutATimeSkipped() throws {
        let text = Self.header + """
            <Activities><Activity Sport="Biking"><Id>2024-05-01T07:00:00Z</Id><Lap StartTime="2024-05-01T07:00:00Z"><Track>
            <Trackpoint><Time>2024-05-01T07:00:00Z</Time><Position><LatitudeDegrees>91</LatitudeDegrees><LongitudeDegrees>1</LongitudeDegrees></Position><HeartRateBpm><Value>x</Value></HeartRateBpm></Trackpoint>
            <Trackpoint><Time>yesterday</Time></Trackpoint>
            <Trackpoint><Time>2024-05-01T07:00:02Z</Time><Extensions><x:TPX><x:Watts>210</x:Watts><x:RunCadence>88</x:RunCadence></x:TPX></Extensions></Trackpoint>
            </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        let read = try Self.read(text: text)
        #expect(read.points.count == 2)
        #expect(read.points[0].latitude == nil && read.points[0].heartRate == nil, "the position out of range and the heart rate are dropped")
        #expect(read.points[1].power == 210 && read.points[1].cadence == 88)
        #expect(read.summary.skipped.map(\.line) == [2, 2, 3], "\(read.summary.skipped)")
        #expect(read.summary.skipped.last?.reason.contains("yesterday") == true)
        #expect(throws: TCXError.self) { try Self.read(text: text, options: TCXReadOptions(strict: true)) }
    }

    @Test func aCourseIsCountedNotReadAsAnActivity() throws {
        let text = Self.header + """
            <Courses><Course><Name>Park loop</Name><Lap></Lap><Track><Trackpoint><Time>2024-05-01T07:00:00Z</Time></Trackpoint></Track></Course></Courses></TrainingCenterDatabase>
            """
        let read = try Self.read(text: text)
        #expect(read.summary.activities == 0 && read.summary.courses == 1 && read.points.isEmpty)
        #expect(read.events == [.course(TCXCourse(index: 0, name: "Park loop", trackpoints: 1, line: 1))])
    }

    @Test(arguments: [
        (#"<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "e">]><TrainingCenterDatabase/>"#, "refused"),
        (Self.header + "<Activities>&lol;</Activities></TrainingCenterDatabase>", "refused"),
        (#"<gpx xmlns="http://www.topografix.com/GPX/1/1"/>"#, "not a TCX file"),
        (Self.header + "<Activities><Activity>", "malformed TCX"),
        ("not xml at all", "not XML"),
        (Self.header + String(repeating: "<a>", count: 70) + String(repeating: "</a>", count: 70) + "</TrainingCenterDatabase>", "deeper than 64"),
    ])
    func hostileOrBrokenDocumentsStopWithTheirPlace(text: String, says: String) {
        #expect {
            try Self.read(text: text)
        } throws: { error in
            (error as? TCXError)?.description.contains(says) == true && (error as? TCXError)?.description.hasPrefix("test.tcx") == true
        }
    }

    @Test func theWriterWritesWhatTheReaderReadsBack() throws {
        var bytes: [UInt8] = []
        var lap = TCXLap(index: 0, startTime: GPXTime(date: Date(timeIntervalSince1970: 1_714_546_800)))
        (lap.totalTime, lap.distance, lap.calories, lap.triggerMethod, lap.averageWatts) = (60, 200.5, 12, "Distance", 230)
        var point = TCXTrackpoint(time: GPXTime(date: Date(timeIntervalSince1970: 1_714_546_800.25)))
        (point.latitude, point.longitude, point.altitude, point.heartRate, point.cadence, point.speed, point.power) =
            (51.47790000000001, -0.0015, -3.5, 140, 90, 3.25, 230)
        TCXWriter.appendHeader(to: &bytes)
        TCXWriter.appendActivityStart(sport: "Running", id: lap.startTime!.date, to: &bytes)
        TCXWriter.appendLapStart(lap, to: &bytes)
        TCXWriter.appendTrackStart(to: &bytes)
        TCXWriter.appendTrackpoint(point, to: &bytes)
        TCXWriter.appendTrackEnd(to: &bytes)
        TCXWriter.appendLapEnd(lap, to: &bytes)
        TCXWriter.appendActivityEnd(notes: "a <note> & more", creator: "tests", to: &bytes)
        TCXWriter.appendFooter(to: &bytes)
        let read = try Self.read(text: String(decoding: bytes, as: UTF8.self), options: TCXReadOptions(strict: true))
        var expected = point
        expected.line = read.points.first?.line ?? 0
        #expect(read.points == [expected])
        #expect(read.laps.first?.distance == 200.5 && read.laps.first?.triggerMethod == "Distance" && read.laps.first?.averageWatts == 230)
        #expect(read.activities.first?.notes == "a <note> & more" && read.activities.first?.creator == "tests")
    }

    /// A lap's Intensity and TriggerMethod are one word each; a lap kept up to a megabyte of each
    /// (the text limit), and an activity keeps 10,000 laps. Each now keeps 64 characters.
    @Test func aLapsWordsAreKeptShort() throws {
        let long = String(repeating: "Manual", count: 20_000)
        let text = #"<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="Running"><Lap StartTime="2024-05-01T07:00:00Z"><Intensity>\#(long)</Intensity><TriggerMethod>\#(long)</TriggerMethod></Lap></Activity></Activities></TrainingCenterDatabase>"#
        let lap = try #require(try Self.read(text: text).laps.first)
        #expect(lap.intensity == String(long.prefix(64)) && lap.triggerMethod == String(long.prefix(64)))
    }
}
