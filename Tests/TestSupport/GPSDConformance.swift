import Foundation
import LocationFacade
import Simulators

/// How the fakes' reports compare with real gpsd's for the same NMEA log, field by field: the
/// conformance of the fakes to gpsd (the corpus suite of `locate watch` holds them to it).
///
/// gpsd's side is what `gpspipe -w -r` prints: its JSON reports, with the receiver's sentences
/// gpsd relays before the reports they cause (WATCH `nmea`). gpsd reports an epoch as its
/// sentences come (more than once where it cannot tell where cycles end); the fakes give each
/// epoch once, with everything gpsd said of it last. So gpsd's TPVs are taken an epoch at a time:
/// the TPVs between two changes of the receiver's time of day (more than 10 ms, in the relayed
/// sentences that carry one) are one epoch, its fix the last of them, unless a TPV without a time
/// follows one with a time (the receiver lost its fix, and gpsd the date); before the receiver
/// has sent a time of day, each TPV is an epoch. (The TPVs' own `time` cannot tell epochs apart:
/// gpsd leaves it out until the receiver has given a date, and some never do.)
///
/// The two lists of epochs are lined up by time (the longest common subsequence), and each pair
/// compared field by field; satellite reports (SKY) in order. Two comparisons:
///
/// - ``compare(replay:gpsdOutput:)``: an in-process replay's events with gpsd's reports read as a
///   ``GPSDClient`` reads them (libgps's own parser and our mapping, `GPSDReportDecoder`): a fix's
///   time, position, mode, status, heights above sea level and the ellipsoid, horizontal and
///   vertical accuracy, speed and its accuracy, course and its accuracy, climb; a satellite
///   report's counts, dilutions and satellites.
/// - ``compare(fakeGPSDOutput:gpsdOutput:)``: a fake gpsd's JSON with gpsd's, as written: a TPV's
///   `time`, `mode`, `status`, `lat`, `lon`, `altHAE`, `altMSL`, `alt`, `geoidSep`, `ept`, `epx`,
///   `epy`, `epv`, `eph`, `sep`, `eps`, `epd`, `epc`, `track`, `speed`, `climb`; a SKY's
///   dilutions, `nSat`, `uSat` and satellites. Where gpsd gives no status of DGPS or better, the
///   fake must say "simulated" (8), as it says of everything it serves.
///
/// Times are the same when equal, or when gpsd's is the receiver's moved on by 1024 weeks
/// (``rollover``). Not compared: the device (gpsd's is the pseudo-terminal gpsfake made),
/// gpsd's magnetic variation (`magvar`, `magtrack`, from a model of its own), the DGPS station
/// and age, and the velocities of SkyTraq's `$PSTI` (neither is in a `Location`).
public enum GPSDConformance {
    /// What the comparison of one log found.
    public struct Outcome: Sendable, Hashable {
        /// Epochs in either list (a pair counts once).
        public var fixes = 0
        /// Epochs both give, with every field equal.
        public var agreeingFixes = 0
        /// Satellite reports in either list, and those that are equal.
        public var skies = 0
        public var agreeingSkies = 0
        /// For each field (or `only gpsd`, `only fake` for an epoch the other does not give,
        /// `satellites` for a satellite report), how many epochs differ in it.
        public var differingFields: [String: Int] = [:]
        /// The first differences, as sentences.
        public var problems: [String] = []

        public init() {}
    }

    /// An epoch, reduced to what is compared: its time, and its fields by name (a no-fix report
    /// has its mode alone).
    struct Epoch {
        var time: Date?
        var fields: [String: Double]
    }

    /// Compares a replay's `timeline` with what `gpspipe -w -r` printed for the same log.
    public static func compare(replay timeline: [ReplayLocationSource.Entry], gpsdOutput lines: [String]) -> Outcome {
        let decoder = GPSDReportDecoder()
        let theirs = epochs(ofGPSDOutput: lines) { line in
            switch decoder.event(for: line, receivedAt: Date(timeIntervalSince1970: 0)) {
            case let .location(location): .fix(epoch(location))
            case let .noFix(_, time): .fix(Epoch(time: time, fields: ["mode": 1]))
            case let .satellites(report): .sky(AnyHashable(skyFields(report)))
            default: nil
            }
        }
        var ours: [Epoch] = []
        var ourSkies: [AnyHashable] = []
        for entry in timeline {
            switch entry.event {
            case let .location(location): ours.append(epoch(location))
            case let .noFix(_, time): ours.append(Epoch(time: time, fields: ["mode": 1]))
            case let .satellites(report): ourSkies.append(AnyHashable(skyFields(report)))
            default: break
            }
        }
        var outcome = Outcome()
        compareEpochs(ours, theirs.epochs, into: &outcome)
        compareSkies(ourSkies, theirs.skies, into: &outcome)
        return outcome
    }

