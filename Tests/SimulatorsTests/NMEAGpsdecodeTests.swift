import Foundation
import LocationFacade
import Simulators
@testable import SimulatorsCore
import Testing
import TestSupport

/// gpsd's own NMEA decoder is the reference for ours. For every NMEA log among gpsd's regression
/// logs (recordings of many real receivers, fetched by `scripts/fetch-gpsd-logs`), the fixes our
/// decoder gives (``NMEADecoder``, which a ``ReplayRecording`` of an NMEA log plays) are the fixes
/// `gpsdecode -j` (gpsd-clients) reports: the same time, latitude and longitude (to 1e-6 degrees),
/// the same count, in the same order. A log where we decide not to copy gpsd is listed in
/// ``knownDifferences`` with the reason; a listed log that comes to agree fails too, so the list
/// stays true.
///
/// The decoder reports here as gpsdecode does. A replay reports as gpsd, the daemon, does, which
/// also reports where it cannot tell where a cycle ends (in the first cycle, and after a receiver
/// sends a fix without a time) after every sentence that gives a position or a mode: four of
/// these logs then give other fixes than gpsdecode's. The replay is held to the daemon, field by
/// field, in the corpus suite of `locate watch` (``GPSDConformance``).
///
/// What "the same fixes" means, since gpsd reports differently from a replay:
///
/// - gpsd reports an epoch when the sentence it has learned ends a cycle arrives. Where it cannot
///   tell (cycle-extending sentences such as a depth sounder's `DBT` make every sentence end a
///   cycle; some receivers send the learned ender mid-cycle) it reports the same epoch several
///   times as its sentences arrive. Consecutive reports with the same time are one epoch, and the
///   epoch's fix is its last report, with everything the epoch said. A replay gives each epoch once.
/// - `gpsdecode` does not report the log's first epoch unless it already knows where cycles end
///   (it learns that at the start of the second); gpsd, the daemon, reports it, and so does a
///   replay. Where gpsdecode's fixes are ours without the first, they agree.
/// - gpsd moves NMEA dates before 2017 forward by 1024 weeks (it takes them for a receiver's GPS
///   week rollover, from the leap-second count it was built with). A replay keeps the log's dates;
///   the comparison takes such a gpsd time as the date it moved.
@Suite(
    "NMEA replay against gpsd's decoder over gpsd's regression logs",
    .enabled(if: GPSDecodeCorpus.isAvailable, "gpsd's regression logs are not in .cache (run scripts/fetch-gpsd-logs), or gpsdecode (gpsd-clients) is missing"),
    .disabled(if: ThreadSanitizer.isRunning, "a hundred logs decoded in one thread: ten times slower under TSan, and no concurrency to check"),
    .tags(.corpus, .childProcess), .timeLimit(.minutes(2)))
struct NMEAGpsdecodeTests {
    /// Logs where we give other fixes than gpsd, on purpose, and why.
    static let knownDifferences: [String: String] = [:]

