#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore

/// What a ``FakeGPSDServer`` sends: gpsd JSON reports, each at an offset from the start.
///
/// Build one in code from locations, or read a log as `gpspipe -w` (or `locate record`) writes it:
///
/// ```swift
/// let script = GPSDScript.fixes(track, interval: .seconds(1))
/// let recorded = try GPSDScript(contentsOf: URL(fileURLWithPath: "fixtures/gpsd/walk.json"))
/// ```
public struct GPSDScript: Sendable, Hashable {
    /// One report and when it is due.
    public struct Entry: Sendable, Hashable {
        /// When the report is due, from the start of the script (at speed 1).
        public var offset: Duration
        /// The device the report is from, if it names one; WATCH with a device filters on it.
        public var device: String?
        /// The report's class, such as `TPV` or `SKY`.
        public var className: String
        /// The report, one JSON object, without a newline.
        public var line: String

        public init(offset: Duration, device: String?, className: String, line: String) {
            self.offset = offset
            self.device = device
            self.className = className
            self.line = line
        }
    }

    /// An error reading a recorded log: which line, and what is wrong with it.
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        public var source: String
        public var line: Int
        public var reason: String
        public var description: String { "\(source):\(line): \(reason)" }

        public init(source: String, line: Int, reason: String) {
            self.source = source
            self.line = line
            self.reason = reason
        }
    }

    /// The device name fakes use when a script does not name one.
    public static let defaultDevice = "simulated0"

    /// The reports, in the order they are sent.
    public var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    /// The devices the script's reports name, in order of first appearance.
    public var devices: [String] {
        var seen = Set<String>()
        return entries.compactMap { entry in
            guard let device = entry.device, seen.insert(device).inserted else { return nil }
            return device
        }
    }

    /// The number of TPV reports.
    public var tpvCount: Int {
        entries.reduce(0) { $0 + ($1.className == "TPV" ? 1 : 0) }
    }

    /// Appends a report due at `offset`.
    public mutating func append(line: String, at offset: Duration) {
        let parsed = Self.classAndDevice(of: line)
        entries.append(Entry(offset: offset, device: parsed.device, className: parsed.className ?? "", line: line))
    }

    /// A script that sends each location as a TPV, one every `interval`, marked simulated
    /// (`"status":8`) unless a location has a status of its own. With `satellites`, a SKY report
    /// follows each TPV.
    ///
    /// With `quirks`, chosen fixes are sent as a misbehaving receiver sends them (without a time or
    /// a speed, misdated, moved, without a position, or not at all), each still due at its index
    /// times `interval`: see ``ReceiverQuirk``.
    ///
    /// ```swift
    /// let script = GPSDScript.fixes(track, quirks: [.withoutTime(fix: 60), .withoutSpeed(fixes: 0...)])
    /// ```
    public static func fixes(
        _ locations: [Location],
        interval: Duration = .seconds(1),
        device: String = defaultDevice,
        satellites: SatelliteReport? = nil,
        quirks: [ReceiverQuirk] = []
    ) -> GPSDScript {
        var script = GPSDScript()
        for (index, location) in locations.enumerated() {
            var location = location
            location.isSimulated = true
            let offset = interval * index
            let line: String
            switch ReceiverQuirk.report(for: location, at: index, applying: quirks) {
            case let .fix(sent):
                location = sent
                line = GPSDReportWriter.tpv(location, device: device)
            case let .noFix(time):
                location.time = time
                line = GPSDReportWriter.noFix(device: device, time: time)
            case .nothing:
                continue
            }
            script.entries.append(Entry(offset: offset, device: device, className: "TPV", line: line))
            if var satellites {
                satellites.time = location.time
                script.entries.append(Entry(
                    offset: offset, device: device, className: "SKY", line: GPSDReportWriter.sky(satellites, device: device)))
            }
        }
        return script
    }

    /// Reads a gpsd JSON log as `gpspipe -w` writes it: one report per line. The pace comes from
    /// the reports' `time` fields (a line without one goes with the line before it; time never runs
    /// backwards). VERSION, DEVICES, DEVICE, WATCH, POLL and ERROR lines are left out: the server
    /// writes its own. TPVs are marked simulated (`"status":8`) when `markingSimulated`, unless they
    /// carry a status.
    ///
    /// - Throws: ``ReadError`` naming the first line that is not a gpsd JSON report.
    public init(recordedLog text: String, source: String = "log", markingSimulated: Bool = true) throws(ReadError) {
        var text = text
        var entries: [Entry] = []
        var parser = LogParser(source: source, markingSimulated: markingSimulated)
        let readError: ReadError? = text.withUTF8 { bytes in
            var lineNumber = 0
            var lineStart = 0
            while lineStart < bytes.count {
                lineNumber += 1
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                defer { lineStart = lineEnd + 1 }
                do throws(ReadError) {
                    if let entry = try parser.entry(for: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), line: lineNumber) {
                        entries.append(entry)
                    }
                } catch {
                    return error
                }
            }
            return nil
        }
        if let readError { throw readError }
        self.init(entries: entries)
    }

    /// Reads a gpsd JSON log a line at a time (``init(recordedLog:source:markingSimulated:)`` for a
    /// whole text; a replay streaming a file feeds it line by line), keeping the pace across lines.
    struct LogParser {
        let source: String
        let markingSimulated: Bool
        private var firstTime: Date?
        private var offset = Duration.zero

        init(source: String, markingSimulated: Bool) {
            self.source = source
            self.markingSimulated = markingSimulated
        }

        /// The script entry for one line of the log, or `nil` for a blank line, a `#` comment or a
        /// report the server writes itself.
        mutating func entry(for raw: UnsafeBufferPointer<UInt8>, line lineNumber: Int) throws(ReadError) -> Entry? {
            var first = 0
            var last = raw.count
            while first < last, GPSDScript.isSpace(raw[first]) { first += 1 }
            while last > first, GPSDScript.isSpace(raw[last - 1]) { last -= 1 }
            if first == last || raw[first] == UInt8(ascii: "#") { return nil }
            let line = UnsafeBufferPointer(rebasing: raw[first..<last])
            guard line.first == UInt8(ascii: "{"), line.last == UInt8(ascii: "}") else {
                let excerpt = JSONScan.excerpt(UnsafeBufferPointer(rebasing: line.prefix(60)), maximum: 60)
                throw ReadError(source: source, line: lineNumber, reason: "not a gpsd JSON report: \(excerpt)")
            }
            let fields = GPSDScript.fields(of: line)
            guard let className = fields.className else {
                throw ReadError(source: source, line: lineNumber, reason: "a JSON object without a \"class\"")
            }
            if GPSDScript.serverOwnClasses.contains(className) { return nil }
            if let time = fields.time {
                if let firstTime {
                    offset = max(offset, GPSDScript.duration(time.timeIntervalSince(firstTime)))
                } else {
                    firstTime = time
                }
            }
            let report = markingSimulated && className == "TPV"
                ? GPSDScript.markedSimulated(line) : String(decoding: line, as: UTF8.self)
            return Entry(offset: offset, device: fields.device, className: className, line: report)
        }
    }

    /// Reads a recorded gpsd JSON log from a file; see ``init(recordedLog:source:markingSimulated:)``.
    ///
    /// - Throws: ``ReadError`` for a bad line, or the error reading the file.
    public init(contentsOf url: URL, markingSimulated: Bool = true) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        try self.init(recordedLog: text, source: url.path, markingSimulated: markingSimulated)
    }

    /// The script with every offset divided by `speed` (2 plays twice as fast).
    public func scaled(by speed: Double) -> GPSDScript {
        precondition(speed > 0, "speed must be positive")
        var copy = self
        for index in copy.entries.indices {
            copy.entries[index].offset = Self.duration(Self.seconds(copy.entries[index].offset) / speed)
        }
        return copy
    }

    /// How long one pass takes when looping: from the first report to the last, plus the usual
    /// gap between reports (the median; one second when there is none).
    public var loopLength: Duration {
        guard let first = entries.first?.offset, let last = entries.last?.offset else { return .zero }
        return last - first + Self.typicalGap(entries.map(\.offset))
    }

    /// `line` with every `"time":"..."` moved on by `seconds`, written with as many fraction digits
    /// as before: a looped report says when it is sent, not when it was first recorded.
    public static func shiftingTimes(in line: String, by seconds: Double) -> String {
        guard seconds != 0 else { return line }
        var result = ""
        var rest = Substring(line)
        while let key = rest.firstRange(of: #""time":""#) {
            result += rest[..<key.upperBound]
            rest = rest[key.upperBound...]
            guard let close = rest.firstIndex(of: "\""), let parsed = RFC3339.parse(rest[..<close]) else { continue }
            let text = rest[..<close]
            let digits = text.firstIndex(of: ".").map { text[text.index(after: $0)...].prefix { $0.isNumber }.count } ?? 0
            result += RFC3339.string(from: parsed.date.addingTimeInterval(seconds), fractionDigits: digits)
            rest = rest[close...]
        }
        return result + rest
    }

    /// The median gap between increasing offsets, or one second.
    package static func typicalGap(_ offsets: [Duration]) -> Duration {
        guard offsets.count > 1 else { return .seconds(1) }
        let gaps = zip(offsets.dropFirst(), offsets).map { $0 - $1 }.filter { $0 > .zero }.sorted()
        return gaps.isEmpty ? .seconds(1) : gaps[gaps.count / 2]
    }

    // MARK: - Helpers

    static let serverOwnClasses: Set<String> = ["VERSION", "DEVICES", "DEVICE", "WATCH", "POLL", "ERROR"]

    package static func classAndDevice(of line: String) -> (className: String?, device: String?, time: Date?) {
        var line = line
        return line.withUTF8 { fields(of: $0) }
    }

    /// A report's class, device and time, read without a JSON parser (they are flat strings).
    static func fields(of line: UnsafeBufferPointer<UInt8>) -> (className: String?, device: String?, time: Date?) {
        func text(_ range: Range<Int>?) -> String? {
            range.map { String(decoding: UnsafeBufferPointer(rebasing: line[$0]), as: UTF8.self) }
        }
        let time = JSONScan.stringMember(named: "time", in: line).flatMap {
            RFC3339.parse(utf8: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[$0]))?.date
        }
        return (
            text(JSONScan.stringMember(named: "class", in: line)),
            text(JSONScan.stringMember(named: "device", in: line)),
            time
        )
    }

    fileprivate static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    /// `line` with `"status":8` after the class, unless it has a status already.
    static func markedSimulated(_ line: String) -> String {
        var line = line
        return line.withUTF8 { markedSimulated($0) }
    }

    static func markedSimulated(_ line: UnsafeBufferPointer<UInt8>) -> String {
        guard !JSONScan.hasMember("status", in: line),
              let className = JSONScan.stringMember(named: "class", in: line),
              String(decoding: UnsafeBufferPointer(rebasing: line[className]), as: UTF8.self) == "TPV"
        else { return String(decoding: line, as: UTF8.self) }
        let insertion = className.upperBound + 1  // after the closing quote
        var bytes = Array(line[..<insertion])
        bytes.append(contentsOf: ",\"status\":\(GPSDReportWriter.simulatedStatus)".utf8)
        bytes.append(contentsOf: line[insertion...])
        return String(decoding: bytes, as: UTF8.self)
    }

    static func duration(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
