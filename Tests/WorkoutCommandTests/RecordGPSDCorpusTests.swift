import Foundation
import GPSCore
import LocationFacade
import Simulators
import Testing
import TestSupport
import Workout

/// Integration tier: `workout record` against real gpsd, replaying gpsd's own regression logs of
/// real receivers (``GPSDRegressionLogs``). Every NMEA log among them (the logs gpsd's decoder
/// reads with its NMEA 0183 driver, as ``GPSDRegressionLogs/isNMEA(drivers:)`` says: 100 of the 154
/// in gpsd 3.22) is played once by gpsfake, to one gpsd watched by two clients: `gpspipe -w`, the
/// reference, and `workout record 127.0.0.1:PORT --json`. The binary protocols are left to the
/// corpus suite of `locate watch` (`GPSDCorpusTests`): `workout record` reads gpsd's reports as
/// `locate` does, whatever the receiver spoke.
///
/// What a user would check: the recording exits 0 and saves, as route points, every fix gpsd
/// reported (a TPV of mode 2 or 3 with a position) with a time, each at gpsd's time and position,
/// and its `input` counts say what it left out and why. Where the saved points differ from
/// gpsd's fixes with a time, it is by the session's admission rules (``InputIssue``), applied
/// here to gpspipe's output by ``ExpectedRecording``, on purpose:
///
/// - gpsd reports an epoch again as more of its sentences come: the reports of one time are one
///   fix, the later ones merged into the first (`fix_same_time`), what they say winning
///   (bundg_zeus_9.log, an instrument multiplexer where nearly every sentence ends a cycle, keeps
///   148 points of 2,484 reports);
/// - a fix whose time is before the fix before it is dropped (`fix_not_after_last`): some
///   receivers step back in time (humminbird-M37.log from 19:41:24 to 19:41:11);
/// - a fix dated far ahead of the one after it, which goes back to the time line, is the odd one
///   out (`implausible_time`): bt451.log is two recordings spliced out of order, where gpsd dates
///   the first fix of the second a day late;
/// - a fix without a time before the first timed one is dropped (`fix_without_time_before_first`):
///   a receiver reports a position before it knows the date (telit-he910.log, three times); one
///   after it is kept (`fix_without_time`), placed by when it came, and adds to the count;
/// - a time a multiple of 1024 weeks off the recording's is corrected (`week_rollover`: in
///   garmin17n.log gpsd moves the 2005 date forward until the receiver tells it the leap
///   seconds), one more than a day ahead of it dropped (`implausible_time`).
///
/// A log where gpsd reports no fix with a time must end with 75 and save nothing, as the command
/// says: 11 of them, three with fixes without a time only (sounder.log has 121 positions and never
/// a date). gpsd must have read every log (a DEVICE with its driver): a replay where gpsd read
/// nothing would agree with any recording.
///
/// How the test knows when to act, without sleeping: gpsd runs with `-D 2`, and its log says when
/// both clients are watching (``GPSFake/waitForWatchers(_:)``); only then is the log released.
/// gpsfake exits once the log has played and gpsd is stopped. `workout record` keeps recording
/// through a lost gpsd, reconnecting after 250 ms: a fake gpsd on the same port sees it come back,
/// which it does only after it has read to the end of what gpsd sent, and then SIGINT ends it.
///
/// gpsfake plays a sentence every 2 ms, as in the corpus suite: both clients watch the one gpsd,
/// so the pace does not change what is compared (only by how much a fix without a time is placed
/// after the fix before it), and gpsfake's usual 50 ms would take 21 minutes for the 25,000
/// sentences. Five logs play at once: a replay mostly waits (on gpsfake's pace, on its processes
/// starting and stopping), and with two at once the suite took 118 s alone for 41 s of CPU, the
/// last to end of the parallel stage; with five it takes 52 s alone.
@Suite(
    "workout record against real gpsd replaying real receivers",
    .serialized,
    .enabled(if: RecordCorpus.isAvailable, "gpsd's regression logs are not in .cache (run scripts/fetch-gpsd-logs), or gpsd, gpsd-clients or python3-gps is missing"),
    .timeLimit(.minutes(6)))
