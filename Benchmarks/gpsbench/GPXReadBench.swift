import ArgumentParser
import Foundation
import Workout

/// `gpsbench gpx-read FILE`: reads a GPX file with GPXReader and totals its track with
/// TrackStatistics, for `scripts/bench.d/50-gpx-read.py`, which compares it with
/// `xmllint --stream`, gpxpy and gpsbabel on the same file.
struct GPXReadBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpx-read",
        abstract: "Read a GPX file and total its track points; print the time and the totals as JSON.")

    @Argument(help: "The GPX file (plain or gzip-compressed).")
    var file: String

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        var totals = TrackStatistics()
        let summary = try GPXReader().read(fileAt: file) { event in
            switch event {
            case .segmentStart: totals.startSegment()
            case .trackPoint(let point): totals.add(point)
            default: break
            }
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let first = totals.firstTime.map { String($0.date.timeIntervalSince1970) } ?? "null"
        let last = totals.lastTime.map { String($0.date.timeIntervalSince1970) } ?? "null"
        print(#"{"seconds":\#(seconds),"points":\#(summary.trackPoints),"segments":\#(summary.segments),"#
            + #""distance":\#(totals.distance),"gain":\#(totals.elevationGain),"first":\#(first),"last":\#(last),"#
            + #""hr_count":\#(totals.heartRateCount),"hr_avg":\#(totals.heartRateAverage ?? 0),"#
            + #""skipped":\#(summary.skipped.count)}"#)
    }
}
