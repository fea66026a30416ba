import Foundation
import Testing
@testable import Workout

/// One rule for zeros in every mean (``SampleAveraging``), where means are made (``SampleFigures``),
/// chosen in the session's configuration and followed by the store from the workout's metadata;
/// and the training profile kept beside it.
@Suite struct SampleAveragingTests {
    let start = Date(timeIntervalSince1970: 1_714_557_600)
    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    /// A ride with a 60 s stop: one cadence sensor sends zeros through it, the other nothing.
    func cadence(sendingZeros: Bool) -> [QuantitySample] {
        (0...180).compactMap { second -> QuantitySample? in
            let stopped = (60..<120).contains(second)
            if stopped, !sendingZeros { return nil }
            return QuantitySample(type: .cadence, value: stopped ? 0 : 90, at: at(Double(second)))
        }
    }

    @Test(arguments: SampleAveraging.allCases)
    func aSensorSilentAtRestAndOneSendingZerosGiveTheSameMean(averaging: SampleAveraging) throws {
        let zeros = try #require(SampleFigures(samples: cadence(sendingZeros: true), averaging: averaging))
        let silent = try #require(SampleFigures(samples: cadence(sendingZeros: false), averaging: averaging))
        // Including zeros: 120 s at 90 and 60 s at 0; the silent one's first reading after the
        // stop holds over its last 10 s (the zero sent at 120 s held over one), so 129 s at 90.
        let expected = averaging == .includingZeros ? (90.0 * 120 + 0 * 60) / 180 : 90
        #expect(abs(zeros.average - expected) < 1e-9, "\(zeros.average)")
        #expect(abs(silent.average - (averaging == .includingZeros ? (90.0 * 129) / 180 : 90)) < 1e-9, "\(silent.average)")
        // Those 9 s of hold are the only difference: without the rule, the silent one's mean
        // would be 90 (its stop left out), the other's 60.
        #expect(zeros.minimum == 0 && silent.minimum == 90, "the least is a reading's, silence is none")
    }

    /// The user paused for 5 minutes and the power meter slept: its silence there is no zero (the
    /// workout stood still, not a rider at rest). Told nothing of the pause, the figures would
    /// count it as 290 s of zeros.
    @Test func aPowerMetersSilenceWhileTheUserPausedIsNoZero() throws {
        let samples = ((0...100).map { $0 } + (400...500).map { $0 }).map {
            QuantitySample(type: .power, value: 200, at: at(Double($0)))
        }
        var told: SampleFigures?
        var untold: SampleFigures?
        for sample in samples {
            if sample.end == at(400) {
                told?.apply(WorkoutEvent(.pause, at: at(100)))
                told?.apply(WorkoutEvent(.resume, at: at(400)))
            }
            told.add(sample)
            untold.add(sample)
        }
        let figures = try #require(told), blind = try #require(untold)
        // 100 s, the first reading after the pause held over the 10 s before it, 100 s.
        #expect(figures.average == 200 && figures.weightedTime == 210, "\(figures.average) W over \(figures.weightedTime) s")
        #expect(abs(blind.average - 200 * 210 / 500) < 1e-9, "\(blind.average)")
    }

    @Test func aHeartRateStrapsSilenceIsNoReading() throws {
        var samples = (0...60).map { QuantitySample(type: .heartRate, value: 150, at: at(Double($0))) }
        samples += (120...180).map { QuantitySample(type: .heartRate, value: 150, at: at(Double($0))) }
        for averaging in SampleAveraging.allCases {
            let figures = try #require(SampleFigures(samples: samples, averaging: averaging))
            #expect(figures.average == 150, "\(averaging): a strap off the skin is no heart rate of zero")
            #expect(figures.weightedTime == 60 + 10 + 60)
        }
    }

