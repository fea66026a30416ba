import Foundation
import GPSCore
import Testing
import TestSupport
@testable import Workout

/// `WorkoutFileFormat` tells GPX, FIT and TCX apart by content, compressed or not, whatever the name.
@Suite struct WorkoutFileFormatTests {
    @Test func eachFormatIsToldByItsContent() throws {
        let folder = try TemporaryFolder()
        func gzipped(_ fixture: String, as name: String) throws -> String {
            let path = folder.file(name)
            let gzip = Process()
            gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
            gzip.arguments = ["-c", "gzip -c '\(Repository.fixture(fixture).path)' > '\(path)'"]
            try gzip.run()
            gzip.waitUntilExit()
            return path
        }
        #expect(WorkoutFileFormat(contentsOf: Repository.fixture("fit/garmin-sdk-run.fit").path) == .fit)
        #expect(WorkoutFileFormat(contentsOf: try gzipped("fit/garmin-sdk-run.fit", as: "ride.gpx")) == .fit, "gzip-compressed, misnamed")
        #expect(WorkoutFileFormat(contentsOf: Repository.fixture("tcx/exported-run.tcx").path) == .tcx)
        #expect(WorkoutFileFormat(contentsOf: try gzipped("tcx/gpsbabel-two-runs.tcx", as: "run.tcx.gz")) == .tcx)
        #expect(WorkoutFileFormat(contentsOf: Repository.fixture("gpx/gpx11-full.gpx.gz").path) == .gpx)
        #expect(WorkoutFileFormat(contentsOf: Repository.fixture("gpx/utf8-bom.gpx").path) == .gpx, "a BOM first")
        #expect(WorkoutFileFormat(contentsOf: Repository.fixture("nmea/comments.nmea").path) == nil)
        #expect(WorkoutFileFormat(contentsOf: folder.file("missing.fit")) == nil, "the GPX importer then says it cannot be read")
    }

    @Test func theRootElementIsFoundPastTheDeclarationCommentsAndADoctype() {
        let text = "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- a comment -->\n<!DOCTYPE x>\n<tcx:TrainingCenterDatabase xmlns:tcx=\"...\">"
        #expect(XMLHead.rootElement(Array(text.utf8)) == "tcx:TrainingCenterDatabase")
        #expect(WorkoutFileFormat(head: Array(text.utf8)) == .tcx)
        #expect(XMLHead.rootElement(Array("plain text".utf8)) == nil)
    }
}
