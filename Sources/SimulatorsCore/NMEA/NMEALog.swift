#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// NMEA 0183 sentences grouped into epochs (one receiver report each: RMC, GGA, GSA, GSV, VTG...)
/// with their offsets from the first: what a ``FakeSerialDevice`` plays.
///
/// Made from a recorded NMEA log (its pace from the sentences' times of day) or generated from
/// fixes by ``NMEAEncoder``.
public struct NMEALog: Sendable, Hashable {
    /// One epoch: when it is written, and its sentences (each ending in CR LF).
    public struct Epoch: Sendable, Hashable {
        public var offset: Duration
        public var sentences: [String]

        public init(offset: Duration, sentences: [String]) {
            self.offset = offset
            self.sentences = sentences
        }
    }

    public var epochs: [Epoch]

    public init(epochs: [Epoch]) {
        self.epochs = epochs
    }

    /// How long one pass takes: the last epoch's offset plus the usual gap (one second).
    public var duration: Duration {
        (epochs.last?.offset ?? .zero) + .seconds(1)
    }

    /// A recorded log. A sentence with a time of day (RMC, GGA, GLL, GNS, ZDA) that differs from
    /// the epoch's starts a new epoch; sentences without one (GSA, GSV, VTG) join the current
    /// epoch, and those before the first time of day join the first epoch. Lines that are not NMEA
    /// sentences (comments, free text, noise, bad checksums; see ``NMEADecoder``) are left out, and
    /// so is noise before a sentence on its line; sentences without a checksum are kept as they
    /// are. A time of day more than half a day before the last is the next day; a little before
    /// (a receiver's jitter) is played at once.
    public init(text: String) {
        var builder = EpochBuilder()
        var epochs: [Epoch] = []
        for line in NMEASentence.lines(of: text) {
            guard let sentence = NMEASentence(line: line) else { continue }
            if let epoch = builder.add(sentence) { epochs.append(epoch) }
        }
        if let epoch = builder.finish() { epochs.append(epoch) }
        self.epochs = epochs
    }

    /// Groups sentences into epochs as ``init(text:)`` describes, one sentence at a time, so a log
    /// read as it plays is grouped in constant memory.
    struct EpochBuilder {
        private var sentences: [String] = []  // the current epoch's
        private var time: Double?              // its time: seconds from the start of the log's first day
        private var firstTime: Double?
        private var days = 0.0
        private var lastOffset: Duration?

        /// Adds `sentence`; returns the epoch it closed, if it starts a new one.
        mutating func add(_ sentence: NMEASentence) -> Epoch? {
            var closed: Epoch?
            if let seconds = NMEALog.timeOfDay(in: sentence) {
                var sentenceTime = days * 86_400 + seconds
                if let time, sentenceTime < time - 43_200 {
                    days += 1
                    sentenceTime += 86_400
                }
                if let time, sentenceTime != time { closed = close() }
                time = sentenceTime
                firstTime = firstTime ?? sentenceTime
            }
            sentences.append(String(sentence.text) + "\r\n")
            return closed
        }

        /// The last epoch, if it has sentences.
        mutating func finish() -> Epoch? {
            close()
        }

        private mutating func close() -> Epoch? {
            guard !sentences.isEmpty else { return nil }
            let offset = max(NMEADecoder.offset((time ?? 0) - (firstTime ?? 0)), lastOffset ?? .zero)
            defer { sentences = [] }
            lastOffset = offset
            return Epoch(offset: offset, sentences: sentences)
        }
    }

    /// The fixes as a receiver would report them, paced by their times (one second apart where a
    /// fix has none); a fix with `FixMode/noFix` becomes a no-fix epoch. A fix without a speed or
    /// course gets those of its move from the fix before (``NMEAEncoder/movement(of:after:)``).
    public init(fixes: [Location]) {
        let start = fixes.first?.time
        var previous: Location?
        self.epochs = fixes.enumerated().map { index, fix in
            let offset = fix.time.flatMap { time in start.map { GPSDScript.duration(time.timeIntervalSince($0)) } } ?? .seconds(index)
            defer { previous = fix.mode >= .fix2D ? fix : nil }
            let sentences = fix.mode >= .fix2D
                ? NMEAEncoder.epoch(for: fix, after: previous) : NMEAEncoder.noFixEpoch(at: fix.time ?? fix.receivedAt)
            return Epoch(offset: offset, sentences: sentences)
        }
    }

    /// The fixes and no-fix reports of a replay timeline, at its offsets; as ``init(fixes:)`` for
    /// fixes without a speed or course.
    public init(timeline: [ReplayLocationSource.Entry]) {
        var writer = TimelineWriter()
        self.epochs = timeline.compactMap { writer.epoch(for: $0) }
    }

    /// Writes a replay timeline's events as a receiver's epochs, one at a time, remembering the fix
    /// before, whose move gives a fix without a speed or course its own.
    struct TimelineWriter {
        private var previous: Location?

        /// The epoch for a fix or a no-fix report; `nil` for other events.
        mutating func epoch(for entry: ReplayLocationSource.Entry) -> Epoch? {
            switch entry.event {
            case let .location(fix) where fix.mode >= .fix2D:
                defer { previous = fix }
                return Epoch(offset: entry.offset, sentences: NMEAEncoder.epoch(for: fix, after: previous))
            case let .location(fix):
                previous = nil
                return Epoch(offset: entry.offset, sentences: NMEAEncoder.noFixEpoch(at: fix.time ?? fix.receivedAt))
            case let .noFix(_, time?):
                previous = nil
                return Epoch(offset: entry.offset, sentences: NMEAEncoder.noFixEpoch(at: time))
            default:
                return nil
            }
        }
    }

    /// The whole log as text.
    public var text: String {
        epochs.flatMap(\.sentences).joined()
    }

    /// The time of day (seconds) in an RMC, GGA, GLL, GNS or ZDA sentence.
    fileprivate static func timeOfDay(in sentence: NMEASentence) -> Double? {
        switch sentence.type {
        case "RMC", "GGA", "GNS", "ZDA": NMEADecoder.timeOfDay(sentence[1])
        case "GLL": NMEADecoder.timeOfDay(sentence[5])
        default: nil
        }
    }
}
