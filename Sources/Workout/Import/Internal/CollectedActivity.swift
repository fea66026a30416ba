import Foundation
import WorkoutCore

/// An activity as a collector on the reader's thread saw it (a FIT file's, a TCX `<Activity>`),
/// for the saving task: the workout it makes (its id is the saver's unless the file is our own
/// export), its events and its counts; or why it makes none. `Skip` is the format's way of
/// naming a place (``FITSkip``'s byte offset, `GPXSkip`'s line).
struct CollectedActivity<Skip: Sendable>: Sendable {
    /// Its index in the file: a FIT chain's file, a TCX file's activity.
    var index: Int
    /// Where it starts: a FIT file's byte offset, the line of a TCX `<Activity>`.
    var place: Int
    /// Why it does not become a workout, when it does not.
    var notImported: String?
    var workout: WorkoutRecord
    /// Pauses, resumes and laps, in time order.
    var events: [WorkoutEvent] = []
    var points = 0
    var duplicates = 0
    var segments = 0
    var samples = 0
    var laps = 1
    var pauses = 0
    var stops = 0
    /// The raw sum of the points' climbs (a TCX import reports it; a FIT import does not).
    var rawElevationGain = 0.0
    var heartRateAverage: Double?
    var heartRateMaximum: Double?
    var deviceTotals: DeviceTotals?
    var skipped: [Skip] = []
    /// Whether it is our own export, whose workout's id ``workout`` has.
    var isOurs = false
}
