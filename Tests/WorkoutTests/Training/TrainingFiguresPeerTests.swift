import Foundation
import TestSupport
import Testing
@testable import Workout

/// Our training figures held to sweat (PyPI), on the same samples: NP, IF, TSS and the time in
/// zones within 1 %. Where we differ on purpose, each test says how much it allows and why:
/// - sweat's rolling mean counts the first 29 s in windows not yet full (pandas' `min_periods=1`);
///   Coggan's takes whole 30 s windows only, as ours does.
/// - sweat makes its 1 Hz series with the mean of each second and a linear interpolation across
///   any gap; ours holds a value from the sample before it, at most 10 s, and a power meter's
///   silence past that is a zero (``SampleAveraging``).
/// - sweat counts every second of a file, pauses too; ours leaves the user's pauses out.
/// Zone times are compared as shares of the ride: each within 1 % of the span.
@Suite(.enabled(if: SweatPeer.isAvailable, "\(SweatPeer.missing)"))
struct TrainingFiguresPeerTests {
    static let profile = TrainingProfile(functionalThresholdPower: 250, maximumHeartRate: 185)

    func expectClose(
        _ ours: TrainingSummary, _ theirs: SweatPeer.Answer, span: Double, zones: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        func close(_ name: String, _ a: Double?, _ b: Double?) {
            guard let a, let b else {
                Issue.record("\(name): ours \(String(describing: a)), sweat's \(String(describing: b))", sourceLocation: sourceLocation)
                return
            }
            #expect(abs(a - b) <= 0.01 * abs(b), "\(name): ours \(a), sweat's \(b)", sourceLocation: sourceLocation)
        }
        close("NP", ours.normalizedPower, theirs.normalizedPower)
        close("IF", ours.intensityFactor, theirs.intensityFactor)
        close("TSS", ours.trainingStressScore, theirs.trainingStressScore)
        guard zones else { return }
        for (name, mine, peer) in [
            ("power zone", ours.powerZones?.times, theirs.powerZones), ("heart-rate zone", ours.heartRateZones?.times, theirs.heartRateZones),
        ] {
            if mine == nil, peer == nil { continue }   // a ride without heart rate
            guard let mine, let peer, mine.count == peer.count else {
                Issue.record("\(name)s: ours \(String(describing: mine)), sweat's \(String(describing: peer))", sourceLocation: sourceLocation)
                continue
            }
            for (index, (a, b)) in zip(mine, peer).enumerated() {
                #expect(abs(a - b) <= 0.01 * span, "\(name) \(index + 1): ours \(a) s, sweat's \(b) s", sourceLocation: sourceLocation)
            }
        }
    }

    /// (a) One power and heart-rate sample a second. Ours holds the sample at `s` over the second
    /// before it (and the first sample over nothing): sweat is handed the samples from 1 s on, its
    /// series then second for second the same as ours.
    @Test func aOneHertzHourWithIntervalsAndCoasting() async throws {
        let samples = SyntheticRide.oneHertz()
        let ours = SyntheticRide.figures(samples, profile: Self.profile).summary
        let later = samples.filter { $0.end > SyntheticRide.start }
        let answers = try await SweatPeer.measure([SweatPeer.Case(
            name: "a", ftp: 250, maxHeartRate: 185, power: SyntheticRide.pairs(later, .power),
            heartRate: SyntheticRide.pairs(later, .heartRate))])
        let theirs = try #require(answers["a"])
        #expect(theirs.seconds == 3_600)
        expectClose(ours, theirs, span: 3_600)
        // The same series: only the first 29 s of sweat's rolling means differ.
        #expect(abs((ours.normalizedPower ?? 0) - (theirs.normalizedPower ?? 0)) < 0.002 * (theirs.normalizedPower ?? 1))
        #expect(ours.powerZones?.times == theirs.powerZones, "second for second, the same zones")
        #expect(abs((ours.work ?? 0) - (theirs.work ?? 0)) < 1e-6)
    }

