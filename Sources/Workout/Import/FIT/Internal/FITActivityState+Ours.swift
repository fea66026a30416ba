import FIT
import Foundation

/// What a FIT file says beyond its records: our own export's fields (``FITWorkoutFields``) and
/// the beat-to-beat intervals of its `hrv` messages.
extension FITActivityState {
    /// Takes a `developer_data_id`: ours makes the file our own export.
    mutating func developer(_ message: FITMessage) {
        guard ourIndex == nil, let index = message.integer(3), let id = message.rawBytes(1),
              Array(id) == FITWorkoutFields.applicationID else { return }
        ourIndex = UInt8(truncatingIfNeeded: index)
    }

    /// Takes an `event` message of our own export carrying our `workout_event` field: the event
    /// exactly. Returns `false` for another event.
    mutating func ourEvent(_ message: FITMessage, time: Double?) -> Bool {
        let values = FITWorkoutFields.values(of: message, ourIndex: ourIndex)
        guard case let .string(kindName)? = values[FITWorkoutFields.workoutEvent.number], let time else { return ourIndex != nil }
        let exact = FITWorkoutFields.time(time, milliseconds: values[FITWorkoutFields.timestampMilliseconds.number]?.number)
        if kindName == FITWorkoutFields.workoutStart {
            // The workout's start: the time line begins there, before its first record, counting
            // the distance as the workout did.
            var source: String?
            if case let .string(text)? = values[FITWorkoutFields.distanceSource.number] { source = text }
            counting = WorkoutEnvelope.DistanceCounting(source: source, sensorFactor: values[FITWorkoutFields.sensorFactor.number]?.number)
            isIndoor = values[FITWorkoutFields.indoor.number]?.number.flatMap { $0 == 1 ? true : $0 == 0 ? false : nil }
            if assembler.moments == 0 {
                if let counting { assembler.countDistance(as: counting.source) }
                assembler.begin(at: exact)
            }
            return true
        }
        guard let kind = WorkoutEvent.Kind(rawValue: kindName) else { return true }
        var name: String?
        if case let .string(text)? = values[FITWorkoutFields.markerName.number] { name = text }
        let trigger: WorkoutEvent.LapTrigger? = switch message.integer(3) {
        case 0?: .manual
        case 1?: .time
        case 2?: .distance
        default: nil
        }
        assembler.event(WorkoutEvent(
            kind, at: Date(timeIntervalSince1970: exact), name: kind == .marker ? name : nil, trigger: kind == .lap ? trigger : nil))
        return true
    }

    /// Takes a `session` of our own export: the workout's header.
    mutating func ourSession(_ message: FITMessage, start: Double?, end: Double?) {
        let values = FITWorkoutFields.values(of: message, ourIndex: ourIndex)
        guard header == nil, case let .string(text)? = values[FITWorkoutFields.workoutID.number], let id = UUID(uuidString: text),
              let start, let end else { return }
        header = WorkoutEnvelope.Header(
            id: id,
            start: Date(timeIntervalSince1970: FITWorkoutFields.time(start, milliseconds: values[FITWorkoutFields.startTimeMilliseconds.number]?.number)),
            end: Date(timeIntervalSince1970: FITWorkoutFields.time(end, milliseconds: values[FITWorkoutFields.timestampMilliseconds.number]?.number)),
            autoPause: values[FITWorkoutFields.autoPause.number]?.number == 1, counting: counting, isIndoor: isIndoor)
    }

    /// Whether a record of our own export begins a route segment (our `segment` field).
    func beginsSegment(_ record: FITRecord) -> Bool {
        guard let ourIndex else { return false }
        return record.developerValues.contains { $0.field.developerIndex == ourIndex && $0.field.number == FITWorkoutFields.segment.number }
    }

    /// Takes an `hrv` message: its intervals (seconds, invalid ones skipped), each ending where
    /// the next begins, the first ending at our `beat_time` when the file is ours, else where the
    /// one before it ended: the beats of a Garmin device's file run on from the activity's first
    /// timer start (or its first record).
    mutating func hrv(_ message: FITMessage, offset: Int) {
        let values = FITWorkoutFields.values(of: message, ourIndex: ourIndex)
        if let seconds = values[FITWorkoutFields.beatTime.number]?.number, let beat = FITTime.seconds(since1970: UInt32(clamping: Int64(seconds))) {
            beats.next = FITWorkoutFields.time(beat, milliseconds: values[FITWorkoutFields.beatTimeMilliseconds.number]?.number)
            beats.anchored = true
        }
        guard let field = message.definition.field(0) else { return }
        var first = true
        for index in 0..<field.count {
            guard let interval = message.number(0, scale: 1000, index: index), interval > 0 else { continue }
            if first, beats.anchored {
                beats.take(interval, endingAt: beats.next ?? 0)
            } else if let end = beats.next.map({ $0 + interval }) ?? beats.base.map({ $0 + interval }) {
                beats.take(interval, endingAt: end)
            } else {
                assembler.skip(offset, "a beat-to-beat interval comes before the activity's first timer start or record: its time is not known; it was dropped")
            }
            first = false
        }
        beats.anchored = false
    }

    /// The intervals that lie between the first record and `until` (the last record so far; the
    /// workout's end at its end, with `start` its start), as samples; those of an ended activity
    /// outside it are reported and dropped.
    mutating func releaseBeats(until: Double, start: Double? = nil, ending: Bool = false) -> [QuantitySample] {
        guard let from = start ?? assembler.firstTime else { return [] }
        var released: [QuantitySample] = []
        while let beat = beats.first, ending || beat.end <= until {
            beats.removeFirst()
            if beat.end - beat.value >= from, beat.end <= until {
                released.append(QuantitySample(
                    type: .heartbeatInterval, value: beat.value, start: Date(timeIntervalSince1970: beat.end - beat.value),
                    end: Date(timeIntervalSince1970: beat.end)))
            } else {
                beats.outside += 1
            }
        }
        assembler.countSamples(released.count)
        if ending, beats.outside > 0 {
            assembler.skip(offset, "\(beats.outside) beat-to-beat intervals lie outside the activity's records and were dropped")
        }
        return released
    }
}

/// The beat-to-beat intervals of an activity being read.
struct PendingBeats {
    /// When the activity's beats begin, for a file that does not say: its first timer start, or first record.
    var base: Double?
    /// Where the next interval ends, once one was read.
    var next: Double?
    /// The message being read gave its first beat's time.
    var anchored = false
    /// Intervals read and not yet written, in order from `head`: where each ends, and its length.
    private var pending: [(end: Double, value: Double)] = []
    private var head = 0
    /// Intervals dropped for lying outside the workout.
    var outside = 0

    /// The first interval not yet written.
    var first: (end: Double, value: Double)? {
        head < pending.count ? pending[head] : nil
    }

    mutating func removeFirst() {
        head += 1
        if head == pending.count || head >= 4_096 {
            pending.removeFirst(head)
            head = 0
        }
    }

    mutating func take(_ value: Double, endingAt end: Double) {
        next = end
        pending.append((end, value))
    }
}