    @Test func everyNMEALogReplaysTheFixesGpsdecodeReports() async throws {
        // Two logs at a time, in tasks: `DispatchQueue.concurrentPerform` ran one per core and
        // blocked the test's own thread while gpsdecode ran, and the run's other tests waited.
        let logs = GPSDecodeCorpus.logs
        var outcomes: [String: GPSDecodeCorpus.Outcome] = [:]
        await withTaskGroup(of: (String, GPSDecodeCorpus.Outcome).self) { group in
            var next = logs.makeIterator()
            for _ in 0..<2 {
                guard let log = next.next() else { break }
                group.addTask { (log.lastPathComponent, await GPSDecodeCorpus.compare(log)) }
            }
            for await (name, outcome) in group {
                outcomes[name] = outcome
                if let log = next.next() {
                    group.addTask { (log.lastPathComponent, await GPSDecodeCorpus.compare(log)) }
                }
            }
        }
        let nmea = outcomes.filter { if case .notNMEA = $0.value { false } else { true } }
        var agreeing: [String] = []
        var fixes = 0
        var problems: [String] = []
        for (name, outcome) in nmea.sorted(by: { $0.key < $1.key }) {
            let known = Self.knownDifferences[name]
            switch outcome {
            case let .agrees(count):
                agreeing.append(name)
                fixes += count
                if let known { problems.append("\(name) now agrees with gpsdecode (\(count) fixes): take it off knownDifferences (\"\(known)\")") }
            case let .differs(description):
                if known == nil { problems.append("\(name): \(description)") }
            case let .failed(reason):
                problems.append("\(name): \(reason)")
            case .notNMEA:
                break
            }
        }
        for name in Self.knownDifferences.keys where nmea[name] == nil {
            problems.append("\(name) is in knownDifferences but is not an NMEA log of the corpus")
        }
        print("NMEA logs: \(nmea.count) of \(logs.count); \(agreeing.count) agree with gpsdecode (\(fixes) fixes), \(Self.knownDifferences.count) differ for the reasons listed")
        #expect(nmea.count >= 90, "gpsd 3.22 has 100 NMEA logs")
        #expect(fixes >= 2000, "gpsd 3.22's NMEA logs hold 2,086 fixes, an epoch each")
        #expect(problems.isEmpty, "\(problems.count) of \(nmea.count) NMEA logs disagree with gpsdecode:\n\(problems.joined(separator: "\n"))")
    }
}

/// Our own small NMEA fixtures (comment headers, no checksums, every talker, GNS, GLL, ZDA...)
/// replay as gpsd decodes them too, as ``NMEAGpsdecodeTests`` compares them.
@Suite("NMEA fixtures against gpsd's decoder", .enabled(if: Repository.hasProgram("gpsdecode"), "needs gpsdecode (gpsd-clients)"))
struct NMEAFixturesGpsdecodeTests {
    @Test(arguments: try FileManager.default.contentsOfDirectory(atPath: Repository.fixture("nmea").path).filter { $0.hasSuffix(".nmea") }.sorted())
    func ourFixtureReplaysTheFixesGpsdecodeReports(_ name: String) async {
        switch await GPSDecodeCorpus.compare(Repository.fixture("nmea/\(name)")) {
        case let .agrees(count): #expect(count > 0)
        case let .differs(description): Issue.record("\(name): \(description)")
        case let .failed(reason): Issue.record("\(name): \(reason)")
        case .notNMEA: Issue.record("gpsd does not read \(name) as NMEA")
        }
    }
}

/// gpsd's regression logs and what `gpsdecode` makes of them.
enum GPSDecodeCorpus {
    static let logs = GPSDRegressionLogs.logs

    static var isAvailable: Bool {
        !logs.isEmpty && Repository.hasProgram("gpsdecode")
    }

    enum Outcome: Sendable {
        case notNMEA
        case agrees(Int)
        case differs(String)
        case failed(String)
    }

    /// A fix, reduced to what the comparison checks.
    struct Fix: CustomStringConvertible {
        var time: Date?
        var latitude: Double
        var longitude: Double

        var description: String {
            "\(time.map { RFC3339.string(from: $0) } ?? "(no time)") \(TextFormat.degrees(latitude)), \(TextFormat.degrees(longitude))"
        }
    }

