import CourseFiles
import Foundation
import Geometry
import Navigation
import Testing
import TestSupport

/// Courses read from each format, and the errors a user sees for what is not one.
@Suite struct CourseReadingTests {
    static let start = GeoCoordinate(latitude: 50.0, longitude: -4.0)
    /// 300 m north, 200 m east, 300 m south: a right turn at each corner.
    static let hook = drawn(from: start, legs: [(0, 300), (90, 200), (180, 300)], step: 20)

    @Test func aGPXRouteMakesItsNamedPointsCoursePointsWhereTheyLie() throws {
        let folder = try Folder()
        var text = gpxText(Self.hook, route: true, name: "Hook", waypoints: [("Water", Self.hook[20], nil)])
        // The corners named, as a route planner writes them: 300 m and 500 m along.
        for (index, name) in [(15, "Turn right"), (25, "Bear right onto the lane")] {
            let point = #"lat="\#(Self.hook[index].latitude)" lon="\#(Self.hook[index].longitude)">"#
            text = text.replacingOccurrences(of: point + "</rtept>", with: point + "<name>\(name)</name></rtept>")
        }
        let course = try CourseFile.read(contentsOf: folder.write("hook.gpx", text))
        #expect(course.name == "Hook")
        #expect(course.line.points.count == Self.hook.count)
        #expect(abs(course.length - 800) < 1)
        #expect(course.cues.map(\.kind) == [.right, .slightRight])
        #expect(course.cues.map(\.name) == ["Turn right", "Bear right onto the lane"])
        #expect(course.cues.allSatisfy { $0.origin == .file })
        #expect(abs(course.cues[0].distance - 300) < 0.5 && abs(course.cues[1].distance - 500) < 0.5)
        let water = try #require(course.points.first { $0.name == "Water" })
        // A name is not a type: a waypoint called Water is a generic point, as gpsbabel makes it.
        #expect(water.kind == .generic && abs(water.distance - 400) < 0.5)
    }

    @Test func aGPXTrackJoinsItsSegmentsAndPlacesWaypointsAtEachPass() throws {
        let folder = try Folder()
        let half = Self.hook.count / 2
        var text = gpxText(Self.hook, elevations: Self.hook.indices.map { 10 + Double($0) }, waypoints: [("Café", Self.hook[10], "food")])
        let split = #"<trkpt lat="\#(Self.hook[half].latitude)""#
        text = text.replacingOccurrences(of: "  " + split, with: "  </trkseg><trkseg>\n  " + split)
        let course = try CourseFile.read(contentsOf: folder.write("track.gpx", text))
        #expect(course.line.points.count == Self.hook.count)
        #expect(course.elevations.first == 10 && course.elevations.last == 10 + Double(Self.hook.count - 1))
        #expect(course.points.filter { $0.kind == .food }.map(\.name) == ["Café"])
        // No cue in the file: the two corners are computed.
        #expect(course.cues.map(\.kind) == [.right, .right] && course.cues.allSatisfy { $0.origin == .computed })
    }

    @Test func aTCXCourseGivesItsTrackAndCoursePoints() throws {
        let folder = try Folder()
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Courses><Course><Name>Hook</Name>"# + "\n"
        text += "<Lap><TotalTimeSeconds>100</TotalTimeSeconds><DistanceMeters>800</DistanceMeters></Lap><Track>\n"
        for (index, position) in Self.hook.enumerated() {
            text += "<Trackpoint><Time>2024-05-01T07:00:\(String(format: "%02d", index))Z</Time><Position><LatitudeDegrees>\(position.latitude)</LatitudeDegrees>"
            text += "<LongitudeDegrees>\(position.longitude)</LongitudeDegrees></Position><AltitudeMeters>\(20 + index)</AltitudeMeters></Trackpoint>\n"
        }
        text += "</Track>\n"
        for (name, index, type) in [("Right", 15, "Right"), ("Spring", 20, "Water"), ("Right 2", 25, "Right")] {
            text += "<CoursePoint><Name>\(name)</Name><Time>2024-05-01T07:00:00Z</Time><Position><LatitudeDegrees>\(Self.hook[index].latitude)</LatitudeDegrees>"
            text += "<LongitudeDegrees>\(Self.hook[index].longitude)</LongitudeDegrees></Position><PointType>\(type)</PointType></CoursePoint>\n"
        }
        text += "</Course></Courses></TrainingCenterDatabase>\n"
        let course = try CourseFile.read(contentsOf: folder.write("hook.tcx", text))
        #expect(course.name == "Hook" && course.line.points.count == Self.hook.count)
        #expect(course.elevations.first == 20)
        #expect(course.points.map(\.kind) == [.right, .water, .right])
        #expect(course.points.map(\.name) == ["Right", "Spring", "Right 2"])
        #expect(abs(course.points[1].distance - 400) < 0.5)
    }

    @Test func gpsbabelsTCXCourseIsRead() throws {
        let course = try CourseFile.read(contentsOf: Repository.fixture("tcx/gpsbabel-two-runs-course.tcx").path)
        let text = try String(contentsOfFile: Repository.fixture("tcx/gpsbabel-two-runs-course.tcx").path, encoding: .utf8)
        let first = try #require(text.components(separatedBy: "</Course>").first)
        #expect(course.name == "Morning run")
        #expect(course.line.points.count == first.components(separatedBy: "<Trackpoint>").count - 1)
    }

