import Foundation
import Simulators
import Testing
import TestSupport

/// The fakes are gpsd: for every NMEA log among gpsd's regression logs, the in-process replay
/// (``ReplayRecording/device(speed:loop:startOffset:clock:)``, what `locate replay` and the tests'
/// replays play) gives the fixes and satellite reports a ``GPSDClient`` reads from real gpsd
/// reading the same log, field by field, and the fake gpsd (``FakeGPSDServer`` serving the
/// recording) sends gpsd's TPVs and SKYs, field by field (``GPSDConformance`` says what is
/// compared, and how gpsd's reports are taken epoch by epoch).
///
/// What agrees is counted and printed: the share of epochs that agree in every field is the
/// figure of the fakes' conformance. Every difference left is listed in ``knownDifferences``,
/// log by log and field by field, with its reason; a log that differs otherwise fails, and so does
/// one listed that comes to agree, so the list stays true. A log where gpsd's own reports vary
/// from run to run is not compared (``notCompared``, with the reason).
extension GPSDCorpusTests {
    /// Where the fakes give other reports than gpsd, and why: the fields that differ (with the
    /// names the in-process replay's fixes and the fake gpsd's JSON give them) and how many
    /// epochs differ in each.
    static let knownDifferences: [String: (replay: [String: Int], fakeGPSD: [String: Int], reason: String)] = [
        "ac12_binary.log": (
            ["satellites": 3, "satellite reports": 4], ["satellites": 3, "satellite reports": 4],
            "SiRF binary packets among the NMEA: gpsd's SiRF driver reports satellites from them; the fakes read NMEA only"),
        "bundg_zeus_9.log": (
            ["course": 1], ["track": 1],
            "one epoch gives no course but a compass's magnetic heading (HDG): gpsd makes a true course of it with its "
                + "magnetic model, which the fakes do not have"),
        "garmin17n.log": (
            ["climb": 1, "speedAccuracy": 1], ["climb": 1, "eps": 1, "epc": 1],
            "gpsd dates the first fix (2005) 1024 weeks on, until the receiver's $PGRMF gives the leap seconds; so for "
                + "the second fix it has no earlier fix to work a climb and errors from. The fakes keep the receiver's date"),
        "isync.log": (
            ["satellites": 3], ["satellites": 3],
            "an artificially induced packet collision, as the log says: a $PTNTA inside a $GPGSV, which gpsd's "
                + "packet reader takes apart; the fakes read a log line by line, and lose that GSV's first part"),
        "skytraq-dgps.log": (
            ["climb": 1], ["climb": 1],
            "SkyTraq's $PSTI,030 gives velocities, from which gpsd takes the climb; the fakes read no $PSTI"),
        "skytraq-fix.log": (
            ["climb": 1], ["climb": 1],
            "SkyTraq's $PSTI,030 gives velocities, from which gpsd takes the climb; the fakes read no $PSTI"),
        "skytraq-fixB.log": (
            ["climb": 1], ["climb": 1],
            "SkyTraq's $PSTI,030 gives velocities, from which gpsd takes the climb; the fakes read no $PSTI"),
        "skytraq.log": (
            ["only fake": 1, "only gpsd": 1], ["only fake": 1, "only gpsd": 1],
            "gpsd reports the first epoch again after SkyTraq's $PSTI,030, with the time a ZDA gave it; the fakes read no $PSTI"),
        "quectelLC79D.log": (
            ["satellites": 1], ["satellites": 1],
            "its header quotes two GAGSV sentences in comments; with the file's CRLF line ends, gpsd's packet reader takes "
                + "a comment's CR for noise, reads on after the '#', and finds the sentence; the fakes skip comment lines"),
    ]

    /// Logs the fakes are not compared on, and why.
    static let notCompared: [String: String] = [
        "tcp-torture.log": "a log for gpsfake's TCP torture test, played to gpsd over TCP: '|' marks where gpsfake splits a "
            + "sentence between writes (the fakes read it as written, and its checksum fails), and what gpsd reports "
            + "depends on how the writes reach it, from run to run",
    ]

    @Test func theFakesReportWhatGpsdReports() async {
        let nmea = await GPSDCorpus.pass.value.filter { $0.replay != nil || $0.fakeFailure != nil }
        let runs = nmea.filter { Self.notCompared[$0.log] == nil }
        var problems: [String] = []
        var totals: [String: (fixes: Int, agreeing: Int, skies: Int, agreeingSkies: Int)] = [:]
        for run in runs {
            if let failure = run.fakeFailure { problems.append("\(run.log): the fakes could not play it: \(failure)") }
            let known = Self.knownDifferences[run.log]
            for (fake, outcome, expected) in [("replay", run.replay, known?.replay), ("fake gpsd", run.fakeGPSD, known?.fakeGPSD)] {
                guard let outcome else { continue }
                var total = totals[fake] ?? (0, 0, 0, 0)
                total.fixes += outcome.fixes
                total.agreeing += outcome.agreeingFixes
                total.skies += outcome.skies
                total.agreeingSkies += outcome.agreeingSkies
                totals[fake] = total
                if outcome.differingFields != expected ?? [:] {
                    let listed = expected.map { " (listed: \($0.sorted { $0.key < $1.key }))" } ?? ""
                    problems.append("\(run.log), \(fake): differs in \(outcome.differingFields.sorted { $0.key < $1.key })\(listed): "
                        + outcome.problems.prefix(6).joined(separator: "; "))
                }
            }
        }
        for name in Array(Self.knownDifferences.keys) + Array(Self.notCompared.keys) where !nmea.contains(where: { $0.log == name }) {
            problems.append("\(name) is listed but is not an NMEA log of the corpus")
        }
        for (fake, total) in totals.sorted(by: { $0.key > $1.key }) {
            print("\(fake) against gpsd over \(runs.count) NMEA logs: \(total.agreeing) of \(total.fixes) epochs agree in every field "
                + "(\(Self.percent(total.agreeing, total.fixes))), \(total.agreeingSkies) of \(total.skies) satellite reports "
                + "(\(Self.percent(total.agreeingSkies, total.skies))); the rest differ as knownDifferences says")
        }
        #expect(runs.count >= 95, "gpsd 3.22 has 100 NMEA logs")
        #expect((totals["replay"]?.fixes ?? 0) >= 2_500 && (totals["fake gpsd"]?.skies ?? 0) >= 1_500, "the NMEA logs hold 2,689 epochs, 1,746 skies")
        #expect(problems.isEmpty, "\(problems.count) differences not listed:\n\(problems.joined(separator: "\n"))")
    }

    static func percent(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "-" : String(format: "%.1f %%", 100 * Double(part) / Double(whole))
    }
}
