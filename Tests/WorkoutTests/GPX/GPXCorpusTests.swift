import Foundation
import Testing
import TestSupport
import Workout

/// The public GPX corpus (`../shared/corpora/gpx` beside the repository: CI has it, a fresh clone
/// does not) read with GPXReader + TrackStatistics and compared with EXPECTED.tsv, the figures
/// gpxpy 1.6.2 computes. The files are read in place, never copied into the project.
///
/// Counts, times and heart rates must match exactly, distances and elevations to the rounding of
/// the TSV, except where we differ from gpxpy on purpose: each such file is listed in
/// `deliberateDifferences` with the reason.
@Suite("GPX corpus conformance")
struct GPXCorpusTests {
    static let folder = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/gpx")
    static let isPresent = FileManager.default.fileExists(atPath: folder.appendingPathComponent("EXPECTED.tsv").path)
    static let rows: [CorpusRow] = isPresent ? CorpusRow.load(folder.appendingPathComponent("EXPECTED.tsv")) : []

    // Skipped, and recorded as skipped, when the corpus folder is absent (a fresh clone): the
    // project's own fixtures (GPXReaderTests) cover the same ground.
    @Test(.enabled(if: isPresent, "the GPX corpus is not at ../shared/corpora/gpx"), arguments: rows)
    func matchesGPXPy(_ row: CorpusRow) throws {
        var expected = row
        var skippedReasons: [String] = []
        if let difference = Self.deliberateDifferences[row.file] {
            difference.adjust(&expected)
            skippedReasons = difference.skipped
        }
        let measured = try CorpusRow.measure(Self.folder.appendingPathComponent(row.file).path, file: row.file)
        #expect(measured.row.counts == expected.counts, "\(row.file): counts")
        #expect(abs(measured.row.haversine - expected.haversine) <= 0.01, "\(row.file): distance \(measured.row.haversine) vs \(expected.haversine)")
        #expect(abs(measured.row.gain - expected.gain) <= 0.01, "\(row.file): gain \(measured.row.gain) vs \(expected.gain)")
        #expect(abs(measured.row.loss - expected.loss) <= 0.01, "\(row.file): loss \(measured.row.loss) vs \(expected.loss)")
        #expect(measured.row.firstTime == expected.firstTime, "\(row.file): first time")
        #expect(measured.row.lastTime == expected.lastTime, "\(row.file): last time")
        #expect(measured.row.heartRates == expected.heartRates, "\(row.file): heart rates")
        #expect(abs((measured.row.heartRateAverage ?? 0) - (expected.heartRateAverage ?? 0)) <= 0.005,
                "\(row.file): mean heart rate")
        #expect(measured.skipped.map(\.reason) == skippedReasons, "\(row.file): skipped")
    }

    struct Difference: Sendable {
        var adjust: @Sendable (inout CorpusRow) -> Void
        var skipped: [String]
    }

    static let deliberateDifferences: [String: Difference] = [
        // gpxpy accepts out-of-range coordinates; we skip such points and report them. Left: the
        // second track point only (so no distance or elevation change), no waypoint.
        "coregpx/wptError.gpx": Difference(
            adjust: { row in
                row.counts = [1, 1, 1, 0, 0, 0]
                row.haversine = 0
                row.loss = 0
                row.firstTime = "2019-05-10T08:19:33+00:00"
            },
            skipped: [
                "latitude 91.38389 is outside -90...90; the point was skipped",
                "longitude 180.87702 is outside -180...180; the point was skipped",
            ]),
        // gpxpy rejects the whole file over a non-standard <fix>; we keep the fix as written and
        // read the file: three points, 50.3 m then 0.0 m then no elevation.
        "georust/with_accuracy.gpx": Difference(
            adjust: { row in
                row.counts = [1, 1, 3, 0, 0, 0]
                row.haversine = 1560.743
                row.gain = 0
                row.loss = 50.3
                row.firstTime = "2017-04-12T17:00:36+00:00"
                row.lastTime = "2017-04-12T17:00:38+00:00"
            },
            skipped: []),
        // gpxpy counts OpenTracks' legacy pause/resume markers (lat 100 and 200) as points, and so
        // measures two trips to the far side of the globe; we skip them. Left: four points 0.001°
        // of longitude apart at latitude 3°: 3 × 111.04 m.
        "opentracks/legacy_gpx_pause_resume.gpx": Difference(
            adjust: { row in
                row.counts = [1, 1, 4, 0, 0, 2]
                row.haversine = 333.128
            },
            skipped: [
                "latitude 100 is an OpenTracks pause marker, not a position; the point was skipped",
                "latitude 200 is an OpenTracks pause marker, not a position; the point was skipped",
            ]),
    ]
}
