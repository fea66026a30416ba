import FIT
import Foundation

/// What ``FITImporter`` did with one file: a workout per activity (one per FIT file of a chain),
/// the activities it could not use and why, and what the reader went past.
public struct FITImportReport: Sendable {
    /// The file, as given.
    public var file: String
    /// One entry per activity that became (or already was) a workout, in file order.
    public var workouts: [FITImportedWorkout]
    /// FIT files of the input that did not become a workout (not an activity, no records...), with
    /// the reason: the first ``maximumNotImportedListed``; ``notImportedCount`` counts them all.
    public var notImported: [FITActivityNotImported]
    /// How many FIT files of the input did not become a workout, listed in ``notImported`` or not.
    public var notImportedCount: Int

    /// The most files ``notImported`` lists: a chain of empty FIT files (16 bytes each) must not
    /// grow the report with the input.
    public static let maximumNotImportedListed = 100
    /// What the reader read: headers, counts, and the issues it went past (a bad CRC, a file cut
    /// off partway), each with its offset.
    public var read: FITReadSummary

    /// The workouts this import saved (not those the store already held).
    public var saved: [FITImportedWorkout] {
        workouts.filter(\.isNew)
    }
}

/// One activity of a FIT file, as a workout of the store.
public struct FITImportedWorkout: Sendable {
    /// The workout as read from the file. When ``outcome`` is `alreadySaved`, the stored workout
    /// has the id ``SaveOutcome/workoutID``, not this value's.
    public var workout: WorkoutRecord
    /// Saved now, or found in the store already (the same activity imported before).
    public var outcome: SaveOutcome
    /// Which FIT file of a chain it came from, from 0.
    public var fileIndex: Int
    /// The offset of that file's header.
    public var offset: Int
    /// Route points stored: the records with a position, in time order, exact duplicates dropped.
    public var points: Int
    /// Records with a position dropped as exact duplicates of one kept at the same time.
    public var duplicatesDropped: Int
    /// Route segments: a new one after each pause.
    public var segments: Int
    /// Quantity samples taken from the records (heart rate, cadence, power, temperature, and the
    /// speed of records without a position).
    public var samples: Int
    /// Laps: one more than the lap events saved.
    public var laps: Int
    /// The user's pauses (the timer stopped by hand) saved as events.
    public var pauses: Int
    /// Auto-pause's stops (the timer stopped with its `auto` trigger) saved as events.
    public var stops: Int
    /// Mean and highest heart rate of the records that have one, bpm.
    public var heartRateAverage: Double?
    /// The highest heart rate of the records, bpm.
    public var heartRateMaximum: Double?
    /// The device's own totals (its sessions'), also kept in the workout's metadata.
    public var deviceTotals: DeviceTotals?
    /// Records and values skipped, with their offsets and why.
    public var skipped: [FITSkip]

    /// The id the workout has in the store.
    public var workoutID: UUID { outcome.workoutID }

    /// Whether this import saved it (`false`: the store held it already).
    public var isNew: Bool {
        if case .saved = outcome { true } else { false }
    }
}

/// A FIT file of the input that did not become a workout.
public struct FITActivityNotImported: Sendable, Hashable, CustomStringConvertible {
    /// Which FIT file of a chain, from 0.
    public var fileIndex: Int
    /// The offset of its header.
    public var offset: Int
    /// Why: "it is a course, not a recorded activity", "it has no records"...
    public var reason: String
    /// Its records and values skipped, with their offsets.
    public var skipped: [FITSkip] = []

    /// `byte 0: not imported: it has no records`.
    public var description: String {
        "byte \(offset): not imported: \(reason)"
    }
}

/// A record or value of a FIT file the importer did not keep, with its offset.
public struct FITSkip: Sendable, Hashable, CustomStringConvertible {
    /// The offset of its message.
    public var offset: Int
    /// Why it was skipped.
    public var reason: String

    /// A skip.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// `byte 1234: ...`.
    public var description: String {
        "byte \(offset): \(reason)"
    }

    /// `FILE: byte 1234: ...`, as errors name places in a file.
    public func located(in file: String) -> String {
        "\(file): \(description)"
    }
}

/// How ``FITImporter`` imports: the options every importer takes.
public typealias FITImportOptions = WorkoutImportOptions

/// Why ``FITImporter`` stopped. Workouts of the activities finished before the failure stay
/// saved; each case lists them.
public enum FITImportError: Error, Sendable, CustomStringConvertible {
    /// The file could not be read, is not FIT, or (strict mode) is damaged: the error names the
    /// file and the byte offset.
    case read(FITError, imported: [FITImportedWorkout])
    /// The store refused or failed to save the workout of the FIT file at `offset`.
    case save(file: String, offset: Int, WorkoutStoreError, imported: [FITImportedWorkout])
    /// Strict mode: the record at `offset` (or one of its values) is one the import would skip,
    /// for `reason` (no date, earlier than the record before, an impossible value...).
    case invalidRecord(file: String, offset: Int, reason: String, imported: [FITImportedWorkout])
    /// The importing task was cancelled; the activity being read was not saved.
    case cancelled(file: String, imported: [FITImportedWorkout])

    /// The workouts imported before the failure (kept in the store).
    public var imported: [FITImportedWorkout] {
        switch self {
        case let .read(_, imported), let .save(_, _, _, imported), let .invalidRecord(_, _, _, imported), let .cancelled(_, imported):
            imported
        }
    }

    /// One line: what went wrong, where, and what was kept.
    public var description: String {
        let kept = imported.isEmpty ? "" : "; the \(imported.count) workout(s) of earlier activities were imported and kept"
        switch self {
        case let .read(error, _):
            return "\(error)\(kept)"
        case let .save(file, offset, error, _):
            return "\(file): byte \(offset): the activity was not saved: \(error)\(kept)"
        case let .invalidRecord(file, offset, reason, _):
            return "\(file): byte \(offset): invalid record (strict): \(reason); the activity was not saved\(kept)"
        case let .cancelled(file, _):
            return "\(file): import cancelled\(kept)"
        }
    }
}
