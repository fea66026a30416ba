import Foundation

/// The timer as the stored pauses leave it: it stops when the workout is first paused (by the
/// user or auto-pause) and starts when neither pauses it any more.
struct TimerState {
    var user = false
    var motion = false

    var isRunning: Bool { !user && !motion }

    /// Takes an event; returns how it changes the timer (starts or stops, by auto-pause or not), if it does.
    mutating func apply(_ event: WorkoutEvent) -> (starts: Bool, automatic: Bool)? {
        let wasRunning = isRunning
        switch event.kind {
        case .pause: user = true
        case .resume: user = false
        case .motionPaused: motion = true
        case .motionResumed: motion = false
        case .lap, .marker: return nil
        }
        guard wasRunning != isRunning else { return nil }
        return (isRunning, event.kind == .motionPaused || event.kind == .motionResumed)
    }
}

/// The stretches a FIT export's timer runs, from each timer start it writes to the stop after it:
/// the `total_timer_time` of the session and of each lap is the time the file's own timer events
/// have it running, so a reader summing them finds the totals the file states.
struct TimerSpans {
    private var spans: [(start: Double, end: Double)] = []
    private var since: Double?

    /// The timer starts at `time` (nothing when it runs already).
    mutating func start(at time: Double) {
        if since == nil { since = time }
    }

    /// The timer stops at `time` (nothing when it is stopped already).
    mutating func stop(at time: Double) {
        guard let since else { return }
        spans.append((since, max(since, time)))
        self.since = nil
    }

    /// The seconds the timer ran in each of `intervals` (in order, as laps are).
    func running(in intervals: [(start: Double, end: Double)]) -> [Double] {
        var first = 0
        return intervals.map { interval in
            while first < spans.count, spans[first].end <= interval.start { first += 1 }
            var total = 0.0
            var index = first
            while index < spans.count, spans[index].start < interval.end {
                total += max(0, min(spans[index].end, interval.end) - max(spans[index].start, interval.start))
                index += 1
            }
            return total
        }
    }
}
