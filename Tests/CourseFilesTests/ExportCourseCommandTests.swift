import CourseFiles
import Foundation
import Geometry
import Navigation
import SimulatorsCore
import Testing
import TestSupport

/// `workout export --course`, run as a user runs it: from a course file, and from a recorded
/// workout ("ride it again"), with the exit codes of the other commands.
@Suite(.timeLimit(.minutes(1)))
struct ExportCourseCommandTests {
    let folder: Folder
    var store: String { folder.file("workouts.sqlite") }

    init() throws {
        folder = try Folder()
    }

    func workout(_ arguments: [String]) async throws -> (status: Int32, output: [String], error: [String]) {
        let process = try ChildProcess(Repository.builtExecutable("workout").path, arguments)
        let status = await process.waitUntilExit()
        return (status, process.lines(.output), process.lines(.error))
    }

    static let square = drawn(from: GeoCoordinate(latitude: 50.0, longitude: -4.0), legs: [(0, 100), (90, 200), (180, 200), (270, 200), (0, 100)])

    @Test func aCourseFileIsWrittenAsAFITCourseWithItsCues() async throws {
        let input = try folder.write("square.gpx", gpxText(Self.square, waypoints: [("Water", Self.square[60], "water")]))
        let output = folder.file("square.fit")
        let result = try await workout(["export", "--course", input, "--format", "fit", "-o", output])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.last == "Wrote a course of \(Self.square.count) points, 800 m, with 4 cues and 1 point of interest to \(output).")
        let course = try CourseFile.read(contentsOf: output)
        #expect(course.line.points.count == Self.square.count)
        #expect(course.cues.map(\.kind) == [.right, .right, .right, .right])
        #expect(course.points.contains { $0.kind == .water && $0.name == "Water" })
    }

    @Test func aCourseGoesToStandardOutputAsAGPXRoute() async throws {
        let input = try folder.write("square.gpx", gpxText(Self.square))
        let result = try await workout(["export", "--course", input, "--format", "gpx"])
        #expect(result.status == 0, "\(result.error)")
        let text = result.output.joined(separator: "\n")
        #expect(text.contains("<rte>") && text.components(separatedBy: "<rtept").count - 1 == Self.square.count)
        #expect(text.components(separatedBy: "<type>right</type>").count - 1 == 4)
    }

    @Test func aRecordedWorkoutIsWrittenAsACourseToRideAgain() async throws {
        let gpx = Repository.fixture("gpx/greenwich-walk.gpx").path
        let imported = try await workout(["import", "--store", store, "--json", gpx])
        #expect(imported.status == 0, "\(imported.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(imported.output[0].utf8)) as? [String: Any])
        let id = try #require(object["id"] as? String), points = try #require(object["points"] as? Int)
        let output = folder.file("again.fit")
        let result = try await workout(["export", "--store", store, String(id.prefix(8)), "--course", "--format", "fit", "-o", output])
        #expect(result.status == 0, "\(result.error)")
        let course = try CourseFile.read(contentsOf: output)
        #expect(course.line.points.count == points)
        // The same positions as the walk's file, to the semicircle.
        let walk = try CourseFile.read(contentsOf: gpx)
        #expect(abs(course.length - walk.length) < 1, "\(course.length) m, the walk's \(walk.length) m")
    }

    @Test func aMissingFileExits66AndOneThatIsNotACourse65NamingIt() async throws {
        let missing = try await workout(["export", "--course", folder.file("nowhere.gpx"), "--format", "fit", "-o", folder.file("out.fit")])
        #expect(missing.status == 66)
        #expect(missing.error == ["workout export: Cannot read \(folder.file("nowhere.gpx")): no such file."])
        let activity = Repository.fixture("fit/garmin-sdk-run.fit").path
        let notCourse = try await workout(["export", "--course", activity, "--format", "gpx"])
        #expect(notCourse.status == 65 && notCourse.output.isEmpty)
        #expect(notCourse.error == ["workout export: \(activity): a FIT activity (file type 4), not a course (file type 6)."])
        let broken = try folder.write("broken.gpx", "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n<rte><rtept lat=\"50\" lon=\"-4\">\n")
        let malformed = try await workout(["export", "--course", broken, "--format", "fit", "-o", folder.file("out.fit")])
        #expect(malformed.status == 65)
        #expect(malformed.error.first?.hasPrefix("workout export: \(broken): line ") == true, "\(malformed.error)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.fit")))
    }

    @Test func aCourseIsOnlyFITOrGPXItsHelpSaysWhatItDoesAndAnUnknownWorkoutIsMissing() async throws {
        let input = try folder.write("square.gpx", gpxText(Self.square))
        let tcx = try await workout(["export", "--course", input, "--format", "tcx"])
        #expect(tcx.status == 64)
        #expect(tcx.error.contains { $0.contains("--course writes a FIT course or a GPX route") }, "\(tcx.error)")
        let help = try await workout(["export", "--help"])
        let words = help.output.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("With --course it writes a course to follow"), "\(help.output)")
        let none = try await workout(["export", "--store", store, "0000", "--course", "--format", "fit"])
        #expect(none.status == 66)
    }
}
