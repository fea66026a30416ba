#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPX
import LocationCore

/// A recording to replay, read from a file of any kind the simulators play: a gpsd JSON log (as
/// `gpspipe -w` or `locate record` writes it), an NMEA 0183 log, or a GPX track. The simulators
/// play it in the form each takes, reading the file as they play, so a recording of any length
/// (a week of gpsd log, a GPX of a million points, a gzip bomb) starts at once and plays in
/// constant memory:
///
/// - ``device(speed:loop:startOffset:clock:)``: an in-process ``ReplayLocationSource``,
/// - ``FakeGPSDServer/init(recording:pace:startPolicy:faults:loop:port:clock:)``: a fake gpsd,
/// - `FakeSerialDevice/play(_:speed:loop:)`: NMEA sentences for real gpsd to read.
///
/// `ReplayRecording(contentsOf:)`, in `Simulators`, opens any of the three, and reads a gpsd
/// log's reports with libgps, as a `GPSDClient` reads gpsd's: the one C library of the
/// simulators. Without it (a program that links no libgps), ``init(gpxOrNMEAContentsOf:)`` opens
/// the other two:
///
/// ```swift
/// let recording = try ReplayRecording(gpxOrNMEAContentsOf: URL(fileURLWithPath: "ride.gpx"))
/// let manager = LocationManager(source: recording.device(speed: 10))
/// ```
///
/// Opening a file reads only its beginning: its format, and that its first events can be read. A
/// part further on that cannot be read ends the replay there, and the player says why (its
/// `readError`). ``readTimeline()``, ``readScript()`` and ``readNMEA()`` read the whole
/// recording into memory, for tests and small files.
public struct ReplayRecording: Sendable {
    /// What kind of file it came from.
    public enum Format: String, Sendable, Hashable {
        case gpsdJSON = "gpsd JSON"
        case nmea = "NMEA"
        case gpx = "GPX"
    }

    /// Why a file could not be read as a recording: naming the file once and, where there is one,
    /// the line (and column).
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file.
        public var file: String
        /// The line, when the reader had reached one.
        public var line: Int?
        /// The column on that line, when the reader says.
        public var column: Int?
        /// What is wrong, without the file's name: "malformed GPX: ...".
        public var reason: String

        /// An error about `file` (at `line` and `column`, if given) for `reason`.
        public init(file: String, line: Int? = nil, column: Int? = nil, reason: String) {
            self.file = file
            self.line = line
            self.column = column
            self.reason = reason
        }

