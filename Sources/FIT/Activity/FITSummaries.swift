/// The totals a `lap` (19) or `session` (18) message gives, read with the profile's scales: the
/// figures the device worked out itself.
///
/// ```swift
/// if let lap = FITTotals(message), let distance = lap.distance { print("lap: \(distance) m") }
/// ```
public struct FITTotals: Sendable, Hashable {
    /// Whether it is a `lap` or a `session`.
    public enum Kind: Sendable, Hashable {
        /// A `lap` message.
        case lap
        /// A `session` message.
        case session
    }

    /// Lap or session.
    public var kind: Kind
    /// The message's offset in the input.
    public var offset: Int
    /// `message_index`: the lap's or session's number, from 0.
    public var index: Int?
    /// When it began and ended (its `timestamp`), seconds since 1970.
    public var start: Double?
    /// When it ended (its `timestamp`), seconds since 1970.
    public var end: Double?
    /// `total_elapsed_time` and `total_timer_time` (timer stopped during pauses), seconds.
    public var elapsedTime: Double?
    /// `total_timer_time`, seconds.
    public var timerTime: Double?
    /// `total_moving_time` (sessions), seconds.
    public var movingTime: Double?
    /// `total_distance`, metres.
    public var distance: Double?
    /// `total_ascent` and `total_descent`, metres.
    public var ascent: Double?
    /// `total_descent`, metres.
    public var descent: Double?
    /// `total_calories`, kilocalories.
    public var calories: Double?
    /// Average and maximum speed (enhanced when given), m/s.
    public var averageSpeed: Double?
    /// Maximum speed (enhanced when given), m/s.
    public var maximumSpeed: Double?
    /// Average and maximum heart rate, bpm.
    public var averageHeartRate: Double?
    /// Maximum heart rate, bpm.
    public var maximumHeartRate: Double?
    /// Average and maximum cadence, rpm.
    public var averageCadence: Double?
    /// Maximum cadence, rpm.
    public var maximumCadence: Double?
    /// Average and maximum power, W.
    public var averagePower: Double?
    /// Maximum power, W.
    public var maximumPower: Double?
    /// `normalized_power` (the device's, Coggan's), W.
    public var normalizedPower: Double?
    /// `total_work`, joules.
    public var work: Double?
    /// A session's `training_stress_score`.
    public var trainingStressScore: Double?
    /// A session's `intensity_factor`.
    public var intensityFactor: Double?
    /// A session's `threshold_power`: the FTP the device measured against, W.
    public var thresholdPower: Double?
    /// `sport` and `sub_sport` (see ``FITSport``).
    public var sport: UInt8?
    /// `sub_sport`.
    public var subSport: UInt8?
    /// A lap's `lap_trigger`: 0 manual, 1 time, 2 distance, 3-6 position, 7 session end, 8 fitness equipment.
    public var lapTrigger: UInt8?
    /// A session's `first_lap_index` and `num_laps`.
    public var firstLapIndex: Int?
    /// A session's `num_laps`.
    public var lapCount: Int?

    /// Totals of `kind` (for writers and tests).
    public init(kind: Kind, offset: Int = 0) {
        self.kind = kind
        self.offset = offset
    }

