#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// A recording read in order, one element at a time, in constant memory whatever its length: how
/// the replays play files (a GPX track of a million points, a week of gpsd log) without loading
/// them. A stream is used by one thread or task at a time: the replay that holds it.
package protocol ReplayStream<Element>: AnyObject {
    associatedtype Element

    /// The next element, or `nil` after the last.
    ///
    /// - Throws: ``ReplayRecording/ReadError`` when the file cannot be read on, naming the line.
    func next() throws(ReplayRecording.ReadError) -> Element?
}

/// An array played as a stream.
final class ArrayStream<Element>: ReplayStream {
    private let elements: [Element]
    private var index = 0

    init(_ elements: [Element]) {
        self.elements = elements
    }

    func next() throws(ReplayRecording.ReadError) -> Element? {
        guard index < elements.count else { return nil }
        defer { index += 1 }
        return elements[index]
    }
}

/// Another stream's elements, each transformed, those transformed to `nil` left out.
final class CompactMappedStream<BaseElement, Element>: ReplayStream {
    private let base: any ReplayStream<BaseElement>
    private let transform: (BaseElement) -> Element?

    init(_ base: any ReplayStream<BaseElement>, _ transform: @escaping (BaseElement) -> Element?) {
        self.base = base
        self.transform = transform
    }

    func next() throws(ReplayRecording.ReadError) -> Element? {
        while let element = try base.next() {
            if let transformed = transform(element) { return transformed }
        }
        return nil
    }
}

extension ReplayStream {
    /// Every element left, in an array: for the APIs that hand a whole recording over.
    func collect() throws(ReplayRecording.ReadError) -> [Element] {
        var elements: [Element] = []
        while let element = try next() { elements.append(element) }
        return elements
    }
}

/// A gpsd JSON log read a line at a time (``GPSDScript/LogParser``).
final class GPSDLogStream: ReplayStream {
    private let reader: LineReader
    private var parser: GPSDScript.LogParser
    private let path: String

    init(path: String, markingSimulated: Bool) throws(ReplayRecording.ReadError) {
        do {
            reader = try LineReader(path: path)
        } catch {
            throw ReplayRecording.ReadError(file: path, reason: "cannot read the file (\(error.reason))")
        }
        self.path = path
        parser = GPSDScript.LogParser(source: path, markingSimulated: markingSimulated)
    }

    func next() throws(ReplayRecording.ReadError) -> GPSDScript.Entry? {
        do {
            while true {
                let outcome: GPSDScript.Entry?? = try reader.next { bytes throws(GPSDScript.ReadError) in
                    try parser.entry(for: bytes, line: reader.lineNumber)
                }
                guard let outcome else { return nil }  // the end of the file
                if let entry = outcome { return entry }
            }
        } catch let error as GPSDScript.ReadError {
            throw ReplayRecording.ReadError(file: error.source, line: error.line, reason: error.reason)
        } catch let error as LineReader.Failure {
            throw ReplayRecording.ReadError(file: path, line: error.line, reason: error.reason)
        } catch {
            throw ReplayRecording.ReadError(file: path, reason: "\(error)")
        }
    }
}

extension ReplayLocationSource.Entry {
    /// The event a gpsd report stands for, as `read` reads it (libgps's reading, as a `GPSDClient`
    /// reads gpsd: ``GPSDReportReading``), or `nil` for a report a location source does not pass
    /// on. A report without a time is received at `offset` after 1970.
    package static func decoding(_ entry: GPSDScript.Entry, with read: GPSDReportReading.Reader) -> Self? {
        let time = GPSDScript.classAndDevice(of: entry.line).time
        let receivedAt = time ?? Date(timeIntervalSince1970: GPSDScript.seconds(entry.offset))
        return read(entry.line, receivedAt).map { Self(offset: entry.offset, event: $0) }
    }
}

extension GPSDScript.Entry {
    /// The TPV a gpsd sends for a replay's fix or no-fix report, on its fix's device
    /// (``GPSDScript/defaultDevice`` when it has none), marked simulated, with the heights and
    /// error estimates gpsd gives for the simulated receiver where the fix has none of its own
    /// (``SimulatedReceiver/default``); `nil` for other events.
    static func report(for entry: ReplayLocationSource.Entry) -> Self? {
        switch entry.event {
        case var .location(location):
            location.isSimulated = true
            let device = location.device ?? GPSDScript.defaultDevice
            return Self(offset: entry.offset, device: device, className: "TPV", line: GPSDReportWriter.tpv(location, device: device, receiver: .default))
        case let .noFix(device, time):
            let device = device ?? GPSDScript.defaultDevice
            return Self(offset: entry.offset, device: device, className: "TPV", line: GPSDReportWriter.noFix(device: device, time: time))
        default:
            return nil
        }
    }
}