struct RecordGPSDCorpusTests {
    /// The Telit HE910 reports three positions before it knows the date, then steps back 0.3 s:
    /// the recording ends well and leaves out exactly those four.
    @Test func aReceiverThatReportsPositionsBeforeTheDateIsRecorded() async throws {
        let log = GPSDRegressionLogs.folder.appendingPathComponent("telit-he910.log")
        try #require(FileManager.default.fileExists(atPath: log.path), "telit-he910.log is not among gpsd's logs in \(GPSDRegressionLogs.folder.path)")
        let replay = try await RecordCorpus.record(log)
        let expected = ExpectedRecording(gpsdReported: replay.reference)
        #expect(replay.status == 0, "\(replay.errors)")
        #expect(replay.reference.filter { $0.time == nil }.count == 3, "gpsd's fixes without a time")
        #expect(expected.counts["fix_without_time_before_first"] == 3)
        #expect(expected.counts["fix_not_after_last"] == 1)
        let problems = replay.problems(against: expected)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func everyNMEALogIsSavedAsGpsdReportedIt() async throws {
        let started = ContinuousClock.now
        let logs = await RecordCorpus.nmeaLogs()
        #expect(logs.count >= 90, "gpsd 3.22 has 100 NMEA logs; found \(logs.count)")
        let replays = await RecordCorpus.recordAll(logs, atOnce: 5)

        var failing: [String] = [], withoutFix: [String] = []
        var recorded = 0, saved = 0, timedByGpsd = 0
        for (log, result) in replays.sorted(by: { $0.key < $1.key }) {
            let replay: RecordCorpus.Replay
            switch result {
            case let .success(success): replay = success
            case let .failure(error):
                failing.append("\(log): \(error)")
                continue
            }
            let expected = ExpectedRecording(gpsdReported: replay.reference)
            let problems = replay.problems(against: expected)
            if !problems.isEmpty {
                failing.append("\(log): \(problems.joined(separator: "; "))\n    \(replay.summary(expected))")
            }
            if expected.points.isEmpty { withoutFix.append(log) } else { recorded += 1 }
            saved += replay.stored.count
            timedByGpsd += replay.reference.filter { $0.time != nil }.count
        }
        print("workout record over gpsd's NMEA logs: \(recorded) recorded, \(failing.count) failing; \(saved) points saved of "
            + "\(timedByGpsd) fixes gpsd reported with a time, in \(ContinuousClock.now - started); "
            + "\(withoutFix.count) without a fix to save: \(withoutFix.joined(separator: " "))")
        #expect(recorded >= 85, "gpsd 3.22 reports fixes with a time for 89 of its 100 NMEA logs")
        #expect(failing.isEmpty, "\(failing.count) of \(replays.count) NMEA logs were not recorded as gpsd reported them:\n\(failing.joined(separator: "\n"))")
    }
}

/// Recording gpsd's regression logs with `workout record`.
enum RecordCorpus {
    /// gpsfake's pause between sentences.
    static let cycle = Duration.milliseconds(2)

    static var isAvailable: Bool {
        !GPSDRegressionLogs.logs.isEmpty && GPSFake.isAvailable && Repository.hasProgram("gpspipe")
            && Repository.hasProgram("gpsdecode")
    }

    /// The NMEA logs, as gpsd's decoder reads them (a log it cannot decode is left out).
    static func nmeaLogs() async -> [URL] {
        var logs: [URL] = []
        for log in GPSDRegressionLogs.logs {
            if let decoded = try? await GPSDRegressionLogs.gpsdecode(log), GPSDRegressionLogs.isNMEA(drivers: decoded.drivers) {
                logs.append(log)
            }
        }
        return logs
    }

    /// What one replay gave: gpspipe's fixes, and how `workout record` ended and what it saved.
    struct Replay: Sendable {
        var log: String
        /// gpsd's fixes, as `gpspipe -w` printed them.
        var reference: [ReferenceFix]
        /// The drivers gpsd said it read the log with (its DEVICE reports).
        var drivers: Set<String>
        var status: Int32
        var output: [String]
        var errors: [String]
        /// The saved workout's route, read back from the store.
        var stored: [RoutePoint]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Records every log in `logs`, `atOnce` at a time: each runs gpsfake, gpsd, gpspipe and
    /// `workout record`, and more at once starve the machine.
    static func recordAll(_ logs: [URL], atOnce: Int) async -> [String: Result<Replay, Failure>] {
        await withTaskGroup(of: (String, Result<Replay, Failure>).self) { group in
            var pending = logs[...]
            func next() {
                guard let log = pending.popFirst() else { return }
                group.addTask {
                    do {
                        return (log.lastPathComponent, .success(try await record(log)))
                    } catch {
                        return (log.lastPathComponent, .failure(Failure(description: "\(error)")))
                    }
                }
            }
            for _ in 0..<atOnce { next() }
            var results: [String: Result<Replay, Failure>] = [:]
            while let (log, result) = await group.next() {
                results[log] = result
                next()
            }
            return results
        }
    }