    static func compare(_ log: URL) async -> Outcome {
        let decoded: (drivers: Set<String>, reports: [[String: Any]])
        do {
            decoded = try await GPSDRegressionLogs.gpsdecode(log)
        } catch {
            return .failed("gpsdecode failed: \(error)")
        }
        guard GPSDRegressionLogs.isNMEA(drivers: decoded.drivers) else { return .notNMEA }
        let theirs = fixes(inReports: decoded.reports)
        let timeline: [ReplayLocationSource.Entry]
        do {
            _ = try ReplayRecording(contentsOf: log)  // a replay takes it for an NMEA log
            timeline = NMEADecoder(reporting: .gpsdecode).decode(try String(contentsOf: log, encoding: .isoLatin1)).timeline
        } catch {
            return theirs.isEmpty ? .agrees(0) : .failed("a replay cannot read it (\(error)); gpsdecode reports \(theirs.count) fixes")
        }
        let ours = timeline.compactMap { entry -> Fix? in
            guard case let .location(location) = entry.event else { return nil }
            return Fix(time: location.time, latitude: location.latitude, longitude: location.longitude)
        }
        let problems = differences(ours, theirs)
        if problems.isEmpty || differences(Array(ours.dropFirst()), theirs).isEmpty { return .agrees(theirs.count) }
        return .differs(problems.joined(separator: "; "))
    }

    /// gpsd's fixes: the last report of each epoch (consecutive reports of the same time; each
    /// report without a time is one), where it has mode 2 or 3 and a position.
    static func fixes(inReports reports: [[String: Any]]) -> [Fix] {
        var epochs: [[String: Any]] = []
        for report in reports where report["class"] as? String == "TPV" {
            if let last = epochs.last, let time = report["time"] as? String, last["time"] as? String == time {
                epochs[epochs.count - 1] = report
            } else {
                epochs.append(report)
            }
        }
        return epochs.compactMap { report in
            guard let mode = report["mode"] as? Int, mode >= 2,
                  let latitude = (report["lat"] as? NSNumber)?.doubleValue,
                  let longitude = (report["lon"] as? NSNumber)?.doubleValue else { return nil }
            return Fix(time: (report["time"] as? String).flatMap { RFC3339.parse($0)?.date }, latitude: latitude, longitude: longitude)
        }
    }

    /// 1024 weeks: how far gpsd moves an NMEA date before 2017.
    static let rolloverGuess: TimeInterval = 1024 * 7 * 86_400
    static let startOf2017 = Date(timeIntervalSince1970: 1_483_228_800)

    static func sameTime(_ ours: Date?, _ theirs: Date?) -> Bool {
        guard let ours, let theirs else { return ours == nil && theirs == nil }
        let moved = ours < startOf2017 ? ours + rolloverGuess : ours
        return abs(moved.timeIntervalSince(theirs)) < 0.0005 || abs(ours.timeIntervalSince(theirs)) < 0.0005
    }

    static func same(_ ours: Fix, _ theirs: Fix) -> Bool {
        sameTime(ours.time, theirs.time) && abs(ours.latitude - theirs.latitude) <= 1e-6 && abs(ours.longitude - theirs.longitude) <= 1e-6
    }

    /// How `ours` differs from `theirs`, as short sentences; empty when they are the same fixes.
    static func differences(_ ours: [Fix], _ theirs: [Fix]) -> [String] {
        var problems: [String] = []
        if ours.count != theirs.count {
            problems.append("we replay \(ours.count) fixes, gpsdecode reports \(theirs.count)")
        }
        if let index = zip(ours, theirs).enumerated().first(where: { !same($0.element.0, $0.element.1) })?.offset {
            problems.append("fix \(index) is \(ours[index]), gpsdecode's is \(theirs[index])")
        }
        let onlyOurs = ours.filter { fix in !theirs.contains { same(fix, $0) } }
        let onlyTheirs = theirs.filter { fix in !ours.contains { same($0, fix) } }
        if !onlyOurs.isEmpty { problems.append("\(onlyOurs.count) fixes only we give (first \(onlyOurs[0]))") }
        if !onlyTheirs.isEmpty { problems.append("\(onlyTheirs.count) fixes only gpsdecode gives (first \(onlyTheirs[0]))") }
        return problems
    }
}

private enum TextFormat {
    static func degrees(_ value: Double) -> String {
        String(format: "%.7f", value)
    }
}