    /// The totals a `lap` or `session` message holds; `nil` for any other message.
    public init?(_ message: FITMessage) {
        let isLap = message.globalNumber == FITMessageNumber.lap
        guard isLap || message.globalNumber == FITMessageNumber.session else { return nil }
        kind = isLap ? .lap : .session
        offset = message.offset
        index = message.integer(FITField.messageIndex).map(Int.init)
        start = message.integer(2).flatMap { FITTime.seconds(since1970: UInt32(truncatingIfNeeded: $0)) }
        end = message.timestamp.flatMap(FITTime.seconds(since1970:))
        elapsedTime = message.number(7, scale: 1000)
        timerTime = message.number(8, scale: 1000)
        distance = message.number(9, scale: 100)
        calories = message.number(11)
        if isLap {
            averageSpeed = message.number(110, scale: 1000) ?? message.number(13, scale: 1000)
            maximumSpeed = message.number(111, scale: 1000) ?? message.number(14, scale: 1000)
            (averageHeartRate, maximumHeartRate) = (message.number(15), message.number(16))
            (averageCadence, maximumCadence) = (message.number(17), message.number(18))
            (averagePower, maximumPower) = (message.number(19), message.number(20))
            (ascent, descent) = (message.number(21), message.number(22))
            lapTrigger = message.integer(24).map { UInt8(truncatingIfNeeded: $0) }
            (normalizedPower, work) = (message.number(33), message.number(41))
            sport = message.integer(25).map { UInt8(truncatingIfNeeded: $0) }
        } else {
            sport = message.integer(5).map { UInt8(truncatingIfNeeded: $0) }
            subSport = message.integer(6).map { UInt8(truncatingIfNeeded: $0) }
            averageSpeed = message.number(124, scale: 1000) ?? message.number(14, scale: 1000)
            maximumSpeed = message.number(125, scale: 1000) ?? message.number(15, scale: 1000)
            (averageHeartRate, maximumHeartRate) = (message.number(16), message.number(17))
            (averageCadence, maximumCadence) = (message.number(18), message.number(19))
            (averagePower, maximumPower) = (message.number(20), message.number(21))
            (ascent, descent) = (message.number(22), message.number(23))
            firstLapIndex = message.integer(25).map(Int.init)
            lapCount = message.integer(26).map(Int.init)
            movingTime = message.number(59, scale: 1000)
            (normalizedPower, work) = (message.number(34), message.number(48))
            (trainingStressScore, intensityFactor) = (message.number(35, scale: 10), message.number(36, scale: 1000))
            thresholdPower = message.number(45)
        }
        if start == nil, let end, let elapsedTime { start = end - elapsedTime }
    }
}

/// An `event` message (21): a timer start or stop (what pauses and resumes an activity), and the
/// rest (laps, markers, gear changes...) by number.
public struct FITEventMessage: Sendable, Hashable {
    /// The message's offset in the input.
    public var offset: Int
    /// Its time, seconds since 1970.
    public var time: Double?
    /// `event`: 0 timer, 9 lap, 26 activity, 32 user marker... (``timer``).
    public var event: UInt8?
    /// `event_type`: 0 start, 1 stop, 3 marker, 4 stop all, 8 stop disable, 9 stop disable all.
    public var eventType: UInt8?
    /// `data` (or `data16`): for a timer event, its trigger (0 manual, 1 auto, 2 fitness equipment).
    public var data: Int64?

    /// The `event` value of timer events.
    public static let timer: UInt8 = 0

    /// An event (for writers and tests).
    public init(offset: Int = 0, time: Double?, event: UInt8?, eventType: UInt8?, data: Int64? = nil) {
        self.offset = offset
        self.time = time
        self.event = event
        self.eventType = eventType
        self.data = data
    }

    /// The event an `event` message holds; `nil` for any other message.
    public init?(_ message: FITMessage) {
        guard message.globalNumber == FITMessageNumber.event else { return nil }
        offset = message.offset
        time = message.timestamp.flatMap(FITTime.seconds(since1970:))
        event = message.integer(0).map { UInt8(truncatingIfNeeded: $0) }
        eventType = message.integer(1).map { UInt8(truncatingIfNeeded: $0) }
        data = message.integer(3) ?? message.integer(2)
    }

    /// For a timer event: `true` when it starts the timer, `false` when it stops it, `nil` for any
    /// other event.
    public var startsTimer: Bool? {
        guard event == Self.timer, let eventType else { return nil }
        switch eventType {
        case 0: return true
        case 1, 4, 8, 9: return false
        default: return nil
        }
    }

    /// Whether a timer event was the device's own (auto-pause, auto-resume), not the user's.
    public var isAutomatic: Bool { data == 1 }
}
