import Foundation
import LocationFacade

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
    public static func fixes(
        _ locations: [Location],
        interval: Duration = .seconds(1),
        device: String = defaultDevice,
        satellites: SatelliteReport? = nil
    ) -> GPSDScript {
        var script = GPSDScript()
        for (index, location) in locations.enumerated() {
            var location = location
            location.isSimulated = true
            let offset = interval * index
            script.entries.append(Entry(
                offset: offset, device: device, className: "TPV", line: GPSDReportWriter.tpv(location, device: device)))
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
    public init(recordedLog text: String, source: String = "log", markingSimulated: Bool = true) throws {
        var entries: [Entry] = []
        var firstTime: Date?
        var offset = Duration.zero
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard line.hasPrefix("{"), line.hasSuffix("}") else {
                throw ReadError(source: source, line: lineNumber, reason: "not a gpsd JSON report: \(line.prefix(60))")
            }
            let parsed = Self.classAndDevice(of: line)
            guard let className = parsed.className else {
                throw ReadError(source: source, line: lineNumber, reason: "a JSON object without a \"class\"")
            }
            if Self.serverOwnClasses.contains(className) { continue }
            if let time = parsed.time {
                if let firstTime {
                    offset = max(offset, Self.duration(time.timeIntervalSince(firstTime)))
                } else {
                    firstTime = time
                }
            }
            var report = line
            if markingSimulated && className == "TPV" { report = Self.markedSimulated(line) }
            entries.append(Entry(offset: offset, device: parsed.device, className: className, line: report))
        }
        self.init(entries: entries)
    }

    /// Reads a recorded gpsd JSON log from a file; see ``init(recordedLog:source:markingSimulated:)``.
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

    // MARK: - Helpers

    static let serverOwnClasses: Set<String> = ["VERSION", "DEVICES", "DEVICE", "WATCH", "POLL", "ERROR"]

    static func classAndDevice(of line: String) -> (className: String?, device: String?, time: Date?) {
        (stringMember("class", in: line), stringMember("device", in: line), stringMember("time", in: line).flatMap { RFC3339.parse($0)?.date })
    }

    /// The value of the first `"name":"value"` member, without a JSON parser (reports are flat
    /// where these members live).
    static func stringMember(_ name: String, in line: String) -> String? {
        guard let range = line.range(of: "\"\(name)\":\"") else { return nil }
        let rest = line[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// `line` with `"status":8` after the class, unless it has a status already.
    static func markedSimulated(_ line: String) -> String {
        guard !line.contains("\"status\":"), let range = line.range(of: #""class":"TPV""#) else { return line }
        var marked = line
        marked.insert(contentsOf: ",\"status\":\(GPSDReportWriter.simulatedStatus)", at: range.upperBound)
        return marked
    }

    static func duration(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
