/// Something a ``WorkoutSession`` found wrong with what its sources gave it, and what it did about
/// it. Each is counted, live in ``WorkoutSession/Statistics/inputIssues`` and in the saved
/// workout's metadata (the key `input.<raw value>`, the count as its value).
///
/// Receivers send fixes without a time before they know the date, repeat or reorder fixes, report
/// dates 1024 weeks early after a GPS week rollover, and jump when they lose the sky; sensors
/// repeat samples. None of it ends a recording: each kind of input has a rule (see
/// ``FixRules``), and the rule's outcome is one of three.
public enum InputIssue: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A fix without a time, after a timed one: placed on the session's time line at the last
    /// fix's time plus the time between their arrivals (at least a millisecond after it). Kept.
    case fixWithoutTime = "fix_without_time"
    /// A fix without a time before any timed fix: there is nothing to place it by. Dropped.
    case fixWithoutTimeBeforeFirst = "fix_without_time_before_first"
    /// Another report of the fix just taken (the same time): gpsd sends one after each sentence
    /// of a receiver's cycle. Merged into that fix: what the later report says wins, what it lacks
    /// the earlier says.
    case fixSameTime = "fix_same_time"
    /// A fix whose time is not after the last fix taken (time going backwards, or a repeat of a
    /// fix already taken). Dropped.
    case fixNotAfterLast = "fix_not_after_last"
    /// A fix dated a multiple of 1024 weeks early or late (a GPS week rollover), moved by that
    /// multiple to within a day of the session's time line or of the system clock. Corrected.
    case weekRollover = "week_rollover"
    /// A fix dated more than a day ahead of the session's time line, and not by a rollover; or
    /// dated more than 10 minutes ahead of the fix after it, which goes back to the time line (a
    /// misdated fix, two recordings spliced): a session never spans more than its fixes'
    /// plausible time. Dropped.
    case implausibleTime = "implausible_time"
    /// A fix with a coordinate out of range or a measurement that is not a finite number. Dropped.
    case invalidFix = "invalid_fix"
    /// A fix further from the last accurate one than the activity can go in the time between
    /// them (``FixRules/maximumSpeed``): the route starts a new segment there, and the jump
    /// adds no distance. Kept.
    case jump
    /// A fix whose horizontal accuracy is worse than ``FixRules/maximumHorizontalAccuracy``:
    /// kept as a route point, but not counted for distance, elevation or auto-pause.
    case inaccurate
    /// A sample not after the last sample of its type (a sensor repeating itself, or two sensors
    /// measuring the same thing at the same time). Dropped.
    case sampleNotAfterLast = "sample_not_after_last"
    /// A sample that came before the first fix: the workout begins at its first fix. Dropped,
    /// and it does not decide which samples come after it (one dated by a clock the fixes have
    /// not yet set, as a sensor's is on a machine without a real-time clock, would otherwise
    /// have every later sample of its type dropped as not after it).
    case sampleBeforeFirstFix = "sample_before_first_fix"
    /// A sample whose value is not a finite number, or negative where its type cannot be (or
    /// that the store refused). Dropped.
    case invalidSample = "invalid_sample"
    /// A fix or sample that came while the session held as much unwritten data as it may
    /// (``WorkoutSession/Configuration/maximumHeldPoints``) because the store was failing. Dropped.
    case backlogFull = "backlog_full"

    /// What the session did with such input.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// Taken as it came (with a note: a new segment, not counted as distance...).
        case kept
        /// Taken with its time corrected.
        case corrected
        /// Left out.
        case dropped
    }

    /// What the session did with such input.
    public var outcome: Outcome {
        switch self {
        case .fixWithoutTime, .jump, .inaccurate: .kept
        case .weekRollover, .fixSameTime: .corrected
        case .fixWithoutTimeBeforeFirst, .fixNotAfterLast, .implausibleTime, .invalidFix, .sampleNotAfterLast,
             .sampleBeforeFirstFix, .invalidSample, .backlogFull: .dropped
        }
    }

    /// Whether it is about a fix (the others are about samples, or both).
    public var isAboutFixes: Bool {
        switch self {
        case .sampleNotAfterLast, .sampleBeforeFirstFix, .invalidSample, .backlogFull: false
        default: true
        }
    }

    /// The kind of input and what was done, in words: "fixes without a time, placed by when they arrived".
    public var description: String {
        switch self {
        case .fixWithoutTime: "fixes without a time, placed on the time line by when they arrived"
        case .fixWithoutTimeBeforeFirst: "fixes without a time before the first timed fix, dropped"
        case .fixSameTime: "reports of a fix already taken (the same time), merged into it"
        case .fixNotAfterLast: "fixes not after the fix before them, dropped"
        case .weekRollover: "fixes dated by a GPS week rollover, corrected"
        case .implausibleTime: "fixes dated implausibly (a day ahead of the recording, or far ahead of the fix after them), dropped"
        case .invalidFix: "fixes with an impossible coordinate or measurement, dropped"
        case .jump: "jumps faster than the activity allows, not counted as distance"
        case .inaccurate: "fixes less accurate than the limit, not counted as distance"
        case .sampleNotAfterLast: "samples not after the sample before them, dropped"
        case .sampleBeforeFirstFix: "samples before the first fix, dropped"
        case .invalidSample: "samples with an impossible value, dropped"
        case .backlogFull: "fixes and samples that came while the store was failing and the session held all it may, dropped"
        }
    }

    /// The key of its count in a saved workout's metadata: `input.fix_without_time`.
    public var metadataKey: String {
        "input." + rawValue
    }
}