    @Test func aGeoJSONLineWithAltitudesAndNamedPoints() throws {
        let folder = try Folder()
        let coordinates = Self.hook.enumerated().map { "[\($1.longitude), \($1.latitude), \(100 + $0)]" }.joined(separator: ",")
        let text = """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"name": "Spring", "type": "water"},
               "geometry": {"type": "Point", "coordinates": [\(Self.hook[20].longitude), \(Self.hook[20].latitude)]}},
              {"type": "Feature", "properties": {"name": "Hook"}, "geometry": {"type": "LineString", "coordinates": [\(coordinates)]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [0, 0]}}
            ]}
            """
        let course = try CourseFile.read(contentsOf: folder.write("hook.json", text))
        #expect(course.name == "Hook" && course.line.points.count == Self.hook.count)
        #expect(course.elevations.first == 100)
        #expect(course.points.filter { !$0.isCue }.map(\.name) == ["Spring"])
        #expect(course.points.first { $0.name == "Spring" }?.kind == .water)
    }

    @Test func aGeoJSONMultiLineStringIsJoined() throws {
        let half = Self.hook.count / 2
        let lines = [Self.hook[..<half], Self.hook[half...]].map { part in
            "[" + part.map { "[\($0.longitude), \($0.latitude)]" }.joined(separator: ",") + "]"
        }
        let text = #"{"type": "MultiLineString", "coordinates": [\#(lines.joined(separator: ","))]}"#
        let course = try CourseFile.read(bytes: Array(text.utf8), name: "hook.geojson")
        #expect(course.line.points.count == Self.hook.count && abs(course.length - 800) < 1)
    }

    // MARK: - Computed and file cues

    /// A square loop drawn every 5 m, from the middle of its west side, clockwise: four right turns.
    static let square = drawn(from: start, legs: [(0, 100), (90, 200), (180, 200), (270, 200), (0, 100)])

    @Test func aLoopWithNoCueGetsItsFourRightTurnsInOrder() throws {
        let course = try CourseFile.read(bytes: Array(gpxText(Self.square).utf8), name: "square.gpx")
        #expect(course.cues.map(\.kind) == [.right, .right, .right, .right])
        #expect(course.cues.allSatisfy { $0.origin == .computed })
        for (cue, corner) in zip(course.cues, [100.0, 300, 500, 700]) {
            #expect(abs(cue.distance - corner) <= 5, "a turn at \(cue.distance) m, the corner at \(corner) m")
        }
    }

    @Test func theFilesCuesAreKeptAsTheyAre() throws {
        // One cue in the file, at the first corner, and called a left: kept as it is, and no turn computed.
        let text = gpxText(Self.square, waypoints: [("Keep left at the gate", Self.square[20], nil)])
        let course = try CourseFile.read(bytes: Array(text.utf8), name: "square.gpx")
        #expect(course.cues.map(\.kind) == [.left])
        #expect(course.cues.map(\.name) == ["Keep left at the gate"] && course.cues[0].origin == .file)
    }

    // MARK: - Errors

    @Test func aMissingFileIsSaidAsMissing() throws {
        let error = try #require(throws: CourseFileError.self) { try CourseFile.read(contentsOf: "/nonexistent/ride.gpx") }
        #expect(error.isMissingFile && !error.isNotACourse)
        #expect(error.description == "Cannot read /nonexistent/ride.gpx: no such file.")
    }

    @Test func malformedGPXIsNotACourseAtItsLineAndColumn() throws {
        let folder = try Folder()
        let path = try folder.write("x.gpx", "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n <trk><trkseg>\n  <trkpt lat=\"50\" lon=\"-4\"></trk>\n")
        let error = try #require(throws: CourseFileError.self) { try CourseFile.read(contentsOf: path) }
        #expect(error.isNotACourse && !error.isMissingFile)
        #expect(error.description.hasPrefix("\(path): line 4, column "), "\(error)")
    }

    @Test func aFITActivityIsNotACourseAndSaysWhatItIs() throws {
        let path = Repository.fixture("fit/garmin-sdk-run.fit").path
        let error = try #require(throws: CourseFileError.self) { try CourseFile.read(contentsOf: path) }
        #expect(error.isNotACourse)
        #expect(error.description == "\(path): a FIT activity (file type 4), not a course (file type 6).")
    }

    @Test func textThatIsNoFormatIsNotACourse() throws {
        let error = try #require(throws: CourseFileError.self) { try CourseFile.read(bytes: Array("hello".utf8), name: "notes.txt") }
        #expect(error.description == "notes.txt: it is not a GPX, FIT, TCX or GeoJSON file.")
    }

    @Test func aGeoJSONThatIsNoLineSaysWhere() throws {
        let text = #"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": []}}]}"#
        let error = try #require(throws: CourseFileError.self) { try CourseFile.read(bytes: Array(text.utf8), name: "x.geojson") }
        #expect(error.isNotACourse)
        #expect(error.description == "x.geojson: features: the collection holds no LineString or MultiLineString.")
    }

    @Test func aCourseOfNoPointOrOnePointSaysSo() throws {
        let none = gpxText([], waypoints: [("Water", Self.start, nil)])
        let noPoints = try #require(throws: CourseFileError.self) { try CourseFile.read(bytes: Array(none.utf8), name: "none.gpx") }
        #expect(noPoints == .tooFewPoints(file: "none.gpx", count: 0) && noPoints.isNotACourse)
        #expect(noPoints.description == "none.gpx: the course has no points; a course needs at least two.")
        let one = try #require(throws: CourseFileError.self) { try CourseFile.read(bytes: Array(gpxText([Self.start]).utf8), name: "one.gpx") }
        #expect(one.description == "one.gpx: the course has 1 point; a course needs at least two.")
    }
}