        /// `file:line:column: reason`, as compilers and `xmllint` write them.
        public var description: String {
            switch (line, column) {
            case let (line?, column?): "\(file):\(line):\(column): \(reason)"
            case let (line?, nil): "\(file):\(line): \(reason)"
            default: "\(file): \(reason)"
            }
        }
    }

    /// Where the recording is: a file read as it plays, or arrays in memory.
    private enum Storage: Sendable {
        case file(path: String)
        case memory(timeline: [ReplayLocationSource.Entry], script: GPSDScript, nmea: NMEALog)
    }

    public var format: Format
    private var storage: Storage
    /// How a gpsd JSON log's reports become events: given by whoever opened the file
    /// (`Simulators`, with libgps); `nil` for a file of another format, or a recording in memory.
    private var gpsdReports: GPSDReportReading?

    /// The file it is read from, if it was opened from one.
    public var path: String? {
        if case let .file(path) = storage { path } else { nil }
    }

    /// Opens `url`, a GPX track (plain or gzip-compressed) or an NMEA 0183 log, telling which from
    /// its content, and checks that its first events (a few hundred) can be read; the rest is read
    /// as it plays. A gpsd JSON log is refused: its reports are read with libgps, as a `GPSDClient`
    /// reads gpsd's, by `ReplayRecording(contentsOf:)` in `Simulators`, which opens all three.
    ///
    /// - Throws: ``ReadError`` naming the file (and line) that could not be read: a folder, a gpsd
    ///   JSON log, a file of no format a replay plays, or one whose beginning is not valid.
    public init(gpxOrNMEAContentsOf url: URL) throws(ReadError) {
        try self.init(opening: url, gpsdReports: nil)
    }

    /// Opens `url` as ``init(gpxOrNMEAContentsOf:)`` does, and a gpsd JSON log too when
    /// `gpsdReports` says how to read its reports.
    package init(opening url: URL, gpsdReports: GPSDReportReading?) throws(ReadError) {
        let path = url.path
        let head = try Self.head(of: path)
        if let other = Self.otherFormat(of: head) {
            throw ReadError(file: path, reason: "this is \(other), which is not replayed: a replay plays GPX files, gpsd JSON logs and NMEA logs")
        }
        guard let format = Self.format(of: head) else {
            throw ReadError(file: path, reason: "not a gpsd JSON log, an NMEA log or a GPX file")
        }
        if format == .gpsdJSON, gpsdReports == nil {
            throw ReadError(
                file: path,
                reason: "a gpsd JSON log, whose reports a replay reads with libgps: open it with ReplayRecording(contentsOf:), from Simulators")
        }
        self.format = format
        self.storage = .file(path: path)
        self.gpsdReports = format == .gpsdJSON ? gpsdReports : nil
        // The beginning is checked (a file damaged from the start is refused at once); the rest
        // is read as it plays, so a recording of any length opens in the same time.
        let beginning = try timelineStream()
        var checked = 0
        while checked < Self.entriesCheckedAtOpening, try beginning.next() != nil { checked += 1 }
        guard checked > 0 else {
            switch format {
            case .gpsdJSON: throw ReadError(file: path, reason: "no fix or report to replay")
            case .nmea:
                // Its sentences are NMEA (the format says so) but none gives a position: say which they are.
                let addresses = Self.sentenceAddresses(in: head)
                throw ReadError(file: path, reason: "no sentence with a position to replay (RMC, GGA, GLL, GNS): "
                    + "it holds \(addresses.prefix(5).map { "$" + $0 }.joined(separator: ", "))\(addresses.count > 5 ? "..." : "") only")
            case .gpx: throw ReadError(file: path, reason: "no track, route or waypoint to replay")
            }
        }
    }

    /// How many events ``init(contentsOf:)`` reads to check a file.
    static let entriesCheckedAtOpening = 256

    /// A recording of `timeline`; the script and NMEA are written from it unless given.
    public init(format: Format, timeline: [ReplayLocationSource.Entry], script: GPSDScript? = nil, nmea: NMEALog? = nil) {
        self.format = format
        self.storage = .memory(
            timeline: timeline, script: script ?? GPSDScript(timeline: timeline), nmea: nmea ?? NMEALog(timeline: timeline))
    }

    /// The events in order, with their offsets from the first, read whole.
    ///
    /// - Throws: ``ReadError`` when the file cannot be read to its end.
    public func readTimeline() throws(ReadError) -> [ReplayLocationSource.Entry] {
        if case let .memory(timeline, _, _) = storage { return timeline }
        return try timelineStream().collect()
    }

    /// The reports as a gpsd would send them, read whole: the recorded lines for a gpsd log, else
    /// TPVs written from the timeline.
    ///
    /// - Throws: ``ReadError`` when the file cannot be read to its end.
    public func readScript() throws(ReadError) -> GPSDScript {
        if case let .memory(_, script, _) = storage { return script }
        return GPSDScript(entries: try scriptStream().collect())
    }

    /// The sentences a receiver would write, read whole: the recorded ones for an NMEA log, else
    /// generated from the timeline by ``NMEAEncoder``.
    ///
    /// - Throws: ``ReadError`` when the file cannot be read to its end.
    public func readNMEA() throws(ReadError) -> NMEALog {
        if case let .memory(_, _, nmea) = storage { return nmea }
        return NMEALog(epochs: try nmeaStream().collect())
    }

    /// The events in order, with their offsets from the first: the whole recording read now, or
    /// as much of it as can be read.
    @available(*, deprecated, message: "use readTimeline(), which says when the file cannot be read, or play it with device()")
    public var timeline: [ReplayLocationSource.Entry] {
        (try? readTimeline()) ?? []  // deprecated: readTimeline() says why
    }

    /// The reports as a gpsd would send them, read whole now.
    @available(*, deprecated, message: "use readScript(), which says when the file cannot be read, or FakeGPSDServer(recording:)")
    public var script: GPSDScript {
        (try? readScript()) ?? GPSDScript()  // deprecated: readScript() says why
    }

    /// The sentences a receiver would write, read whole now.
    @available(*, deprecated, message: "use readNMEA(), which says when the file cannot be read, or FakeSerialDevice.play(_:)")
    public var nmea: NMEALog {
        (try? readNMEA()) ?? NMEALog(epochs: [])  // deprecated: readNMEA() says why
    }

    /// How many fixes it holds (reading the whole recording).
    ///
    /// - Throws: ``ReadError`` when the file cannot be read to its end.
    public func countFixes() throws(ReadError) -> Int {
        let stream = try timelineStream()
        var count = 0
        while let entry = try stream.next() {
            if case .location = entry.event { count += 1 }
        }
        return count
    }

    /// How many fixes it holds.
    @available(*, deprecated, message: "use countFixes(), which says when the file cannot be read")
    public var fixCount: Int {
        (try? countFixes()) ?? 0  // deprecated: countFixes() says why
    }

    /// An in-process device playing it, reading the file as it plays; see ``ReplayLocationSource``.
    public func device(
        speed: Double = 1, loop: Bool = false, startOffset: Duration = .zero, clock: some Clock<Duration> = ContinuousClock()
    ) -> ReplayLocationSource {
        let recording = self
        return ReplayLocationSource(
            recording: .stream { () throws(ReadError) in try recording.timelineStream() },
            speed: speed, loop: loop, startOffset: startOffset, reportsEpochsInParts: format == .gpsdJSON, clock: clock)
    }

    // MARK: - Streams

    /// The recording's events, for a ``ReplayLocationSource``.
    package func timelineStream() throws(ReadError) -> any ReplayStream<ReplayLocationSource.Entry> {
        switch storage {
        case let .memory(timeline, _, _):
            return ArrayStream(timeline)
        case let .file(path):
            switch format {
            case .gpsdJSON:
                // Opened only with a reading of its reports (init(opening:gpsdReports:)).
                guard let gpsdReports else { throw ReadError(file: path, reason: "a gpsd JSON log opened without libgps") }
                let read = gpsdReports.makeReader()
                return CompactMappedStream(try GPSDLogStream(path: path, markingSimulated: true)) { entry in
                    ReplayLocationSource.Entry.decoding(entry, with: read)
                }
            case .nmea:
                return try NMEATimelineStream<ReplayLocationSource.Entry>(path: path, device: Self.fileName(path))
            case .gpx:
                return GPXTimelineStream(path: path)
            }
        }
    }

    /// The reports a gpsd sends, for a ``FakeGPSDServer``.
    package func scriptStream() throws(ReadError) -> any ReplayStream<GPSDScript.Entry> {
        switch storage {
        case let .memory(_, script, _):
            return ArrayStream(script.entries)
        case let .file(path) where format == .gpsdJSON:
            return try GPSDLogStream(path: path, markingSimulated: true)
        case let .file(path) where format == .nmea:
            return try NMEATimelineStream<GPSDScript.Entry>(scriptOf: path, device: Self.fileName(path))
        case .file:
            return CompactMappedStream(try timelineStream(), GPSDScript.Entry.report(for:))
        }
    }

    /// The sentences a receiver writes, for a ``FakeSerialDevice``.
    package func nmeaStream() throws(ReadError) -> any ReplayStream<NMEALog.Epoch> {
        switch storage {
        case let .memory(_, _, nmea):
            return ArrayStream(nmea.epochs)
        case let .file(path) where format == .nmea:
            return try NMEAEpochStream(path: path)
        case .file:
            var writer = NMEALog.TimelineWriter()
            return CompactMappedStream(try timelineStream()) { writer.epoch(for: $0) }
        }
    }

    private static func fileName(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

    /// The file's first 64 KiB, or the reason it cannot be read (a folder says so).
    private static func head(of path: String) throws(ReadError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError(file: path, reason: "cannot read the file (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 65_536)
        var count = 0
        while count < head.count {
            let read = head.withUnsafeMutableBytes { bytes in
                Glibc.read(descriptor, bytes.baseAddress! + count, bytes.count - count)
            }
            if read > 0 {
                count += read
            } else if read == 0 {
                break
            } else if errno != EINTR {
                let reason = errno == EISDIR ? "it is a folder, not a recording" : "cannot read the file (\(String(cString: strerror(errno))))"
                throw ReadError(file: path, reason: reason)
            }
        }
        return Array(head.prefix(count))
    }

    /// The addresses of the NMEA sentences in `data` (`GPWPL`, `GPRTE`), each once, in order.
    static func sentenceAddresses(in data: [UInt8]) -> [String] {
        var addresses: [String] = []
        for line in data.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            guard let sentence = NMEASentence(line: String(decoding: line, as: UTF8.self)[...]) else { continue }
            let address = String(sentence.address)
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }

    /// What a file of a kind the simulators do not play is ("a FIT file"), from its beginning: a
    /// FIT file by its header (its size, 12 or 14, then ".FIT" at byte 8), whose bytes may hold a
    /// line that starts like XML or JSON; a TCX file by its root element, which is XML like GPX.
    static func otherFormat(of head: [UInt8]) -> String? {
        if head.count >= 12, head[0] == 12 || head[0] == 14, Array(head[8..<12]) == Array(".FIT".utf8) {
            return "a FIT file (an activity from a device or an app; workout import reads it)"
        }
        let start = head.prefix(4_096)
        func offset(of text: String) -> Int? {
            let pattern = Array(text.utf8)
            guard start.count >= pattern.count else { return nil }
            return (0...(start.count - pattern.count)).first { start[$0..<($0 + pattern.count)].elementsEqual(pattern) }
        }
        if let root = offset(of: "<TrainingCenterDatabase"), offset(of: "<gpx").map({ $0 > root }) ?? true {
            return "a TCX file (an activity from Garmin's tools; workout import reads it)"
        }
        return nil
    }

    /// The format of a file from its first lines that say: `{` a gpsd log, `<` GPX, an NMEA
    /// sentence NMEA; or the gzip magic number, GPX. Blank lines, comments (`#`, as gpsd's
    /// regression logs and gpsfake logs begin) and anything else (a free-text header, a sentence
    /// cut off when the recording began, noise) are passed over, in the first 64 KiB.
    static func format(of data: some Collection<UInt8>) -> Format? {
        if data.starts(with: [0x1F, 0x8B]) { return .gpx }
        var bytes = Array(data.prefix(65_536))[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        for line in bytes.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            switch line.first(where: { $0 != 0x20 && $0 != 0x09 }) {
            case UInt8(ascii: "{"): return .gpsdJSON
            case UInt8(ascii: "<"): return .gpx
            case nil, UInt8(ascii: "#"): continue
            default: if NMEASentence(line: String(decoding: line, as: UTF8.self)[...]) != nil { return .nmea }
            }
        }
        return nil
    }
}

extension GPSDScript {
    /// The fixes and no-fix reports of a replay timeline as TPV reports at its offsets, each on
    /// its fix's device (``defaultDevice`` when it has none), marked simulated.
    public init(timeline: [ReplayLocationSource.Entry]) {
        self.init(entries: timeline.compactMap(Entry.report(for:)))
    }
}