    @Test func theConfigurationKeepsTheRuleAndTheProfileInTheMetadata() throws {
        var configuration = WorkoutSession.Configuration(activityType: .cycling)
        #expect(configuration.sampleAveraging == .includingZeros && configuration.trainingProfile == nil)
        #expect(configuration.metadata.values.isEmpty, "the defaults write nothing")
        configuration.sampleAveraging = .excludingZeros
        configuration.trainingProfile = TrainingProfile(functionalThresholdPower: 280, heartRateZones: .values([120, 140, 160]))
        #expect(configuration.metadata.values == [
            "sample_averaging": "exclude_zeros", "ftp_w": "280", "heart_rate_zones": "120,140,160",
        ])
        configuration.metadata = WorkoutMetadata(values: ["name": "Hill repeats"])
        #expect(configuration.metadata.values["ftp_w"] == "280" && configuration.metadata.values["name"] == "Hill repeats",
                "new metadata keeps them")
        let decoded = try JSONDecoder().decode(WorkoutSession.Configuration.self, from: JSONEncoder().encode(configuration))
        #expect(decoded == configuration)
        #expect(TrainingProfile(decoded.metadata) == configuration.trainingProfile)
        #expect(SampleAveraging(decoded.metadata) == .excludingZeros)
        // A configuration kept by an older version has neither: the defaults.
        let old = #"{"activityType":"cycling","endTimeout":[60,0],"maximumHeldPoints":100000}"#
        let older = try JSONDecoder().decode(WorkoutSession.Configuration.self, from: Data(old.utf8))
        #expect(older.sampleAveraging == .includingZeros && older.trainingProfile == nil)
    }

    @Test func theStoresFiguresFollowTheWorkoutsRuleAndTheZonesMakeItsDuration() async throws {
        let store = try WorkoutStore.inMemory()
        let samples = cadence(sendingZeros: true) + (0...180).map { QuantitySample(type: .power, value: $0 % 60 < 30 ? 300 : 0, at: at(Double($0))) }
        let events = [
            WorkoutEvent(.pause, at: at(30)), WorkoutEvent(.resume, at: at(50)),
            WorkoutEvent(.motionPaused, at: at(60)), WorkoutEvent(.motionResumed, at: at(120)),
        ]
        var ids: [SampleAveraging: UUID] = [:]
        for averaging in SampleAveraging.allCases {
            var configuration = WorkoutSession.Configuration(activityType: .cycling, sampleAveraging: averaging)
            configuration.trainingProfile = TrainingProfile(functionalThresholdPower: 250)
            let workout = WorkoutRecord(activityType: .cycling, start: start, end: at(180), metadata: configuration.metadata)
            _ = try await store.saveWorkout(
                workout, samples: samples.sorted { $0.end < $1.end }, segments: [fixes(181, from: start)], events: events, routeMetadata: nil)
            ids[averaging] = workout.id
        }
        let included = try await store.sampleFigures(of: try #require(ids[.includingZeros]))
        let excluded = try await store.sampleFigures(of: try #require(ids[.excludingZeros]))
        #expect(try #require(excluded[.cadence]).average == 90)
        #expect(try #require(included[.cadence]).average < 90)
        #expect(try #require(excluded[.power]).average == 300)
        for id in ids.values {
            // The workout's duration as the store's time line counts it (its laps).
            let duration = try await store.laps(of: id).map(\.duration).reduce(0, +)
            let training = try await store.trainingFigures(of: id)
            #expect(training.duration == duration && duration == 160, "the pause out, the stop kept: \(training.duration) s, \(duration) s")
            let zones = try #require(training.powerZones)
            #expect(abs(zones.total - duration) < 1e-9, "\(zones.times) + \(zones.unrecorded)")
            #expect(training.profile.functionalThresholdPower == 250)
        }
    }

    @Test func zoneBoundsReadTheirTextAndSayWhatIsWrong() throws {
        #expect(ZoneBounds(text: "55%,75%,90%") == .fractions([0.55, 0.75, 0.9]))
        #expect(ZoneBounds(text: "150, 200, 250") == .values([150, 200, 250]))
        #expect(ZoneBounds.cogganPower.text == "55%,75%,90%,105%,120%,150%")
        for bad in ["", "55%,200", "200,150", "a,b", "-5,10"] { #expect(ZoneBounds(text: bad) == nil, "\(bad)") }
        #expect(throws: TrainingProfileError.notPositive(field: "the FTP", value: 0)) {
            try TrainingProfile(functionalThresholdPower: 0).validate()
        }
        let error = #expect(throws: TrainingProfileError.self) {
            try TrainingProfile(powerZones: .values([300, 200])).validate()
        }
        #expect(error?.description.contains("the power zones \"300,200\" cannot be used: the bounds do not rise") == true, "\(String(describing: error))")
        #expect(TrainingProfile(powerZones: .values([300, 200])).powerZoneBounds == nil, "invalid zones give no zones")
    }
}
