import Foundation
import GPX
import TCX

/// What ``TCXImporter`` did with one file: a workout per activity, the activities and courses it
/// could not use and why, and what the reader skipped.
public struct TCXImportReport: Sendable {
    /// The file, as given.
    public var file: String
    /// One entry per activity that became (or already was) a workout, in file order: its
    /// ``ImportedWorkout/trackIndex`` is the activity's index, ``ImportedWorkout/trackLine`` the
    /// line of its `<Activity>`, with its laps, pauses and the device's totals.
    public var workouts: [ImportedWorkout]
    /// Activities without a point or value to keep, and courses (routes to follow, not
    /// recorded workouts), with the reason.
    public var notImported: [TCXNotImported]
    /// What the reader read, and the points and values it skipped with their lines.
    public var read: TCXReadSummary

    /// The workouts this import saved (not those the store already held).
    public var saved: [ImportedWorkout] {
        workouts.filter(\.isNew)
    }
}

/// An activity or a course of a TCX file that did not become a workout.
public struct TCXNotImported: Sendable, Hashable, CustomStringConvertible {
    /// Whether it is an activity or a course.
    public enum Kind: String, Sendable, Hashable {
        /// An `<Activity>`.
        case activity
        /// A `<Course>`.
        case course
    }

    /// Activity or course.
    public var kind: Kind
    /// Its position among the file's activities (or courses), from 0.
    public var index: Int
    /// A course's `<Name>`.
    public var name: String?
    /// The line of its start tag.
    public var line: Int
    /// Why it was not imported.
    public var reason: String

    /// `line 12: course 1 "Park loop" not imported: ...`.
    public var description: String {
        "line \(line): \(kind.rawValue) \(index + 1)\(name.map { " \"\($0)\"" } ?? "") not imported: \(reason)"
    }
}

/// How ``TCXImporter`` imports: the options every importer takes.
public typealias TCXImportOptions = WorkoutImportOptions

/// Why ``TCXImporter`` stopped. Workouts of the activities finished before the failure stay
/// saved; each case lists them.
public enum TCXImportError: Error, Sendable, CustomStringConvertible {
    /// The file could not be read, is not well-formed TCX, or (strict mode) holds an invalid value:
    /// the error names the file, line and column.
    case read(TCXError, imported: [ImportedWorkout])
    /// The store refused or failed to save the workout of the activity at `line`.
    case save(file: String, line: Int, WorkoutStoreError, imported: [ImportedWorkout])
    /// The importing task was cancelled; the activity being read was not saved.
    case cancelled(file: String, imported: [ImportedWorkout])

    /// The workouts imported before the failure (kept in the store).
    public var imported: [ImportedWorkout] {
        switch self {
        case let .read(_, imported), let .save(_, _, _, imported), let .cancelled(_, imported): imported
        }
    }

    /// One line: what went wrong, where, and what was kept.
    public var description: String {
        let kept = imported.isEmpty ? "" : "; the \(imported.count) workout(s) of earlier activities were imported and kept"
        switch self {
        case let .read(error, _): return "\(error)\(kept)"
        case let .save(file, line, error, _): return "\(file):\(line): the activity was not saved: \(error)\(kept)"
        case let .cancelled(file, _): return "\(file): import cancelled\(kept)"
        }
    }
}
