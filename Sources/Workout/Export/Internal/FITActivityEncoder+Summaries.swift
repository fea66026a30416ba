import FIT
import Foundation

/// Laps, the session (with the workout's ``WorkoutEnvelope`` header in our fields) and the activity.
/// Both carry our training figures (``TrainingFigures``): a lap its `normalized_power` and
/// `total_work`, the session those and its `training_stress_score`, `intensity_factor` and the
/// `threshold_power` they were measured against, so that an import of the file keeps them as the
/// device's (``DeviceTotals``).
extension FITActivityEncoder {
    /// The figures of a lap or the session: totals and sample figures.
    struct Summary {
        var start: UInt32
        var end: UInt32
        var elapsed: Double
        var timer: Double
        var distance: Double?
        var samples: [QuantityType: SampleFigures]
        var sport: UInt8
        /// `sub_sport`: 6 indoor cycling, 1 treadmill, 58 a virtual course... (0 outdoors).
        var subSport: UInt8 = 0
        /// Its training figures (normalized power, work; and for the session TSS, IF and the FTP).
        var training: TrainingSummary?
    }

    /// A `lap`, numbered from 0, with what ended it (0 manual, 1 time, 2 distance, 7 the session's end).
    mutating func lap(_ lap: Summary, index: Int, trigger: UInt8) {
        if index == 0 {
            writer.define(localType: Local.lap.rawValue, globalNumber: FITMessageNumber.lap, fields: [
                Self.field(253, .uint32), Self.field(2, .uint32), Self.field(7, .uint32), Self.field(8, .uint32), Self.field(9, .uint32),
                Self.field(254, .uint16), Self.field(0, .enumeration), Self.field(1, .enumeration), Self.field(24, .enumeration),
                Self.field(25, .enumeration), Self.field(15, .uint8), Self.field(16, .uint8), Self.field(17, .uint8),
                Self.field(18, .uint8), Self.field(19, .uint16), Self.field(20, .uint16), Self.field(33, .uint16),
                Self.field(41, .uint32),
            ])
        }
        writer.write(localType: Local.lap.rawValue, values: [
            .integer(Int64(lap.end)), .integer(Int64(lap.start)), Self.value(lap.elapsed, scale: 1000), Self.value(lap.timer, scale: 1000),
            Self.value(lap.distance, scale: 100), .integer(Int64(index)), .integer(9), .integer(1), .integer(Int64(trigger)),
            .integer(Int64(lap.sport)),
        ] + Self.figures(lap.samples) + [Self.value(lap.training?.normalizedPower), Self.value(lap.training?.work, scale: 1000)])
    }

    private static func value(_ number: Double?, scale: Double = 1) -> FITValue? {
        scaled(number, scale: scale).map(FITValue.integer)
    }

    private static func figures(_ samples: [QuantityType: SampleFigures]) -> [FITValue?] {
        [QuantityType.heartRate, .cadence, .power].flatMap { type -> [FITValue?] in
            [value(samples[type]?.average), value(samples[type]?.maximum)]
        }
    }

    /// The `session` (with the envelope's header: the workout's id, the milliseconds of its start
    /// and end, whether auto-pause decided its stops) and the `activity`, after the timer's last
    /// stop (unless a pause stopped it already).
    mutating func end(
        _ session: Summary, header: WorkoutEnvelope.Header, laps: Int, ascent: Double?, descent: Double?, calories: Double?,
        localOffset: Int?, startPosition: (latitude: Double, longitude: Double)?, timerRunning: Bool
    ) {
        if timerRunning { timer(starts: false, at: session.end, automatic: false) }
        writer.define(
            localType: Local.session.rawValue, globalNumber: FITMessageNumber.session,
            fields: [
                Self.field(253, .uint32), Self.field(2, .uint32), Self.field(7, .uint32), Self.field(8, .uint32), Self.field(9, .uint32),
                Self.field(5, .enumeration), Self.field(6, .enumeration), Self.field(0, .enumeration), Self.field(1, .enumeration),
                Self.field(25, .uint16), Self.field(26, .uint16), Self.field(254, .uint16), Self.field(28, .enumeration),
                Self.field(11, .uint16), Self.field(22, .uint16), Self.field(23, .uint16), Self.field(3, .sint32), Self.field(4, .sint32),
                Self.field(124, .uint32), Self.field(16, .uint8), Self.field(17, .uint8), Self.field(18, .uint8), Self.field(19, .uint8),
                Self.field(20, .uint16), Self.field(21, .uint16), Self.field(34, .uint16), Self.field(35, .uint16),
                Self.field(36, .uint16), Self.field(48, .uint32), Self.field(45, .uint16),
            ],
            developerFields: [
                FITWorkoutFields.workoutID, FITWorkoutFields.timestampMilliseconds, FITWorkoutFields.startTimeMilliseconds,
                FITWorkoutFields.autoPause,
            ].map(\.definition))
        let averageSpeed = session.distance.flatMap { distance in session.timer > 0 ? distance / session.timer : nil }
        let start = FITWorkoutFields.split(header.start), end = FITWorkoutFields.split(header.end)
        writer.write(localType: Local.session.rawValue, values: [
            .integer(Int64(session.end)), .integer(Int64(session.start)), Self.value(session.elapsed, scale: 1000),
            Self.value(session.timer, scale: 1000), Self.value(session.distance, scale: 100), .integer(Int64(session.sport)),
            .integer(Int64(session.subSport)), .integer(8), .integer(1), .integer(0), .integer(Int64(laps)), .integer(0), .integer(0),
            Self.value(calories), Self.value(ascent), Self.value(descent),
            startPosition.map { .integer(Int64(FITSemicircles.semicircles($0.latitude))) },
            startPosition.map { .integer(Int64(FITSemicircles.semicircles($0.longitude))) },
            Self.value(averageSpeed, scale: 1000),
        ] + Self.figures(session.samples) + [
            Self.value(session.training?.normalizedPower), Self.value(session.training?.trainingStressScore, scale: 10),
            Self.value(session.training?.intensityFactor, scale: 1000), Self.value(session.training?.work, scale: 1000),
            Self.value(session.training?.profile.usableFTP),
            .string(header.id.uuidString), end.map { .integer(Int64($0.milliseconds)) }, start.map { .integer(Int64($0.milliseconds)) },
            .integer(header.autoPause ? 1 : 0),
        ])
        writer.define(localType: Local.activity.rawValue, globalNumber: FITMessageNumber.activity, fields: [
            Self.field(253, .uint32), Self.field(0, .uint32), Self.field(1, .uint16), Self.field(2, .enumeration),
            Self.field(3, .enumeration), Self.field(4, .enumeration), Self.field(5, .uint32),
        ])
        writer.write(localType: Local.activity.rawValue, values: [
            .integer(Int64(session.end)), Self.value(session.timer, scale: 1000), .integer(1), .integer(0), .integer(26), .integer(1),
            localOffset.map { .integer(Int64(session.end) + Int64($0)) },
        ])
    }
}
