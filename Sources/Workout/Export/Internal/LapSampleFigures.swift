import Foundation

/// The figures of each lap's samples, gathered as a FIT export streams the workout by, so that it
/// need not read the workout a second time through ``WorkoutStore/laps(of:)``. The laps are the
/// time line's: the first begins at the workout's start, each lap event after it ends one, the
/// last ends at the workout's end; a sample belongs to the lap its start lies in (one at a lap's
/// end to the lap after it), as ``WorkoutStore/laps(of:)`` gives them. The export checks
/// that its laps are the time line's (``matches(_:)``), and reads them from the store otherwise.
/// Each lap has its ``TrainingFigures`` too, over its own span: fed the sample before it of each
/// type (which holds over nothing in it), its own, and the first after it (which holds over its
/// last seconds), so that the laps' spans make the workout's.
struct LapSampleFigures {
    /// The lap events' times, in order.
    private let lapEvents: [Double]
    /// Where the laps begin: the workout's start, then each lap event after it.
    private var starts: [Double] = []
    private var nextEvent = 0
    private var index = 0
    /// Each lap's figures, by type.
    private(set) var figures: [[QuantityType: SampleFigures]] = []
    /// Each lap's training figures.
    private(set) var training: [TrainingFigures] = []
    private let profile: TrainingProfile
    private let averaging: SampleAveraging
    /// The last sample of each type, to begin the next lap's training figures with.
    private var lastSamples: [QuantityType: QuantitySample] = [:]
    /// Whether the user has paused (a lap that begins in a pause begins paused).
    private var isPaused = false

    init(events: [WorkoutEvent], profile: TrainingProfile = TrainingProfile(), averaging: SampleAveraging = .default) {
        lapEvents = events.filter { $0.kind == .lap }.map(\.time.timeIntervalSince1970)
        self.profile = profile
        self.averaging = averaging
    }

    /// The time line begins at `time`, the workout's start (call once, before any sample).
    mutating func begin(at time: Double) {
        guard starts.isEmpty else { return }
        starts = [time] + lapEvents.filter { $0 > time }
        figures = Array(repeating: [:], count: starts.count)
        training = [TrainingFigures(profile: profile, start: Date(timeIntervalSince1970: time))]
    }

    /// Adds a sample: to the lap its start lies in (none before the first lap).
    mutating func add(_ sample: QuantitySample) {
        guard !starts.isEmpty else { return }
        let start = sample.start.timeIntervalSince1970
        // Lap i ends where lap i + 1 begins; the last lap ends at the workout's end.
        while index < starts.count - 1, start >= starts[index + 1] { nextLap() }
        // The lap before takes it too: it holds over the lap's last seconds (its span ends them).
        if index > 0 { training[index - 1].add(sample) }
        training[index].add(sample)
        lastSamples[sample.type] = sample
        guard start >= starts[index] else { return }
        figures[index][sample.type].add(sample, averaging: averaging)
    }

    /// Takes a pause or resume: the current lap's training figures leave pauses out.
    mutating func apply(_ event: WorkoutEvent) {
        guard !training.isEmpty else { return }
        while index < starts.count - 1, event.time.timeIntervalSince1970 >= starts[index + 1] { nextLap() }
        training[index].apply(event)
        for type in figures[index].keys { figures[index][type]?.apply(event) }
        if event.kind == .pause { isPaused = true }
        if event.kind == .resume { isPaused = false }
    }

    /// Ends the last lap at `end`, the workout's.
    mutating func finish(at end: Double) {
        guard !training.isEmpty else { return }
        training[index].finish(at: Date(timeIntervalSince1970: end))
    }

    /// The next lap begins: the one before ends where it does.
    private mutating func nextLap() {
        index += 1
        let start = Date(timeIntervalSince1970: starts[index])
        training[index - 1].finish(at: start)
        var next = TrainingFigures(profile: profile, start: start)
        if isPaused { next.apply(WorkoutEvent(.pause, at: start)) }
        for sample in lastSamples.values.sorted(by: { $0.end < $1.end }) { next.add(sample) }
        training.append(next)
    }

    /// Whether `laps` (the time line's, finished) begin where these do, one for one.
    func matches(_ laps: [WorkoutLap]) -> Bool {
        laps.count == starts.count && zip(laps, starts).allSatisfy { $0.start.timeIntervalSince1970 == $1 }
    }
}
