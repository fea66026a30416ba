import Foundation
import Simulators
import Testing
import TestSupport

/// `workout import` and `export` with TCX files, as a user runs them (fixtures/tcx, made by
/// scripts/make-tcx-fixtures).
@Suite(.timeLimit(.minutes(1)))
struct TCXCommandTests {
    let commands = try! FITCommandTests()

    @Test func importTellsTCXByItsRootAndSaysWhatItCannotImport() async throws {
        let renamed = commands.folder + "/run.xml"
        try FileManager.default.copyItem(atPath: Repository.fixture("tcx/exported-run.tcx").path, toPath: renamed)
        let result = try await commands.workout(["import", "--store", commands.store, "--json", renamed])
        #expect(result.status == 0, "\(result.error)")
        let object = try commands.firstObject(result.output)
        #expect(object["points"] as? Int == 100 && object["laps"] as? Int == 2 && object["pauses"] as? Int == 1)
        #expect(object["tcx_activity"] as? Int == 0)
        let courses = try await commands.workout(["import", "--store", commands.store, Repository.fixture("tcx/gpsbabel-two-runs-course.tcx").path])
        // Issue 24: a file that imports nothing exits 65, as a file that is not TCX does (it exited 0).
        #expect(courses.status == 65 && courses.output.isEmpty)
        // The third course's point off the Earth is said (the reader skips it, as it skips a workout's).
        #expect(courses.error.first?.contains("a course's track point's position 95.0, 6.6 is outside ±90°, ±180°; it was skipped") == true, "\(courses.error)")
        #expect(courses.error.count == 5 && courses.error.dropFirst().dropLast().allSatisfy { $0.contains("not imported: it is a course") }, "\(courses.error)")
        #expect(courses.error.last?.hasSuffix("gpsbabel-two-runs-course.tcx: nothing imported from it.") == true, "\(courses.error)")
    }

    @Test func exportWritesTCXThatImportsAsTheSameWorkout() async throws {
        let imported = try await commands.workout(["import", "--store", commands.store, "--json", commands.run])
        let id = try #require(try commands.firstObject(imported.output)["id"] as? String)
        let file = commands.folder + "/out.tcx"
        let exported = try await commands.workout(["export", "--store", commands.store, id, "--format", "tcx", "-o", file])
        #expect(exported.status == 0)
        #expect(exported.error.contains { $0.contains("101 samples have no place in tcx") }, "the temperatures: \(exported.error)")
        let again = try await commands.workout(["import", "--store", commands.store, "--json", file])
        #expect(try commands.firstObject(again.output)["status"] as? String == "already_imported")
    }

    @Test func aMalformedTCXStopsWithItsLineAndColumn() async throws {
        let broken = commands.folder + "/broken.tcx"
        try #"<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities>"#
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let result = try await commands.workout(["import", "--store", commands.store, broken])
        #expect(result.status == 65)
        #expect(result.error.contains { $0.contains("broken.tcx:1:") && $0.contains("malformed TCX") }, "\(result.error)")
    }
}
