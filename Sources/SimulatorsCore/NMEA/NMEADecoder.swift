#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import LocationCore

/// Reads NMEA 0183 logs into fixes, one per reporting cycle, and satellite reports, for the
/// in-process replay device: what a `GPSDClient` reports when real gpsd 3.22 reads the same log
/// (a test holds it to gpsd over gpsd's own regression logs, field by field).
///
/// It reads logs as real tools write them:
///
/// - Comment lines (`#`, as in gpsd's regression logs and gpsfake logs), free text, binary noise
///   and a first sentence cut off mid-line are skipped and counted. So is a sentence whose
///   checksum is wrong; a sentence without a checksum is taken, as gpsd takes it.
/// - Of proprietary sentences (`$P...`), only Garmin's error estimates (`PGRME`).
/// - Any talker: GP, GN, GL, GA, GB, BD, QZ...
/// - Positions from GGA, RMC, GLL and GNS; the mode from those and GSA; speed and course from RMC
///   and VTG; the date from RMC and ZDA; the status from GGA's quality and the FAA modes; the
///   dilutions of precision and the satellites used from GSA, the satellites in view from GSV.
///
/// How sentences make cycles, and cycles fixes, follows gpsd (see `NMEACycleReader`): a cycle
/// starts at a sentence whose time of day differs from the last one's; its sentences merge into
/// one fix; a cycle whose fix is not 2D or 3D is a no-fix report. Fixes before the log's first
/// date (RMC or ZDA) have no `time`, and are paced by their times of day.
///
/// Each fix carries what gpsd's error model adds to it: `horizontalAccuracy` (gpsd's `eph`,
/// HDOP × 19 m), `verticalAccuracy` (`epv`, VDOP × 23 m), `speedAccuracy`, `courseAccuracy`, the
/// height above the ellipsoid, and a speed, course error and climb worked out from the fix before
/// where the receiver gives none; each completed set of GSV sentences is a
/// `LocationEvent.satellites(_:)` report after its cycle's fix. Values are rounded as gpsd
/// writes them in its JSON, so they equal what a client of gpsd reads.
///
/// ```swift
/// let result = NMEADecoder().decode(try String(contentsOf: url, encoding: .isoLatin1))
/// let device = ReplayLocationSource(timeline: result.timeline)
/// ```
public struct NMEADecoder: Sendable {
    /// What a log held.
    public struct Result: Sendable {
        /// Each cycle, in order, with its offset from the first one: a fix or a no-fix report, and
        /// the satellite reports completed in it.
        public var timeline: [ReplayLocationSource.Entry]
        /// Lines that were not NMEA sentences (comments, text, noise, bad checksums).
        public var skippedLines: Int
    }

    /// Which of gpsd's programs it reports as: the daemon, unless a test compares with gpsdecode.
    let reporting: NMEACycleReader.Reporting

    public init() {
        reporting = .daemon
    }

    /// A decoder that reports as `reporting` says (gpsdecode's reports, for the tests that hold
    /// the decoder to it).
    init(reporting: NMEACycleReader.Reporting) {
        self.reporting = reporting
    }

    /// Decodes a whole NMEA log.
    public func decode(_ text: String, device: String? = nil) -> Result {
        var reader = NMEACycleReader(reporting: reporting)
        var timeline = NMEATimelineBuilder(device: device)
        var entries: [ReplayLocationSource.Entry] = []
        var skipped = 0
        for line in NMEASentence.lines(of: text) {
            guard let sentence = NMEASentence(line: line) else {
                if line.utf8.contains(where: { !NMEASentence.isSpace($0) }) { skipped += 1 }
                continue
            }
            for report in reader.read(sentence) { entries.append(timeline.entry(for: report)) }
        }
        for report in reader.finish() { entries.append(timeline.entry(for: report)) }
        return Result(timeline: entries, skippedLines: skipped)
    }

    /// `hhmmss(.ss)` as seconds of the day; `nil` unless it starts with six digits.
    static func timeOfDay(_ field: Substring) -> Double? {
        let digits = field.utf8.prefix(6).compactMap { (48...57).contains($0) ? Double($0 - 48) : nil }
        guard digits.count == 6 else { return nil }
        let seconds = (digits[0] * 10 + digits[1]) * 3600 + (digits[2] * 10 + digits[3]) * 60 + digits[4] * 10 + digits[5]
        let fraction = field.dropFirst(6)
        guard fraction.first == ".", let value = Double("0" + fraction.prefix(while: { $0 == "." || ("0"..."9").contains($0) })) else {
            return seconds
        }
        return seconds + value
    }

    /// An offset of `seconds` into a log, held under a century: a log that claims to run longer
    /// (times of day that go back and forth over midnight) is noise, not a reason to stop.
    static func offset(_ seconds: Double) -> Duration {
        GPSDScript.duration(min(max(seconds, 0), 3e9))
    }
}

/// Turns gpsd's reports of cycles into timeline entries (for an in-process replay) or script
/// entries (for a fake gpsd), paced by their times of day; a satellite report goes at the offset
/// of the cycle before it.
struct NMEATimelineBuilder {
    let device: String?

    private var firstSeconds: Double?
    private var lastSeconds: Double?
    private var days = 0.0
    private var lastOffset: Duration = .zero

    init(device: String?) {
        self.device = device
    }

    /// The replay's entry for a report: a fix, a no-fix report, or a satellite report.
    mutating func entry(for report: NMEACycleReader.Report) -> ReplayLocationSource.Entry {
        switch report {
        case let .fix(fix, timeOfDay):
            let seconds = timeOfDay.map { pace($0) } ?? (firstSeconds ?? 0) + GPSDScript.seconds(lastOffset)
            let time = fix.reportedTime
            guard var location = fix.location(device: device, receivedAt: time ?? Date(timeIntervalSince1970: seconds)) else {
                return .init(offset: lastOffset, event: .noFix(device: device, time: time))
            }
            location.isSimulated = true
            return .init(offset: lastOffset, event: .location(location))
        case let .sky(sky, dilutions):
            return .init(offset: lastOffset, event: .satellites(sky.report(dilutions: dilutions, device: device)))
        }
    }

    /// The report a fake gpsd sends for it, as gpsd writes it: a TPV marked simulated, or a SKY.
    mutating func scriptEntry(for report: NMEACycleReader.Report) -> GPSDScript.Entry {
        let device = device ?? GPSDScript.defaultDevice
        switch report {
        case let .fix(fix, timeOfDay):
            if let timeOfDay { _ = pace(timeOfDay) }
            let line = GPSDReportWriter.tpv(fix, device: device, markingSimulated: true)
            return .init(offset: lastOffset, device: device, className: "TPV", line: line)
        case let .sky(sky, dilutions):
            return .init(offset: lastOffset, device: device, className: "SKY", line: GPSDReportWriter.sky(sky, dilutions: dilutions, device: device))
        }
    }

    /// Moves the pace on to a cycle at `timeOfDay`; returns its seconds from the start of the
    /// log's first day.
    private mutating func pace(_ timeOfDay: Double) -> Double {
        var seconds = days * 86_400 + timeOfDay
        // Back by more than half a day: past midnight. (Less is a receiver's jitter, played at once.)
        if let lastSeconds, seconds < lastSeconds - 43_200 {
            days += 1
            seconds += 86_400
        }
        lastSeconds = seconds
        let first = firstSeconds ?? seconds
        firstSeconds = first
        lastOffset = max(lastOffset, NMEADecoder.offset(seconds - first))
        return seconds
    }
}
