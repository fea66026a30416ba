import Foundation
import GPSCore

extension WorkoutSession {
    /// Where a session stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Made, not started.
        case notStarted = "not started"
        /// Recording.
        case running
        /// Paused by the user: fixes are kept as route points but nothing counts.
        case paused
        /// ``WorkoutSession/end()`` is saving it.
        case ending
        /// ``WorkoutSession/end()`` could not save it (the store kept failing): its sources are
        /// stopped and everything it recorded is kept, written or held. Call `end()` again, or
        /// ``WorkoutSession/discard()``.
        case stopped
        /// Saved.
        case ended
        /// Thrown away.
        case discarded
    }

    /// What was asked of a session, as an invalid transition names it.
    public enum Action: String, Sendable, Hashable, Codable, CustomStringConvertible {
        case start, pause, resume, lap, mark, end, discard

        /// The action's name: `pause`.
        public var description: String { rawValue }
    }

    /// How a session records: the activity, auto-pause, auto-laps, the rules its fixes are held
    /// to, and how it waits for a failing store. Kept with the session in the store, so a session
    /// resumed after a crash records as it did.
    public struct Configuration: Sendable, Hashable, Codable {
        /// What is done.
        public var activityType: WorkoutActivityType
        /// Auto-pause, or `nil` for none.
        public var autoPause: AutoPause?
        /// A lap every this many metres covered while active, or `nil`.
        public var autoLapDistance: Double?
        /// A lap every this much active time (pauses left out), or `nil`. With both, a lap ends at
        /// whichever comes first, and both count again from there. Manual laps can always be added.
        public var autoLapTime: Duration?
        /// The saved workout's metadata.
        public var metadata: WorkoutMetadata
        /// How fast the activity can go and how inaccurate a fix may be and count (the
        /// activity's ``FixRules/defaults(for:)`` unless given).
        public var fixRules: FixRules
        /// How long ``WorkoutSession/end()`` waits for a failing store (locked by another
        /// process, a full disk) before it gives up and says how the session can still be saved.
        /// 60 s by default.
        public var endTimeout: Duration
        /// The most route points the session holds in memory while the store fails (with four
        /// times as many samples). Past it, new fixes and samples are dropped
        /// (``InputIssue/backlogFull``) until the store takes what is held. 100,000 by default:
        /// over 27 hours at one fix a second, about 30 MB.
        public var maximumHeldPoints: Int

        /// A configuration; only the activity is needed.
        public init(
            activityType: WorkoutActivityType, autoPause: AutoPause? = nil, autoLapDistance: Double? = nil,
            autoLapTime: Duration? = nil, metadata: WorkoutMetadata = WorkoutMetadata(), fixRules: FixRules? = nil,
            endTimeout: Duration = .seconds(60), maximumHeldPoints: Int = 100_000
        ) {
            self.activityType = activityType
            self.autoPause = autoPause
            self.autoLapDistance = autoLapDistance
            self.autoLapTime = autoLapTime
            self.metadata = metadata
            self.fixRules = fixRules ?? .defaults(for: activityType)
            self.endTimeout = endTimeout
            self.maximumHeldPoints = maximumHeldPoints
        }
    }

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

    /// The live figures, after each fix, sample and change of state.
    public struct Statistics: Sendable, Hashable {
        /// Where the session stands.
        public var state: State
        /// Auto-paused: standing still.
        public var isMotionPaused: Bool
        /// Seconds from the first fix to the last.
        public var elapsedTime: TimeInterval
        /// Seconds not paused (by the user or auto-pause).
        public var activeTime: TimeInterval
        /// Metres covered while active.
        public var distance: Double
        /// The speed now, m/s: the fixes' speeds (reported, or worked out from their positions)
        /// smoothed over about 5 s.
        public var currentSpeed: Double?
        /// Seconds per kilometre at ``currentSpeed``; `nil` below 0.3 m/s (standing still has no pace).
        public var currentPace: Double?
        /// Seconds per kilometre over the active time, when there is distance.
        public var averagePace: Double?
        /// Metres climbed (a 5 m hysteresis, as ``TrackStatistics`` counts).
        public var elevationGain: Double
        /// The current lap, from 1.
        public var lap: Int
        /// Metres covered in the current lap.
        public var lapDistance: Double
        /// Active seconds in the current lap.
        public var lapActiveTime: TimeInterval
        /// The samples' figures by type (heart rate, cadence, power, ...): the latest, mean,
        /// least and most so far.
        public var samples: [QuantityType: SampleFigures]
        /// The same for the current lap.
        public var lapSamples: [QuantityType: SampleFigures]
        /// How many fixes and samples met each admission rule (see ``InputIssue``).
        public var inputIssues: [InputIssue: Int]
        /// How the writing to the store stands.
        public var storage: StorageState
        /// Route points and samples held in memory, not yet written to the store.
        public var unwritten: Int

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

/// Why a ``WorkoutSession`` call was refused or failed.
public enum WorkoutSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `action` is not possible in `state` (pausing a session that is not running...).
    case invalidTransition(action: WorkoutSession.Action, state: WorkoutSession.State)
    /// The session ended before its first fix: there is no workout to save.
    case nothingRecorded
    /// The session to resume is no longer interrupted: it was ended, discarded or resumed.
    case notInterrupted
    /// The calling task was cancelled before `end()` began: nothing changed.
    case cancelled
    /// The store failed (starting a resumed session, or discarding).
    case store(WorkoutStoreError)
    /// `end()` tried for `waited` and the store still failed with `error`. Nothing is lost: the
    /// session is ``WorkoutSession/State-swift.enum/stopped``, holding what it had not yet written
    /// (`unwritten` points and samples); `end()` can be called again. What it wrote is in the
    /// store: if the program ends first, that is an interrupted session, saved by
    /// ``WorkoutStore/end(_:)`` or `workout recover --end`.
    case notSaved(error: WorkoutStoreError, waited: Duration, unwritten: Int)

    /// The error as a sentence that says what happened and what to do.
    public var description: String {
        switch self {
        case let .invalidTransition(action, state):
            "Cannot \(action) a workout session that is \(state.rawValue)."
        case .nothingRecorded:
            "The workout session ended before its first fix: there is nothing to save."
        case .notInterrupted:
            "The workout session is no longer interrupted: it was ended, discarded or resumed meanwhile."
        case .cancelled:
            "end() was called in a cancelled task: the workout session goes on unchanged."
        case let .store(error):
            "The workout store failed: \(error)"
        case let .notSaved(error, waited, unwritten):
            "The workout session could not be saved (tried for \(LocationErrorFormat.seconds(waited))): \(error) "
                + "Nothing is lost: the session is kept"
                + (unwritten > 0 ? ", holding \(unwritten) \(unwritten == 1 ? "point or sample" : "points and samples") not yet written," : "")
                + " and end() can be tried again; what it wrote stays in the store, and if this program ends first, "
                + "`workout recover --end` (WorkoutStore.end(_:)) saves it as a workout."
        }
    }
}

/// Durations in words for messages.
enum LocationErrorFormat {
    static func seconds(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
