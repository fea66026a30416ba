import ArgumentParser
import FIT
import Foundation
import LocationFacade
import Workout

/// `gpsbench fit-read FILE`: reads a FIT file with FITReader, each record through FITRecord, and
/// totals its positions with TrackStatistics, for `scripts/bench.d/52-fit-import.py`, which
/// compares it with fitdecode, gpsbabel and `xmllint --stream` on the equivalent GPX.
struct FITReadBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fit-read",
        abstract: "Read a FIT file and total its records; print the time and the totals as JSON.")

    @Argument(help: "The FIT file (plain or gzip-compressed).")
    var file: String

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        var totals = TrackStatistics()
        var (records, heartRates) = (0, 0)
        let summary = try FITReader().read(fileAt: file) { event in
            guard case let .message(message) = event, let record = FITRecord(message) else { return }
            records += 1
            if record.heartRate != nil { heartRates += 1 }
            if let latitude = record.latitude, let longitude = record.longitude, let time = record.time {
                let date = Date(timeIntervalSince1970: time)
                totals.add(Location(latitude: latitude, longitude: longitude, altitude: record.altitude, time: date, receivedAt: date))
            }
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(#"{"seconds":\#(seconds),"records":\#(records),"points":\#(totals.pointCount),"distance":\#(totals.distance),"#
            + #""hr_count":\#(heartRates),"messages":\#(summary.messages),"issues":\#(summary.issues.count)}"#)
    }
}
