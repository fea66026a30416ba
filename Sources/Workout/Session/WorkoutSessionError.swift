import Foundation

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
            "The workout session could not be saved (tried for \(SecondsText.of(waited))): \(error) "
                + "Nothing is lost: the session is kept"
                + (unwritten > 0 ? ", holding \(unwritten) \(unwritten == 1 ? "point or sample" : "points and samples") not yet written," : "")
                + " and end() can be tried again; what it wrote stays in the store, and if this program ends first, "
                + "`workout recover --end` (WorkoutStore.end(_:)) saves it as a workout."
        }
    }
}

/// A duration in seconds, for messages: `60 s`, `2.5 s`.
enum SecondsText {
    static func of(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