    /// (b) A power meter at about 2 Hz with dropouts; sweat resamples it to 1 Hz itself. The 25 s
    /// dropout is the difference on purpose: sweat draws a line across it, ours holds the value
    /// for 10 s and counts the rest as the zero a silent power meter stands for.
    @Test func bIrregularTwoHertzPowerWithDropouts() async throws {
        let samples = SyntheticRide.irregular()
        let ours = SyntheticRide.figures(samples, profile: Self.profile).summary
        let answers = try await SweatPeer.measure([SweatPeer.Case(
            name: "b", ftp: 250, maxHeartRate: 185, power: SyntheticRide.pairs(samples, .power),
            heartRate: SyntheticRide.pairs(samples, .heartRate), resample: true)])
        let theirs = try #require(answers["b"])
        expectClose(ours, theirs, span: 3_600)
        let work = try #require(ours.work), theirWork = try #require(theirs.work)
        #expect(work < theirWork, "the 15 s past the hold are zeros here, a line at about 180 W there: \(work) kJ against \(theirWork) kJ")
    }

    /// (c) The FIT corpus' rides with power, read in place: ours through the FIT import and the
    /// store, sweat's through fitparse with its own 1 Hz resampling. Measured against the FTP the
    /// device gives (`threshold_power`), else 250 W. The Wahoo ride, whose rider paused for an
    /// hour and whose device stops its timer at every stop, is left to the device comparison:
    /// sweat counts its pauses, which ours leaves out.
    static let corpus = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpora/fit")
    static let rides = [
        "Edge810-Vector-2013-08-16-15-35-10.fit", "sample-activity-indoor-trainer.fit", "developer-types-sample.fit",
        "null_compressed_speed_dist.fit",
    ]
    /// A ride of 132 s, 17 of its records without power: sweat's 29 windows not yet full make a
    /// fifth of its rolling means (ours has 102 whole ones), and it draws lines over the missing
    /// power where ours holds the next reading. Its NP and IF are held to 10 %, its TSS (which
    /// goes as NP squared) to 20 %, its zones to 10 s.
    static let shortRide = "elemnt-bolt-no-application-id-inside-developer-data-id.fit"


    @Test(.enabled(if: FileManager.default.fileExists(atPath: corpus.path), "the FIT corpus is not at ../shared/corpora/fit"))
    func cTheFITCorpusRidesWithPower() async throws {
        var cases: [SweatPeer.Case] = []
        var ours: [String: TrainingSummary] = [:]
        for ride in Self.rides + [Self.shortRide] {
            let path = Self.corpus.appendingPathComponent(ride).path
            let store = try WorkoutStore.inMemory()
            let imported = try #require(try await FITImporter(store: store).importFile(at: path).workouts.first, "\(ride)")
            let ftp = imported.deviceTotals?.thresholdPower ?? 250
            ours[ride] = try await store.trainingFigures(
                of: imported.workoutID, profile: TrainingProfile(functionalThresholdPower: ftp, maximumHeartRate: 185))
            cases.append(SweatPeer.Case(name: ride, ftp: ftp, maxHeartRate: 185, fit: path))
        }
        let answers = try await SweatPeer.measure(cases)
        for ride in Self.rides {
            let mine = try #require(ours[ride]), theirs = try #require(answers[ride], "\(ride)")
            // No pause: the same seconds of power (a span that begins at a session's start before
            // the first record has them unrecorded, which neither NP nor TSS counts).
            #expect(abs(mine.powerTime - (theirs.seconds ?? 0)) <= 2, "\(ride): \(mine.powerTime) s of power, sweat's \(theirs.seconds ?? 0) s")
            expectClose(mine, theirs, span: mine.duration)
        }
        let mine = try #require(ours[Self.shortRide]), theirs = try #require(answers[Self.shortRide])
        for (name, a, b) in [
            ("NP", mine.normalizedPower, theirs.normalizedPower), ("IF", mine.intensityFactor, theirs.intensityFactor),
            ("TSS", mine.trainingStressScore, theirs.trainingStressScore),
        ] {
            let a = try #require(a), b = try #require(b)
            #expect(abs(a - b) <= (name == "TSS" ? 0.2 : 0.1) * b, "\(name) of the short ride: ours \(a), sweat's \(b)")
        }
        for (a, b) in zip(try #require(mine.powerZones?.times), try #require(theirs.powerZones)) {
            #expect(abs(a - b) <= 10, "a power zone of the short ride: ours \(a) s, sweat's \(b) s")
        }
    }
}
