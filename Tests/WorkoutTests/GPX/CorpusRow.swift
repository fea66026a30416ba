import Foundation
import Testing
import Workout

/// One line of the corpus's EXPECTED.tsv, or the same figures measured by GPXReader.
struct CorpusRow: Sendable, CustomTestStringConvertible {
    var file: String
    /// tracks, segments, points, routes, route points, waypoints; nil when gpxpy failed.
    var counts: [Int]?
    var haversine = 0.0
    var gain = 0.0
    var loss = 0.0
    /// As gpxpy prints them: `2018-11-29T01:48:58+00:00`, `...:59.179000+01:15`.
    var firstTime: String?
    var lastTime: String?
    /// count, minimum, maximum.
    var heartRates: [Double] = [0]
    var heartRateAverage: Double?

    var testDescription: String { file }

    static func load(_ url: URL) -> [CorpusRow] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            var row = CorpusRow(file: String(fields[0].dropFirst(2)))
            guard fields.count >= 17, let tracks = Int(fields[1]) else { return row }
            row.counts = [tracks] + fields[2...6].map { Int($0)! }
            row.haversine = Double(fields[7])!
            row.gain = Double(fields[9])!
            row.loss = Double(fields[10])!
            row.firstTime = fields[11].isEmpty ? nil : fields[11]
            row.lastTime = fields[12].isEmpty ? nil : fields[12]
            row.heartRates = [Double(fields[13])!] + (fields[14].isEmpty ? [] : [Double(fields[14])!, Double(fields[15])!])
            row.heartRateAverage = Double(fields[16])
            return row
        }
    }

    /// Reads `path` and measures the same figures over its track points.
    static func measure(_ path: String, file: String) throws -> (row: CorpusRow, skipped: [GPXSkip]) {
        var totals = TrackStatistics()
        let summary = try GPXReader().read(fileAt: path) { event in
            switch event {
            case .segmentStart: totals.startSegment()
            case .trackPoint(let point): totals.add(point)
            default: break
            }
        }
        var row = CorpusRow(file: file)
        row.counts = [summary.tracks, summary.segments, summary.trackPoints, summary.routes, summary.routePoints,
                      summary.waypoints]
        row.haversine = totals.distance
        row.gain = totals.elevationGain
        row.loss = totals.elevationLoss
        row.firstTime = totals.firstTime.map(gpxpyFormat)
        row.lastTime = totals.lastTime.map(gpxpyFormat)
        row.heartRates = [Double(totals.heartRateCount)]
            + (totals.heartRateCount == 0 ? [] : [totals.heartRateMinimum!, totals.heartRateMaximum!])
        row.heartRateAverage = totals.heartRateAverage
        return (row, summary.skipped)
    }

    /// A time as Python's `datetime.isoformat()` writes gpxpy's: local time at the written offset,
    /// microseconds when not zero, the offset as `+hh:mm`.
    static func gpxpyFormat(_ time: GPXTime) -> String {
        let offset = time.utcOffset ?? 0
        // Whole seconds and a fraction from the Date's own count (since 2001), which loses least;
        // Python keeps microseconds and truncates further digits (.2073437 → .207343).
        let sinceReference = time.date.timeIntervalSinceReferenceDate
        let whole = sinceReference.rounded(.down)
        let tenthsOfMicroseconds = Int(((sinceReference - whole) * 10_000_000).rounded())
        let seconds = Int(whole) + 978_307_200 + offset + tenthsOfMicroseconds / 10_000_000
        let micros = tenthsOfMicroseconds % 10_000_000 / 10
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                        from: Date(timeIntervalSince1970: Double(seconds)))
        var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        if micros != 0 { text += String(format: ".%06d", micros) }
        let sign = offset < 0 ? "-" : "+"
        text += String(format: "%@%02d:%02d", sign, abs(offset) / 3600, abs(offset) % 3600 / 60)
        return text
    }
}
