import CourseFiles
import FIT
import Foundation
import Geometry
import GPX
import Navigation
import Testing
import TestSupport

/// FIT courses held to programs we did not write: gpsbabel's writer and reader, Garmin's decoder
/// (PyPI garmin-fit-sdk), and the public FIT corpus.
@Suite(.timeLimit(.minutes(2)))
struct FITCourseTests {
    static let start = GeoCoordinate(latitude: 50.0, longitude: -4.0)
    /// 300 m north, 200 m east, 300 m south, drawn every 20 m.
    static let hook = drawn(from: start, legs: [(0, 300), (90, 200), (180, 300)], step: 20)
    static let waypoints: [(name: String, at: GeoCoordinate, type: String?)] = [
        ("Turn right", hook[15], nil), ("Right", hook[25], nil), ("Spring", hook[20], nil), ("Turn left", hook[35], nil),
    ]

    static let corpus = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/fit")
    static let corpusFiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? [])
        .filter { $0.lowercased().hasSuffix(".fit") }.sorted().map { corpus.appendingPathComponent($0).path }

    @Test(.enabled(if: Repository.hasProgram("gpsbabel"), "needs gpsbabel (scripts/install-deps installs it)"),
          .enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"),
          arguments: [false, true])
    func gpsbabelsFITCourseReadsAsGarminsDecoderReadsIt(route: Bool) async throws {
        let folder = try Folder()
        let gpx = try folder.write("in.gpx", gpxText(Self.hook, route: route, elevations: Self.hook.indices.map { 40 + Double($0) }, waypoints: Self.waypoints))
        let fit = folder.file("out.fit")
        // gpsbabel's FIT writer writes tracks: a route is made one (its points, named, made
        // waypoints first, which become course points), as its documentation has it.
        let transforms = route ? ["-x", "transform,wpt=rte", "-x", "transform,trk=rte,del"] : []
        let babel = try await Command.run("/usr/bin/gpsbabel", ["-i", "gpx", "-f", gpx] + transforms + ["-o", "garmin_fit", "-F", fit])
        #expect(babel.status == 0, "\(babel.error)")
        let garmin = try #require(try await CoursePeer.read([fit])[fit])
        #expect(garmin.errors.isEmpty && garmin.fileTypes == [6])
        let course = try CourseFile.read(contentsOf: fit)
        #expect(course.name == "Loop")
        #expect(course.line.points.count == garmin.records)
        #expect(garmin.records == Self.hook.count)
        // gpsbabel's distances (its own sums) within a metre or two of ours.
        for (ours, theirs) in zip(course.line.distances, garmin.recordDistances) {
            let theirs = try #require(theirs)
            #expect(abs(ours - theirs) < 2, "a record at \(theirs) m, ours at \(ours) m")
        }
        #expect(course.elevations.first == 40)
        // The course points as gpsbabel wrote them (a name saying left or right is a turn) and
        // Garmin's decoder reads them: types, names, distances.
        let points = garmin.coursePoints
        #expect(course.points.map { Double($0.kind.fitValue) } == points.map { $0[0]?.number })
        #expect(course.points.map(\.name) == points.map { $0[1]?.text })
        // (From a route, gpsbabel makes every point a course point, naming the unnamed RPT001...)
        let named = course.points.filter { ($0.name ?? "").wholeMatch(of: /RPT\d{3}/) == nil }
        #expect(named.map(\.kind) == [.right, .generic, .right, .left])
        #expect(course.points.count == (route ? Self.hook.count + Self.waypoints.count : Self.waypoints.count))
        for (ours, theirs) in zip(course.points, points) {
            let distance = try #require(theirs[2]?.number)
            #expect(abs(ours.distance - distance) < 3, "\(ours.name ?? ""): \(ours.distance) m, gpsbabel's \(distance) m")
        }
        #expect(course.points.allSatisfy { $0.origin == .file })
    }

    /// The corpus holds no course (file type 6) today: every file is an activity, settings,
    /// a workout plan, monitoring or weight scale. Each course in it is read as Garmin's decoder
    /// reads it; each other file is refused, naming the type Garmin's decoder reads in it.
    @Test(.enabled(if: corpusFiles.count >= 40, "the FIT corpus is not at ../shared/corpora/fit"),
          .enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"))
    func theCorpusCoursesReadAsGarminsAndTheRestAreRefusedByType() async throws {
        let readings = try await CoursePeer.read(Self.corpusFiles)
        var courses = 0, refused = 0
        for path in Self.corpusFiles {
            let garmin = try #require(readings[path], "the peer did not read \(path)")
            let type = garmin.fileTypes.first.flatMap { $0 }.map { Int($0) }
            if type == 6 {
                courses += 1
                let course = try CourseFile.read(contentsOf: path)
                #expect(course.line.points.count == garmin.records, "\(path): records")
                #expect(course.points.count == garmin.coursePoints.count, "\(path): course points")
                #expect(course.points.map { Double($0.kind.fitValue) } == garmin.coursePoints.map { $0[0]?.number ?? 0 }, "\(path): types")
                #expect(course.points.map(\.name) == garmin.coursePoints.map { $0[1]?.text }, "\(path): names")
            } else {
                do {
                    _ = try CourseFile.read(contentsOf: path)
                    Issue.record("\(path): read as a course, where Garmin's decoder reads file type \(type.map(String.init) ?? "none")")
                } catch {
                    refused += 1
                    #expect(error.isNotACourse, "\(path): \(error)")
                    if let type, garmin.errors.isEmpty {
                        #expect(error.description.contains("(file type \(type)), not a course"), "\(path): \(error)")
                    }
                }
            }
        }
        #expect(courses + refused == Self.corpusFiles.count)
    }

    static func exported() throws -> (course: Course, bytes: [UInt8]) {
        var text = gpxText(Self.hook, route: true, elevations: Self.hook.indices.map { 40 + Double($0) }, waypoints: [("Spring", Self.hook[20], "water")])
        for (index, name) in [(15, "Right at the church"), (25, "Sharp right")] {
            let point = #"lat="\#(Self.hook[index].latitude)" lon="\#(Self.hook[index].longitude)"><ele>\#(40 + Double(index))</ele>"#
            text = text.replacingOccurrences(of: point + "</rtept>", with: point + "<name>\(name)</name></rtept>")
        }
        let course = try CourseFile.read(bytes: Array(text.utf8), name: "hook.gpx")
        let options = CourseFITOptions(sport: .cycling, speed: 5, start: Date(timeIntervalSince1970: 1_714_546_800))
        return (course, CourseFile.fit(course, options: options))
    }

    @Test(.enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"))
    func ourFITCourseIsReadByGarminsDecoder() async throws {
        let folder = try Folder()
        let (course, bytes) = try Self.exported()
        #expect(course.points.map(\.kind) == [.right, .water, .sharpRight])
        let path = folder.file("hook.fit")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let garmin = try #require(try await CoursePeer.read([path])[path])
        #expect(garmin.errors.isEmpty && garmin.integrity, "\(garmin.errors)")
        #expect(garmin.fileTypes == [6])
        #expect(garmin.course?.name == "Loop" && garmin.course?.sport == 2)
        #expect(garmin.course?.capabilities == Double(CourseFile.fitCapabilities))
        #expect(garmin.records == course.line.points.count)
        #expect(garmin.coursePoints.map { $0[0]?.number } == [7, 3, 22])
        // Names of up to 15 bytes, as gpsbabel writes them and head units show them.
        #expect(garmin.coursePoints.map { $0[1]?.text } == ["Right at the ch", "Spring", "Sharp right"])
        for (ours, theirs) in zip(course.points, garmin.coursePoints) {
            #expect(abs((theirs[2]?.number ?? -1) - ours.distance) < 0.01)
            // At 5 m/s from the start: the virtual partner's time at the point.
            #expect(theirs[5]?.number == Double(1_714_546_800 - 631_065_600) + (ours.distance / 5).rounded())
        }
        // And read back by us: the same course.
        let again = try CourseFile.read(contentsOf: path)
        #expect(again.points.map(\.kind) == course.points.map(\.kind))
        #expect(again.points.map(\.name) == ["Right at the ch", "Spring", "Sharp right"])
        #expect(again.elevations == course.elevations)
    }

    @Test(.enabled(if: Repository.hasProgram("gpsbabel"), "needs gpsbabel (scripts/install-deps installs it)"))
    func gpsbabelReadsOurFITCourseBackToGPXWithItsPositions() async throws {
        let folder = try Folder()
        let (course, bytes) = try Self.exported()
        let fit = folder.file("hook.fit"), gpx = folder.file("back.gpx")
        try Data(bytes).write(to: URL(fileURLWithPath: fit))
        let babel = try await Command.run("/usr/bin/gpsbabel", ["-i", "garmin_fit", "-f", fit, "-o", "gpx", "-F", gpx])
        #expect(babel.status == 0, "\(babel.error)")
        var points: [GPXPoint] = []
        _ = try GPXReader().read(fileAt: gpx) { event in
            if case let .trackPoint(point) = event { points.append(point) }
        }
        #expect(points.count == course.line.points.count)
        for (point, position) in zip(points, course.line.points) {
            // Semicircles keep a position to 1e-7 degree (a centimetre).
            #expect(abs(point.latitude - position.latitude) < 1e-6 && abs(point.longitude - position.longitude) < 1e-6)
        }
        #expect(points.first?.elevation == course.elevations.first ?? nil)
    }

    @Test func ourGPXRouteReadsBackAsTheSameCourse() throws {
        let (course, _) = try Self.exported()
        let bytes = CourseFile.gpx(course)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("<rte>") && text.contains("<type>sharp_right</type>"))
        let again = try CourseFile.read(bytes: bytes, name: "again.gpx")
        #expect(again.line.points == course.line.points && again.elevations == course.elevations)
        #expect(again.points.map(\.kind) == course.points.map(\.kind) && again.points.map(\.name) == course.points.map(\.name))
        for (ours, theirs) in zip(again.points, course.points) { #expect(abs(ours.distance - theirs.distance) < 0.5) }
    }
}
