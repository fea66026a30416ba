import Foundation
import GPSCore

extension WorkoutSession {
    /// How the session's writing to the store stands.
    public enum StorageState: Sendable, Hashable, CustomStringConvertible {
        /// What the session recorded is written (or being written), about a second behind.
        case ok
        /// Writing fails (the store is locked by another process, the disk is full...) and is
        /// tried again, with a growing wait of at most 5 s. Nothing is lost meanwhile: what comes is
        /// held in memory. `since` is when writing first failed (the system clock), `attempts`
        /// how often it was tried, `error` the last failure.
        case retrying(since: Date, attempts: Int, error: WorkoutStoreError)
        /// Writing has failed for so long that the session holds as much as it may
        /// (``Configuration/maximumHeldPoints``): new fixes and samples are dropped
        /// (``InputIssue/backlogFull``) until the store takes what is held. Tried again as in
        /// ``retrying(since:attempts:error:)``.
        case failing(since: Date, attempts: Int, error: WorkoutStoreError)

        /// Whether writing works.
        public var isOK: Bool { self == .ok }

        /// How writing stands, in words.
        public var description: String {
            switch self {
            case .ok:
                "writing"
            case let .retrying(since, attempts, error):
                "failing since \(RFC3339.string(from: since, fractionDigits: 0)) (\(attempts) attempts), retrying: \(error)"
            case let .failing(since, attempts, error):
                "failing since \(RFC3339.string(from: since, fractionDigits: 0)) (\(attempts) attempts), holding all it may; new input is dropped: \(error)"
            }
        }
    }

    /// The live figures, after each fix, sample and change of state: what the saved workout
    /// will say for the same moment (<doc:TheFigures> defines each).
    ///
    /// The distance, moving time and elevation count a fix once the motion detector has decided
    /// it: up to 3 s after it when speeds are worked out from positions, and for a slow stretch
    /// when it turns out a stop or motion. So they never exceed what the saved workout has for the
    /// same moment, and equal it once the session has ended.
    public struct Statistics: Sendable, Hashable {
        /// Where the session stands.
        public var state: State
        /// Auto-paused: standing still.
        public var isMotionPaused: Bool
        /// Seconds from the first fix to the last.
        public var elapsedTime: TimeInterval
        /// Seconds not paused by the user, to the last fix (``WorkoutTotals/duration``).
        public var duration: TimeInterval
        /// Seconds moving: neither paused by the user nor stopped (``WorkoutTotals/movingTime``).
        public var movingTime: TimeInterval
        /// Metres covered while moving.
        public var distance: Double
        /// The speed now, m/s: the fixes' speeds (reported, or worked out from their positions)
        /// smoothed over about 5 s.
        public var currentSpeed: Double?
        /// Seconds per kilometre at ``currentSpeed``; `nil` below 0.3 m/s (standing still has no pace).
        public var currentPace: Double?
        /// Seconds per kilometre over the moving time, when there is distance.
        public var averagePace: Double?
        /// Metres climbed (a 5 m hysteresis, as ``TrackStatistics`` counts).
        public var elevationGain: Double
        /// The current lap, from 1.
        public var lap: Int
        /// Metres covered in the current lap.
        public var lapDistance: Double
        /// The current lap's duration: seconds not paused by the user.
        public var lapDuration: TimeInterval
        /// The current lap's moving time.
        public var lapMovingTime: TimeInterval
        /// The samples' figures by type (heart rate, cadence, power, ...): the latest, mean,
        /// least and most so far.
        public var samples: [QuantityType: SampleFigures]
        /// The same for the current lap.
        public var lapSamples: [QuantityType: SampleFigures]
        /// How many fixes and samples met each admission rule (see ``InputIssue``).
        public var inputIssues: [InputIssue: Int]
        /// Normalized power, intensity factor, training stress score, work, and the time in power
        /// and heart-rate zones so far, against the configuration's ``Configuration/trainingProfile``
        /// (``TrainingFigures`` defines each).
        public var training: TrainingSummary
        /// Where the distance comes from (indoors: the sensor).
        public var distanceSource: DistanceSource
        /// A distance sensor's measure against the fixes so far (over steps of good GPS): its
        /// ``SensorCalibration/factor`` once 200 m of them are compared.
        public var sensorCalibration: SensorCalibration
        /// The wheel's circumference as the fixes calibrate it so far, metres, once known: counted
        /// with when the circumference was not given, only reported when it was.
        public var calibratedWheelCircumference: Double?
        /// How the writing to the store stands.
        public var storage: StorageState
        /// Route points and samples held in memory, not yet written to the store.
        public var unwritten: Int

        /// The moving time, by the name it had before.
        @available(*, deprecated, renamed: "movingTime")
        public var activeTime: TimeInterval { movingTime }
        /// The current lap's moving time, by the name it had before.
        @available(*, deprecated, renamed: "lapMovingTime")
        public var lapActiveTime: TimeInterval { lapMovingTime }

        /// The last heart rate, count/min.
        public var heartRate: Double? { samples[.heartRate]?.latest }
        /// The mean heart rate so far.
        public var heartRateAverage: Double? { samples[.heartRate]?.average }
        /// The highest heart rate so far.
        public var heartRateMaximum: Double? { samples[.heartRate]?.maximum }
        /// The fixes dropped, by reason.
        public var rejectedFixes: [InputIssue: Int] {
            inputIssues.filter { $0.key.isAboutFixes && $0.key.outcome == .dropped }
        }
    }
}
