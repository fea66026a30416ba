import Foundation

/// The training figures of power and heart rate, worked out as a workout goes: normalized power,
/// intensity factor, training stress score, work, and the time in power and heart-rate zones.
/// The live session feeds it one sample and one event at a time, in bounded memory; the store
/// feeds it a saved workout's samples and events (``WorkoutStore/trainingFigures(of:profile:)``),
/// and the FIT export writes what it gives; so every path gives the same figures.
///
/// The contract:
/// - **Feed in time order**: samples (by their end) and events, each no earlier than the one
///   before. An event dated before what was already fed is taken at the latest time fed. Types
///   other than power and heart rate are ignored, as are events other than `pause` and `resume`.
/// - **The span** is the workout's duration: it begins at `start` (or the first thing fed), runs
///   to the latest time fed (``advance(to:)``, ``finish(at:)``), and leaves out the user's pauses
///   (`pause` ... `resume`), as ``WorkoutTotals/duration`` does. Stops (auto-pause's
///   `motion_paused` ... `motion_resumed`) are kept: the duration keeps them, a hard effort's cost
///   does not end at a traffic light, and an indoor ride has no stops to decide; so the figures do
///   not change with the auto-pause setting.
/// - **The 1-second series**: each sample holds over time as ``SampleFigures`` weighs it (an
///   instantaneous value from the sample before it, at most ``SampleFigures/maximumHold``; a
///   power meter's silence between two readings a zero: ``SampleAveraging``). That time, cut to
///   the span and laid end to end without the pauses, is cut into whole seconds from the span's
///   start; a second's value is the mean of what held over it, and a second over which nothing
///   held (a heart-rate strap's silence, before the first reading, after the last) has none.
/// - **Work** is the integral of power over the time it held (so the mean power of
///   ``SampleFigures`` times its ``SampleFigures/weightedTime`` is the work, zeros included; over
///   a span with pauses, ``SampleFigures`` told of them (``SampleFigures/apply(_:)``) counts no
///   silence in them either, but still weighs the first reading after a pause over the up to
///   10 s before it, which the span leaves out).
///   **Normalized power** is Coggan's, over the 1-second series: the 30 s rolling means from the
///   30th second on, each to the fourth power, their mean, its fourth root. **Intensity factor**
///   is NP / FTP; **training stress score** is `powerTime × NP × IF / (FTP × 3600) × 100`, where
///   `powerTime` is the seconds of power. **Time in zones** adds each second's covered time to the
///   zone of its value; with the seconds without a reading, the zones make the span.
/// - Read ``summary`` at any moment: the second under way counts for what it holds so far.
///
/// ```swift
/// var training = TrainingFigures(profile: TrainingProfile(functionalThresholdPower: 250), start: workout.start)
/// for sample in samples { training.add(sample) }          // and events, in time order
/// training.finish(at: workout.end)
/// print(training.summary.normalizedPower ?? 0, training.summary.trainingStressScore ?? 0)
/// ```
public struct TrainingFigures: Sendable {
    /// What the figures are measured against.
    public let profile: TrainingProfile
    private var clock = SpanClock()
    private var power: SecondSeries
    private var heartRate: SecondSeries
    private var powerHold = SampleHold()
    private var heartRateHold = SampleHold()

    /// The length of the rolling mean normalized power takes, seconds: 30.
    public static let normalizedPowerWindow = 30

    /// Figures against `profile`, over a span that begins at `start` (the workout's start; the
    /// first thing fed when `nil`). Values of the profile that cannot be used
    /// (``TrainingProfile/validate()``) are left out, as if not given.
    public init(profile: TrainingProfile = TrainingProfile(), start: Date? = nil) {
        self.profile = profile
        power = SecondSeries(zones: profile.powerZoneBounds, window: Self.normalizedPowerWindow)
        heartRate = SecondSeries(zones: profile.heartRateZoneBounds, window: nil)
        if let start { clock.begin(at: start.timeIntervalSince1970) }
    }

    /// Takes the next sample (power and heart rate; others are ignored).
    public mutating func add(_ sample: QuantitySample) {
        guard sample.type == .power || sample.type == .heartRate else { return }
        clock.begin(at: sample.start.timeIntervalSince1970)
        clock.advance(to: sample.end.timeIntervalSince1970)
        let pieces = sample.type == .power ? powerHold.take(sample) : heartRateHold.take(sample)
        let spans = clock   // a copy: the parts are added to the series while it is read
        for piece in pieces {
            spans.span(of: piece) { part in
                if sample.type == .power { power.add(part) } else { heartRate.add(part) }
            }
        }
        clock.forget(before: [powerHold.lastEnd, heartRateHold.lastEnd].compactMap { $0 }.min())
    }

