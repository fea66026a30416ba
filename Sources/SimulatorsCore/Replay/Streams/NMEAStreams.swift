#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// The sentences of an NMEA log file, read a line at a time: what ``NMEALog/init(text:)`` and
/// ``NMEADecoder/decode(_:device:)`` take from a whole text, for a log of any length. Lines that
/// are not sentences are passed over as they are there.
final class NMEASentenceReader {
    private let reader: LineReader
    private let path: String
    /// The sentences of the line read last (a line may hold several, split by lone CRs).
    private var pending: [NMEASentence] = []
    private var pendingIndex = 0

    init(path: String) throws(ReplayRecording.ReadError) {
        do {
            reader = try LineReader(path: path)
        } catch {
            throw ReplayRecording.ReadError(file: path, reason: "cannot read the file (\(error.reason))")
        }
        self.path = path
    }

    /// The next sentence, or `nil` at the end of the file.
    func next() throws(ReplayRecording.ReadError) -> NMEASentence? {
        while pendingIndex == pending.count {
            let line: String?
            do {
                line = try reader.next { String(decoding: $0, as: UTF8.self) }
            } catch let error as LineReader.Failure {
                throw ReplayRecording.ReadError(file: path, line: error.line, reason: error.reason)
            } catch {
                throw ReplayRecording.ReadError(file: path, reason: "\(error)")
            }
            guard let line else { return nil }
            pending = NMEASentence.lines(of: line).compactMap { NMEASentence(line: $0) }
            pendingIndex = 0
        }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }
}

/// An NMEA log file's epochs as a receiver wrote them, for a ``FakeSerialDevice``.
final class NMEAEpochStream: ReplayStream {
    private let sentences: NMEASentenceReader
    private var builder = NMEALog.EpochBuilder()
    private var ended = false

    init(path: String) throws(ReplayRecording.ReadError) {
        sentences = try NMEASentenceReader(path: path)
    }

    func next() throws(ReplayRecording.ReadError) -> NMEALog.Epoch? {
        guard !ended else { return nil }
        while let sentence = try sentences.next() {
            if let epoch = builder.add(sentence) { return epoch }
        }
        ended = true
        return builder.finish()
    }
}

/// An NMEA log file's reports as gpsd reports them (``NMEADecoder``, `NMEACycleReader`): fixes,
/// no-fix reports and satellite reports for a replay, or gpsd's TPV and SKY lines for a fake gpsd.
final class NMEATimelineStream<Element>: ReplayStream {
    private let sentences: NMEASentenceReader
    private var cycles = NMEACycleReader()
    private var timeline: NMEATimelineBuilder
    private let make: (inout NMEATimelineBuilder, NMEACycleReader.Report) -> Element
    private var ready: [Element] = []
    private var readyIndex = 0
    private var ended = false

    private init(
        path: String, device: String, make: @escaping (inout NMEATimelineBuilder, NMEACycleReader.Report) -> Element
    ) throws(ReplayRecording.ReadError) {
        sentences = try NMEASentenceReader(path: path)
        timeline = NMEATimelineBuilder(device: device)
        self.make = make
    }

    func next() throws(ReplayRecording.ReadError) -> Element? {
        while readyIndex == ready.count {
            guard !ended else { return nil }
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            let reports: [NMEACycleReader.Report]
            if let sentence = try sentences.next() {
                reports = cycles.read(sentence)
            } else {
                ended = true
                reports = cycles.finish()
            }
            for report in reports { ready.append(make(&timeline, report)) }
        }
        defer { readyIndex += 1 }
        return ready[readyIndex]
    }
}

extension NMEATimelineStream where Element == ReplayLocationSource.Entry {
    /// The events of a replay.
    convenience init(path: String, device: String) throws(ReplayRecording.ReadError) {
        try self.init(path: path, device: device) { $0.entry(for: $1) }
    }
}

extension NMEATimelineStream where Element == GPSDScript.Entry {
    /// The lines of a fake gpsd.
    convenience init(scriptOf path: String, device: String) throws(ReplayRecording.ReadError) {
        try self.init(path: path, device: device) { $0.scriptEntry(for: $1) }
    }
}
