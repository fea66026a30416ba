import Foundation

/// What ``GPXImporter`` did with one file: a workout per track, the tracks it could not use, and
/// everything it skipped, with lines.
public struct GPXImportReport: Sendable {
    /// The file, as given.
    public var file: String
    /// One entry per track that became (or already was) a workout, in file order.
    public var workouts: [ImportedWorkout]
    /// Tracks that could not become a workout (no point with a valid time), with the reason.
    public var tracksNotImported: [TrackNotImported]
    /// Points and values skipped outside any track (waypoints, routes).
    public var skippedOutsideTracks: [GPXSkip]
    /// What the reader counted: tracks, points, routes, waypoints, encoding, compression.
    public var read: GPXReadSummary

    /// The workouts this import saved (not those the store already held).
    public var saved: [ImportedWorkout] {
        workouts.filter { if case .saved = $0.outcome { true } else { false } }
    }
}

/// One track of a GPX file (or one activity of a TCX file), as a workout of the store.
public struct ImportedWorkout: Sendable {
    /// The workout as read from the file. When ``outcome`` is `alreadySaved`, the stored
    /// workout has the id ``SaveOutcome/workoutID``, not this value's.
    public var workout: WorkoutRecord
    /// Saved now, or found in the store already (the same track imported before).
    public var outcome: SaveOutcome
    /// The track's position among the file's tracks, from 0.
    public var trackIndex: Int
    /// The track's `<name>`.
    public var trackName: String?
    /// The line of the track's `<trk>`.
    public var trackLine: Int
    /// Route points stored: the track's valid, time-ordered points, exact duplicates dropped.
    public var points: Int
    /// Points dropped as exact duplicates of a point kept at the same time (same position and elevation).
    public var duplicatesDropped: Int
    /// Route segments.
    public var segments: Int
    /// Quantity samples taken from the points' extensions (heart rate, cadence, power, temperature).
    public var samples: Int
    /// Elevation gain summed over every rise (metres); GPS noise makes this larger than the
    /// smoothed figure stored in ``WorkoutTotals/elevationGain``.
    public var rawElevationGain: Double
    /// Mean and maximum heart rate of the points that have one, beats per minute.
    public var heartRateAverage: Double?
    public var heartRateMaximum: Double?
    /// The track's points and values the reader or the importer skipped, in file order.
    public var skipped: [GPXSkip]
    /// A TCX activity's laps (one more than the lap events saved); `nil` for a GPX track.
    public var laps: Int?
    /// A TCX activity's pauses by the user (a new `<Track>` within a lap, or our own export's
    /// pause events); `nil` for a GPX track.
    public var pauses: Int?
    /// A TCX activity's stops (our own export's auto-pause events); `nil` for a GPX track.
    public var stops: Int?
    /// A TCX activity's totals as its laps give them (also kept in the workout's metadata).
    public var deviceTotals: DeviceTotals?

    /// The id the workout has in the store.
    public var workoutID: UUID { outcome.workoutID }

    /// Whether this import saved it (`false`: the store held it already).
    public var isNew: Bool {
        if case .saved = outcome { true } else { false }
    }
}

/// A track that did not become a workout.
public struct TrackNotImported: Sendable, Hashable, CustomStringConvertible {
    public var trackIndex: Int
    public var trackName: String?
    /// The line of its `<trk>`.
    public var line: Int
    public var reason: String
    /// Its points the reader or the importer skipped, with their lines and why.
    public var skipped: [GPXSkip] = []

    public var description: String {
        "line \(line): track \(trackIndex + 1)\(trackName.map { " \"\($0)\"" } ?? "") not imported: \(reason)"
    }
}

/// How ``GPXImporter`` imports: the options every importer takes.
public typealias GPXImportOptions = WorkoutImportOptions

/// Why ``GPXImporter`` stopped. Workouts of the tracks finished before the failure stay saved;
/// each case lists them (their ``ImportedWorkout/skipped`` then holds the importer's own skips:
/// the reader's are reported at the end of a read that completes).
public enum GPXImportError: Error, Sendable, CustomStringConvertible {
    /// The file could not be read, or is not well-formed GPX, or (strict mode) holds an invalid
    /// value: the error names the file, line and column.
    case read(GPXError, imported: [ImportedWorkout])
    /// The store refused or failed to save the workout of track `trackIndex`; `line` is the
    /// refused point's line when the store named one, else the track's `<trk>` line.
    case save(file: String, trackIndex: Int, line: Int, WorkoutStoreError, imported: [ImportedWorkout])
    /// The importing task was cancelled; the track being read was not saved.
    case cancelled(file: String, imported: [ImportedWorkout])

    /// The workouts imported before the failure (kept in the store).
    public var imported: [ImportedWorkout] {
        switch self {
        case let .read(_, imported), let .save(_, _, _, _, imported), let .cancelled(_, imported): imported
        }
    }

    public var description: String {
        let kept = imported.isEmpty ? "" : "; the \(imported.count) workout(s) of earlier tracks were imported and kept"
        switch self {
        case let .read(error, _):
            return "\(error)\(kept)"
        case let .save(file, track, line, error, _):
            return "\(file):\(line): track \(track + 1) was not saved: \(error)\(kept)"
        case let .cancelled(file, _):
            return "\(file): import cancelled\(kept)"
        }
    }
}