    /// Plays `log` once to gpsd watched by `gpspipe -w` and `workout record`, and ends the
    /// recording with SIGINT once it has read everything gpsd sent.
    static func record(_ log: URL) async throws -> Replay {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("record-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // Under load gpsd 3.22 now and then resets a client that connects while it is still
        // setting up (see GPSDCorpusTests); before the log is released nothing is lost, so such
        // a start is tried again with a fresh gpsfake and store.
        var failures: [String] = []
        for attempt in 1...3 {
            let store = folder.appendingPathComponent("workouts-\(attempt).sqlite").path
            let fake = try await GPSFake(log: log, cycle: cycle, logsClients: true)
            defer { fake.stop() }
            let pipe = try ChildProcess("gpspipe", ["-w", "127.0.0.1:\(fake.port)"])
            defer { pipe.terminate() }
            let recorder = try ChildProcess(
                Repository.builtExecutable("workout").path,
                ["record", "127.0.0.1:\(fake.port)", "--store", store, "--activity", "walking", "--json"])
            defer { recorder.terminate() }
            if let failure = await waitFor("both clients watching", unlessEnded: [pipe, recorder], { await fake.waitForWatchers(2) }) {
                failures.append(failure)
                continue
            }
            fake.release()
            _ = await fake.waitUntilExit()  // the log has played and gpsd is stopped
            // The stand-in listens at once, before gpspipe is waited for: the recorder tries again
            // 250 ms after gpsd has gone.
            let standIn = FakeGPSDServer(script: GPSDScript(), startPolicy: .manually, port: fake.port)
            try standIn.start()
            defer { standIn.shutdown() }
            _ = await pipe.waitUntilExit()  // gpspipe has printed everything gpsd sent

            if let failure = await waitFor("workout record reconnecting", unlessEnded: [recorder], {
                await standIn.waitForWatchers(1)
                return standIn.status.watchers >= 1
            }) {
                // A recording that has had no fix ends when gpsd cannot be reached (69), as it
                // does at its start: on a loaded machine its first try came before the stand-in
                // listened. What gpsd sent was all read; the replay is tried again.
                if recorder.exitStatus == 69, ReferenceFix.fixes(inGPSPipeOutput: pipe.lines()).isEmpty {
                    failures.append(failure)
                    continue
                }
                throw Failure(description: "\(failure); it wrote: \(recorder.lines(.error).suffix(5))")
            }
            recorder.send(signal: SIGINT)
            let status = await recorder.waitUntilExit()
            let output = recorder.lines(.output)
            var stored: [RoutePoint] = []
            if status == 0, let line = output.first,
               let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let id = (object["id"] as? String).flatMap(UUID.init(uuidString:)) {
                for try await batch in try WorkoutStore(path: store).routePoints(of: id) { stored += batch }
            }
            let reports = pipe.lines().compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return Replay(
                log: log.lastPathComponent, reference: ReferenceFix.fixes(inGPSPipeOutput: pipe.lines()),
                drivers: Set(reports.filter { $0["class"] as? String == "DEVICE" }.compactMap { $0["driver"] as? String }),
                status: status, output: output, errors: recorder.lines(.error), stored: stored)
        }
        throw Failure(description: "no run of the 3 got both clients watching and the recorder to its end: \(failures)")
    }

    /// Waits until `event` returns true; otherwise says why not: it returned false, one of
    /// `processes` ended first, or `limit` passed (a bound on a wait that should take a second,
    /// not a way of waiting).
    static func waitFor(
        _ what: String, unlessEnded processes: [ChildProcess], within limit: Duration = .seconds(60),
        _ event: @escaping @Sendable () async -> Bool
    ) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask { await event() ? nil : "\(what) never happened" }
            for process in processes {
                group.addTask {
                    let status = await process.waitUntilExit()
                    return "\(process.commandLine) ended (\(status)) before \(what): \(process.lines(.error).suffix(3))"
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return "no \(what) within \(limit)"
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension RecordCorpus.Replay {
    /// The saved workout as `--json` printed it.
    var object: [String: Any]? {
        output.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Its `input` counts.
    var input: [String: Int] {
        (object?["input"] as? [String: Any])?.compactMapValues { $0 as? Int } ?? [:]
    }

    /// How the recording differs from what it should have done with gpsd's fixes, as sentences;
    /// empty when it did just that.
    func problems(against expected: ExpectedRecording) -> [String] {
        guard !drivers.isEmpty else { return ["gpsd never read the log (gpspipe saw no DEVICE with a driver): the replay shows nothing"] }
        guard !expected.points.isEmpty else {
            var problems: [String] = []
            if status != 75 { problems.append("gpsd reported no fix to keep, yet workout record exited \(status), not 75: \(errors.suffix(5))") }
            if object?["saved"] as? Bool != false { problems.append("it printed \(output.prefix(1)), not an object saying nothing was saved") }
            return problems
        }
        guard status == 0 else { return ["workout record exited \(status): \(errors.suffix(8))"] }
        guard let object else { return ["its output is not a JSON object: \(output.prefix(2))"] }
        var problems: [String] = []
        if object["points"] as? Int != expected.points.count {
            problems.append("it says it saved \(object["points"] ?? "nothing") points; gpsd's fixes make \(expected.points.count)")
        }
        if input != expected.counts {
            problems.append("its input counts are \(input.sorted { $0.key < $1.key }); by the rules, gpsd's fixes make \(expected.counts.sorted { $0.key < $1.key })")
        }
        if object["malformed_lines"] as? Int != 0 { problems.append("malformed_lines is \(object["malformed_lines"] ?? "missing")") }
        if (object["store_failures"] as? [Any])?.isEmpty != true { problems.append("store_failures is \(object["store_failures"] ?? "missing")") }
        if stored.count != expected.points.count {
            problems.append("the store holds \(stored.count) points; gpsd's fixes make \(expected.points.count)")
        }
        for (index, (point, wanted)) in zip(stored, expected.points).enumerated() {
            let fix = wanted.fix
            let time = point.location.time?.timeIntervalSince1970 ?? .nan
            let samePlace = abs(point.location.latitude - (fix.fields["lat"] ?? .nan)) < 1e-9
                && abs(point.location.longitude - (fix.fields["lon"] ?? .nan)) < 1e-9
            // A fix gpsd sent without a time is placed by when it arrived: just after the one before.
            let sameTime = wanted.isPlaced ? time > wanted.time && time < wanted.time + 1 : abs(time - wanted.time) < 0.0005
            if !samePlace || !sameTime {
                problems.append("point \(index) is at \(point.location.time.map { RFC3339.string(from: $0) } ?? "no time") "
                    + "\(point.location.latitude), \(point.location.longitude); gpsd's fix is \(fix)")
                break
            }
        }
        return problems
    }

    /// The figures of a recording, for a failure's message.
    func summary(_ expected: ExpectedRecording) -> String {
        let timed = reference.filter { $0.time != nil }.count
        return "gpspipe: \(reference.count) fixes, \(timed) with a time; expected \(expected.points.count) points "
            + "\(expected.counts.sorted { $0.key < $1.key }); workout record: exit \(status), points \(object?["points"] ?? "none"), "
            + "input \(input.sorted { $0.key < $1.key }), stderr \(errors.suffix(8))"
    }
}

/// What a session should make of gpsd's fixes: ``InputIssue``'s rules for fixes, as
/// `FixAdmission` applies them, over the fixes as gpspipe printed them. A fix's arrival, which
/// only places a fix without a time, is taken to be just after the fix before it: gpsfake plays
/// a sentence every few milliseconds.
struct ExpectedRecording {
    struct Point {
        var fix: ReferenceFix
        /// Its time on the session's time line (seconds since 1970); for a placed fix, the time
        /// of the fix before it, which it follows by its arrival.
        var time: Double
        /// Whether gpsd gave it no time and the session placed it.
        var isPlaced: Bool
    }

    /// The fixes the session keeps, in order.
    private(set) var points: [Point] = []
    /// How many fixes met each rule, by `InputIssue` raw value (only those met).
    private(set) var counts: [String: Int] = [:]

    init(gpsdReported fixes: [ReferenceFix], activity: WorkoutActivityType = .walking, now: Date = Date()) {
        let rules = FixRules.defaults(for: activity)
        let day = 86_400.0, rollover = 1024 * 7 * day
        var lastAccurate: (time: Double, latitude: Double, longitude: Double, accuracy: Double?)?
        // The fix admission holds until the next fix of another time shows it complete; a report
        // of the same time is merged into it (its position and accuracy the later report's).
        var held: Point?
        var floor: Double?
        func take(_ point: Point) {
            if point.isPlaced { note(.fixWithoutTime) }
            let latitude = point.fix.fields["lat"] ?? .nan, longitude = point.fix.fields["lon"] ?? .nan
            let accuracy = point.fix.fields["eph"] ?? heldAccuracy
            let accurate = accuracy.map { $0 <= rules.maximumHorizontalAccuracy } ?? true
            if accurate, let reference = lastAccurate {
                let margin = max(FixRules.jumpMargin, 2 * max(reference.accuracy ?? 0, accuracy ?? 0))
                let distance = Geodesy.distance(reference.latitude, reference.longitude, latitude, longitude)
                if distance > rules.maximumSpeed * (point.time - reference.time) + margin { note(.jump) }
            }
            if accurate { lastAccurate = (point.time, latitude, longitude, accuracy) } else { note(.inaccurate) }
            points.append(point)
            floor = point.time
        }
        var heldAccuracy: Double?
        for fix in fixes {
            let latitude = fix.fields["lat"] ?? .nan, longitude = fix.fields["lon"] ?? .nan
            guard Geodesy.isValid(latitude: latitude, longitude: longitude) else {
                note(.invalidFix)
                continue
            }
            let last = held?.time ?? floor
            var time: Double
            if let stated = fix.time?.timeIntervalSince1970 {
                time = stated
                // Moved by whole rollovers to within a day of the time line, or else of the clock.
                let corrected = [last, now.timeIntervalSince1970].compactMap { $0 }.lazy.compactMap { reference -> Double? in
                    let periods = ((reference - stated) / rollover).rounded()
                    guard periods != 0, abs(periods) <= 4, abs(stated + periods * rollover - reference) <= day else { return nil }
                    return stated + periods * rollover
                }.first
                if let corrected {
                    time = corrected
                    note(.weekRollover)
                } else if let last, stated > last + day {
                    note(.implausibleTime)
                    continue
                }
            } else {
                guard let last else {
                    note(.fixWithoutTimeBeforeFirst)
                    continue
                }
                time = last + 0.001  // at least a millisecond after the fix before it
            }
            guard RFC3339.supportedRange.contains(Date(timeIntervalSince1970: time)) else {
                note(.implausibleTime)
                continue
            }
            let point = Point(fix: fix, time: time, isPlaced: fix.time == nil)
            guard let waiting = held else {
                // A placed fix is just after `floor`: not after it only if `time` is before it.
                if let floor, fix.time == nil ? time < floor : time <= floor {
                    note(.fixNotAfterLast)
                    continue
                }
                held = point
                heldAccuracy = fix.fields["eph"]
                continue
            }
            if fix.time != nil, time == waiting.time {
                held = Point(fix: fix, time: time, isPlaced: waiting.isPlaced)
                heldAccuracy = fix.fields["eph"] ?? heldAccuracy
                note(.fixSameTime)
                continue
            }
            if fix.time != nil, time < waiting.time {
                if time > floor ?? -.infinity, waiting.time - time > 600 {  // ten minutes: InputIssue.implausibleTime
                    note(.implausibleTime)
                    held = point
                    heldAccuracy = fix.fields["eph"]
                } else {
                    note(.fixNotAfterLast)
                }
                continue
            }
            take(waiting)
            held = point
            heldAccuracy = fix.fields["eph"]
        }
        // The last fix, held at the end, is dropped when it is dated far ahead of the one before
        // it (arrived just after it): nothing after it says whether it was the odd one out.
        if let waiting = held {
            if let floor, waiting.time - floor > 600 { note(.implausibleTime) } else { take(waiting) }
        }
    }

    private mutating func note(_ issue: InputIssue) {
        counts[issue.rawValue, default: 0] += 1
    }
}