    /// Takes the next event: a `pause` stops the span, a `resume` starts it again.
    public mutating func apply(_ event: WorkoutEvent) {
        let time = event.time.timeIntervalSince1970
        clock.begin(at: time)
        switch event.kind {
        case .pause: clock.pause(at: time)
        case .resume: clock.resume(at: time)
        case .lap, .marker, .motionPaused, .motionResumed: clock.advance(to: time)
        }
    }

    /// The span runs to `time` (a fix came, the clock moved): the duration grows with it.
    public mutating func advance(to time: Date) {
        clock.begin(at: time.timeIntervalSince1970)
        clock.advance(to: time.timeIntervalSince1970)
    }

    /// Ends the span at `end` (at least the latest time fed): what samples fed after hold over
    /// later time counts no more (a lap's figures, ended where the next lap begins, take the
    /// sample that ends the lap's last second).
    public mutating func finish(at end: Date) {
        advance(to: end)
        clock.pause(at: max(end.timeIntervalSince1970, clock.now ?? end.timeIntervalSince1970))
        clock.close()
    }

    /// The figures now.
    public var summary: TrainingSummary {
        let power = power.closed(), heartRate = heartRate.closed()
        let duration = clock.duration
        let ftp = profile.usableFTP
        let normalized = power.normalizedPower
        let intensity = normalized.flatMap { normalized in ftp.map { normalized / $0 } }
        let stress = intensity.flatMap { intensity in
            normalized.flatMap { normalized in ftp.map { power.recorded * normalized * intensity / ($0 * 3600) * 100 } }
        }
        return TrainingSummary(
            profile: profile, duration: duration, powerTime: power.recorded, heartRateTime: heartRate.recorded,
            normalizedPower: normalized, intensityFactor: intensity, trainingStressScore: stress,
            work: power.recorded > 0 ? power.integral / 1000 : nil,
            powerZones: power.recorded > 0 ? power.zoneTimes(span: duration) : nil,
            heartRateZones: heartRate.recorded > 0 ? heartRate.zoneTimes(span: duration) : nil)
    }
}

/// The span's clock: the workout's time less the user's pauses, and where a stretch of time falls
/// on it.
struct SpanClock: Sendable {
    /// A stretch of the span: from a start or resume (`from`, seconds since 1970, at `spanFrom`
    /// seconds into the span) to a pause (`to`; open while running).
    private struct Stretch: Sendable {
        var from: Double
        var spanFrom: Double
        var to: Double?
    }

    private(set) var start: Double?
    private(set) var now: Double?
    /// The stretches samples may still fall in (older ones are forgotten).
    private var stretches: [Stretch] = []
    /// The span's seconds up to the last pause.
    private var closedSpan = 0.0
    private var isClosed = false

    mutating func begin(at time: Double) {
        guard start == nil else { return }
        start = time
        now = time
        stretches = [Stretch(from: time, spanFrom: 0)]
    }

    mutating func advance(to time: Double) {
        now = max(now ?? time, time)
    }

    var isRunning: Bool { stretches.last.map { $0.to == nil } ?? false }

    mutating func pause(at time: Double) {
        let time = max(time, now ?? time)
        advance(to: time)
        guard let last = stretches.indices.last, stretches[last].to == nil else { return }
        stretches[last].to = time
        closedSpan += time - stretches[last].from
    }

    mutating func resume(at time: Double) {
        let time = max(time, now ?? time)
        advance(to: time)
        guard !isClosed, !isRunning else { return }
        stretches.append(Stretch(from: time, spanFrom: closedSpan))
    }

    /// No resume opens the span again.
    mutating func close() { isClosed = true }

    /// The span's seconds so far.
    var duration: Double {
        guard let last = stretches.last, last.to == nil, let now else { return closedSpan }
        return closedSpan + max(0, now - last.from)
    }

    /// Where `piece` falls on the span: `body` takes its parts in the stretches, in order, as span seconds.
    func span(of piece: SampleHold.Piece, _ body: (SampleHold.Piece) -> Void) {
        for stretch in stretches {
            let from = max(piece.from, stretch.from), to = min(piece.to, stretch.to ?? piece.to)
            guard to > from else { continue }
            body(SampleHold.Piece(from: stretch.spanFrom + from - stretch.from, to: stretch.spanFrom + to - stretch.from, value: piece.value))
        }
    }

    /// Forgets the stretches that ended before `time` (no sample can fall in them again).
    mutating func forget(before time: Double?) {
        guard let time, stretches.count > 1 else { return }
        stretches.removeAll { stretch in stretch.to.map { $0 < time } ?? false }
    }
}
