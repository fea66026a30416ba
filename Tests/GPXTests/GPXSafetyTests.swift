import Foundation
import Testing
import TestSupport
import GPX

/// What the reader refuses or limits, and how it reports invalid values. Columns are where libxml2
/// had reached: the `>` of a start tag, the end of an end tag, the end of an entity reference.
@Suite("GPX reader safety and invalid values")
struct GPXSafetyTests {
    static func path(_ name: String) -> String { Repository.fixture("gpx/" + name).path }

    @Test func doctypeWithExternalEntityIsRefused() {
        let path = Self.path("doctype-xxe.gpx")
        #expect(throws: GPXError.refused(file: path, line: 2, column: 15,
                                         reason: "a DOCTYPE (gpx) is not accepted in GPX")) {
            try GPXRead.fixture("doctype-xxe.gpx")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func billionLaughsIsRefusedBeforeAnyExpansion() throws {
        let started = ContinuousClock.now
        #expect(throws: GPXError.refused(file: Self.path("billion-laughs.gpx"), line: 2, column: 16,
                                         reason: "a DOCTYPE (lolz) is not accepted in GPX")) {
            try GPXRead.fixture("billion-laughs.gpx")
        }
        // The refusal's place (the DOCTYPE, line 2) says it came before any expansion; the bound
        // is only a backstop a loaded machine keeps (an expansion would take minutes and gigabytes).
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func doctypeWithoutInternalSubsetIsRefusedToo() {
        #expect(throws: GPXError.refused(file: "d.gpx", line: 1, column: 50,
                                         reason: "a DOCTYPE (gpx) is not accepted in GPX")) {
            try GPXRead.text(#"<!DOCTYPE gpx SYSTEM "http://example.org/gpx.dtd"><gpx version="1.1"></gpx>"#,
                             name: "d.gpx")
        }
    }

    @Test func undeclaredEntityReferenceIsRefusedButPredefinedAndCharacterReferencesWork() throws {
        #expect(throws: GPXError.refused(file: Self.path("entity-reference.gpx"), line: 3, column: 66,
                                         reason: "the entity reference &undeclared; is not accepted in GPX")) {
            try GPXRead.fixture("entity-reference.gpx")
        }
        let read = try GPXRead.text(#"<gpx><wpt lat="0" lon="0"><name>&amp; &#233; &lt;ok&gt; &quot;&apos;</name></wpt></gpx>"#)
        #expect(read.waypoints.first?.name == "& é <ok> \"'")
    }

    @Test func malformedXMLNamesFileLineAndColumn() {
        let path = Self.path("malformed.gpx")
        #expect(throws: GPXError.malformed(file: path, line: 6, column: 48,
                                           reason: "Opening and ending tag mismatch: ele line 6 and elevation")) {
            try GPXRead.fixture("malformed.gpx")
        }
        #expect(throws: GPXError.malformed(file: "e.gpx", line: 1, column: 1, reason: "the document is empty")) {
            try GPXRead.text("", name: "e.gpx")
        }
        #expect(throws: GPXError.malformed(file: "t.gpx", line: 1, column: 27, reason: "expected '>'")) {
            try GPXRead.text("<gpx><trk><trkseg></trkseg", name: "t.gpx")
        }
    }

    @Test func depthBombHitsTheDepthLimit() {
        let depth = 100_000
        let xml = "<gpx><extensions>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
            + "</extensions></gpx>"
        #expect(throws: GPXError.limitExceeded(file: "deep.gpx", line: 1, column: 206,
                                               reason: "elements nested deeper than 64 levels")) {
            try GPXRead.text(xml, name: "deep.gpx")
        }
    }

    @Test func textAndAttributeLengthLimits() {
        let options = GPXReadOptions(maximumTextLength: 1000)
        let long = String(repeating: "x", count: 1001)
        #expect(throws: GPXError.limitExceeded(file: "t.gpx", line: 1, column: 1013,
                                               reason: "text longer than 1000 bytes")) {
            try GPXRead.text("<gpx><name>\(long)</name></gpx>", name: "t.gpx", options: options)
        }
        #expect(throws: GPXError.limitExceeded(file: "a.gpx", line: 1, column: 1017,
                                               reason: "an attribute value longer than 1000 bytes")) {
            try GPXRead.text(#"<gpx creator="\#(long)"></gpx>"#, name: "a.gpx", options: options)
        }
        // Text in an element the reader does not keep counts too.
        #expect(throws: GPXError.limitExceeded(file: "i.gpx", line: 1, column: 1016,
                                               reason: "text longer than 1000 bytes")) {
            try GPXRead.text("<gpx><ignored>\(long)</ignored></gpx>", name: "i.gpx", options: options)
        }
    }

    @Test func invalidValuesSkipTheirPointOrOnlyThemselves() throws {
        let read = try GPXRead.fixture("invalid-values.gpx")
        #expect(read.summary.skipped == [
            GPXSkip(line: 3, column: 25, reason: "latitude 91 is outside -90...90; the point was skipped"),
            GPXSkip(line: 6, column: 34, reason: "longitude 180.9 is outside -180...180; the point was skipped"),
            GPXSkip(line: 8, column: 31,
                    reason: "latitude 100 is an OpenTracks pause marker, not a position; the point was skipped"),
            GPXSkip(line: 9, column: 31,
                    reason: "latitude 200 is an OpenTracks pause marker, not a position; the point was skipped"),
            GPXSkip(line: 10, column: 35,
                    reason: "time 'yesterday' is not an RFC 3339 date-time; the point was skipped"),
            GPXSkip(line: 11, column: 35, reason: "elevation 'high' is not a number; the point was skipped"),
            GPXSkip(line: 12, column: 34, reason: "latitude 'north' is not a number; the point was skipped"),
            GPXSkip(line: 13, column: 22, reason: "the point has no lat attribute; the point was skipped"),
            GPXSkip(line: 14, column: 85, reason: "hdop 'bad' is not a number; the value was dropped"),
            GPXSkip(line: 14, column: 98, reason: "sat '-3' is not a count; the value was dropped"),
        ])
        #expect(read.trackPoints == [
            GPXPoint(latitude: 10, longitude: 20, time: GPXTime(date: epoch(1_714_550_401)), line: 7),
            // hdop and sat dropped, the non-standard fix kept as written, the empty <ele> absent.
            GPXPoint(latitude: 10, longitude: 20.003, time: GPXTime(date: epoch(1_714_550_406)),
                     fix: "something_not_in_the_spec", line: 14),
        ])
        #expect(read.waypoints.isEmpty)
        #expect(read.summary.trackPoints == 2)
        #expect(read.summary.waypoints == 0)
    }

    @Test func strictModeFailsOnTheFirstInvalidValue() {
        #expect(throws: GPXError.invalidValue(file: Self.path("invalid-values.gpx"), line: 3, column: 25,
                                              reason: "latitude 91 is outside -90...90")) {
            try GPXRead.fixture("invalid-values.gpx", options: GPXReadOptions(strict: true))
        }
        #expect(throws: GPXError.invalidValue(file: "s.gpx", line: 1, column: 41,
                                              reason: "hdop 'x' is not a number; the value was dropped")) {
            try GPXRead.text(#"<gpx><wpt lat="1" lon="2"><hdop>x</hdop></wpt></gpx>"#, name: "s.gpx",
                             options: GPXReadOptions(strict: true))
        }
    }
}
