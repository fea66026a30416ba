#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import LocationFacade

/// Reads NMEA 0183 logs into fixes, one per reporting cycle, for the in-process replay device,
/// giving the fixes gpsd gives for the same log (a test holds it to `gpsdecode` over gpsd's own
/// regression logs).
///
/// It reads logs as real tools write them:
///
/// - Comment lines (`#`, as in gpsd's regression logs and gpsfake logs), free text, binary noise
///   and a first sentence cut off mid-line are skipped and counted. So is a sentence whose
///   checksum is wrong; a sentence without a checksum is taken, as gpsd takes it.
/// - Proprietary sentences (`$P...`) are ignored.
/// - Any talker: GP, GN, GL, GA, GB, BD, QZ...
/// - Positions from GGA, RMC, GLL and GNS; the mode from those and GSA; speed and course from RMC
///   and VTG; the date from RMC and ZDA.
///
/// How sentences make cycles, and cycles fixes, follows gpsd 3.22 (see `NMEACycleReader`): a cycle
/// starts at a sentence whose time of day differs from the last one's; its sentences merge into
/// one fix; a cycle whose fix is not 2D or 3D is a no-fix report. Fixes before the log's first
/// date (RMC or ZDA) have no `time`, and are paced by their times of day. NMEA gives dilutions of
/// precision, not metres: `horizontalAccuracy` stays `nil`.
///
/// ```swift
/// let result = NMEADecoder().decode(try String(contentsOf: url, encoding: .isoLatin1))
/// let device = ReplayLocationSource(timeline: result.timeline)
/// ```
public struct NMEADecoder: Sendable {
    /// What a log held.
    public struct Result: Sendable {
        /// Each cycle, in order, with its offset from the first one: a fix, or a no-fix report.
        public var timeline: [ReplayLocationSource.Entry]
        /// Lines that were not NMEA sentences (comments, text, noise, bad checksums).
        public var skippedLines: Int
    }

    public init() {}

    /// Decodes a whole NMEA log.
    public func decode(_ text: String, device: String? = nil) -> Result {
        var reader = NMEACycleReader()
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
        if let report = reader.finish() { entries.append(timeline.entry(for: report)) }
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

/// Turns cycles into timeline entries, paced by their times of day.
struct NMEATimelineBuilder {
    let device: String?

    private var firstSeconds: Double?
    private var lastSeconds: Double?
    private var days = 0.0
    private var lastOffset: Duration = .zero

    init(device: String?) {
        self.device = device
    }

    /// The entry for a cycle's report.
    mutating func entry(for report: NMEACycleReader.Report) -> ReplayLocationSource.Entry {
        let (fix, timeOfDay) = report
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
        let time = fix.time.map { Date(timeIntervalSince1970: $0) }
        guard fix.mode >= 2, let latitude = fix.latitude, let longitude = fix.longitude else {
            return .init(offset: lastOffset, event: .noFix(device: device, time: time))
        }
        let mode = FixMode(gpsdMode: fix.mode)
        let altitude = mode == .fix3D ? fix.altitude : nil
        let location = Location(
            latitude: latitude, longitude: longitude,
            altitude: altitude,
            ellipsoidalAltitude: altitude.flatMap { altitude in fix.geoidSeparation.map { altitude + $0 } },
            speed: fix.speed, course: fix.course,
            time: time, receivedAt: time ?? Date(timeIntervalSince1970: seconds),
            mode: mode, device: device, isSimulated: true)
        return .init(offset: lastOffset, event: .location(location))
    }
}