    /// Compares what `gpspipe -w` printed for a fake gpsd serving a log with what `gpspipe -w -r`
    /// printed for real gpsd reading it.
    public static func compare(fakeGPSDOutput fake: [String], gpsdOutput lines: [String]) -> Outcome {
        let theirs = epochs(ofGPSDOutput: lines) { jsonReport($0, markedSimulated: false) }
        var ours: [Epoch] = []
        var ourSkies: [AnyHashable] = []
        for line in fake {
            switch jsonReport(line, markedSimulated: true) {
            case let .fix(epoch): ours.append(epoch)
            case let .sky(sky): ourSkies.append(sky)
            case nil: break
            }
        }
        var outcome = Outcome()
        compareEpochs(ours, theirs.epochs, into: &outcome)
        compareSkies(ourSkies, theirs.skies, into: &outcome)
        return outcome
    }

    /// A report: an epoch's fix (or no fix), or a satellite report's fields.
    enum Report {
        case fix(Epoch)
        case sky(AnyHashable)
    }

    /// gpsd's reports in `lines`, epoch by epoch (see ``GPSDConformance``), read by `read`.
    static func epochs(ofGPSDOutput lines: [String], read: (String) -> Report?) -> (epochs: [Epoch], skies: [AnyHashable]) {
        var epochs: [Epoch] = []
        var skies: [AnyHashable] = []
        var timeOfDay: Double?        // the receiver's, from the last relayed sentence with one
        var epochTimeOfDay: Double?   // the one of gpsd's last epoch
        for line in lines {
            if line.hasPrefix("$") {
                if let time = receiverTimeOfDay(in: line) { timeOfDay = time }
                continue
            }
            guard line.hasPrefix("{") else { continue }
            switch read(line) {
            case let .fix(epoch):
                let lostTime = epochs.last?.time != nil && epoch.time == nil  // gpsd forgot the date: a new epoch
                // Times of day less than 10 ms apart are one epoch, as gpsd takes them.
                let sameTimeOfDay = timeOfDay.flatMap { now in epochTimeOfDay.map { abs(now - $0) <= 0.01 } } ?? false
                if !epochs.isEmpty, sameTimeOfDay, !lostTime {
                    epochs[epochs.count - 1] = epoch  // gpsd reporting the same epoch again
                } else {
                    epochs.append(epoch)
                }
                epochTimeOfDay = timeOfDay
            case let .sky(sky): skies.append(sky)
            case nil: break
            }
        }
        return (epochs, skies)
    }

    /// The time of day in a sentence that carries one (GGA, RMC, GNS, GBS, ZDA, GLL; SiRF's
    /// PSRFEPE), in seconds.
    static func receiverTimeOfDay(in sentence: String) -> Double? {
        let body = sentence.dropFirst().prefix { $0 != "*" }
        let fields = body.split(separator: ",", omittingEmptySubsequences: false)
        guard let address = fields.first, address.count == 5 || address == "PSRFEPE" else { return nil }
        let index: Int
        switch address == "PSRFEPE" ? "EPE" : address.suffix(3) {
        case "GGA", "RMC", "GNS", "GBS", "ZDA", "EPE": index = 1
        case "GLL": index = 5
        default: return nil
        }
        guard fields.count > index, fields[index].count >= 6 else { return nil }
        let clock = fields[index]
        let digits = clock.prefix(6).compactMap(\.wholeNumberValue)
        guard digits.count == 6 else { return nil }
        let whole = (digits[0] * 10 + digits[1]) * 3600 + (digits[2] * 10 + digits[3]) * 60 + digits[4] * 10 + digits[5]
        return Double(whole) + (Double("0" + clock.dropFirst(6)) ?? 0)
    }
}
