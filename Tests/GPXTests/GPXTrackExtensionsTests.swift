import Foundation
import GPX
import Testing

/// A track's `<extensions>` (before its segments, as GPX 1.1 puts them) are kept as XML text with
/// their namespace declarations, as a point's unknown extensions are, and come with the track's
/// start; a track's extensions are bounded, whatever the file holds.
@Suite struct GPXTrackExtensionsTests {
    static func document(extensions: String) -> Data {
        Data(("""
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:x="urn:example:x">
            <trk><name>run</name><extensions>\(extensions)</extensions>
            <trkseg><trkpt lat="51.5" lon="-0.1"><time>2024-05-01T10:00:00Z</time></trkpt></trkseg></trk></gpx>
            """).utf8)
    }

    @Test func aTracksExtensionsComeWithItsStartAsText() throws {
        let data = Self.document(extensions: #"<x:a id="1">one &amp; two</x:a><b xmlns="urn:example:b"/>"#)
        var started: GPXPathInfo?
        _ = try GPXReader().read(data: data, name: "t.gpx") { event in
            if case let .trackStart(info) = event { started = info }
        }
        let info = try #require(started)
        #expect(info.name == "run")
        #expect(info.extensions == [#"<x:a xmlns:x="urn:example:x" id="1">one &amp; two</x:a>"#, #"<b xmlns="urn:example:b"/>"#])
    }

    @Test func aTrackKeepsAtMostItsBoundOfExtensionsAndSaysSo() throws {
        let count = GPXPathInfo.maximumExtensions + 2
        let data = Self.document(extensions: String(repeating: "<x:e/>", count: count))
        var kept = 0
        let summary = try GPXReader().read(data: data, name: "t.gpx") { event in
            if case let .trackEnd(info) = event { kept = info.extensions.count }
        }
        #expect(kept == GPXPathInfo.maximumExtensions)
        #expect(summary.skipped.count == 1 && summary.skipped[0].reason.contains("more than 100000 extension elements"))
    }
}
