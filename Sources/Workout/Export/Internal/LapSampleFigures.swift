import Foundation

/// The figures of each lap's samples, gathered as a FIT export streams the workout by, so that it
/// need not read the workout a second time through ``WorkoutStore/laps(of:)``. The laps are the
/// time line's: the first begins at the workout's start, each lap event after it ends one, the
/// last ends at the workout's end; a sample belongs to the lap its start lies in (one at a lap's
/// end to the lap after it), as ``WorkoutStore/laps(of:)`` gives them. The export checks
/// that its laps are the time line's (``matches(_:)``), and reads them from the store otherwise.
struct LapSampleFigures {
    /// The lap events' times, in order.
    private let lapEvents: [Double]
    /// Where the laps begin: the workout's start, then each lap event after it.
    private var starts: [Double] = []
    private var nextEvent = 0
    private var index = 0
    /// Each lap's figures, by type.
    private(set) var figures: [[QuantityType: SampleFigures]] = []

    init(events: [WorkoutEvent]) {
        lapEvents = events.filter { $0.kind == .lap }.map(\.time.timeIntervalSince1970)
    }

    /// The time line begins at `time`, the workout's start (call once, before any sample).
    mutating func begin(at time: Double) {
        guard starts.isEmpty else { return }
        starts = [time] + lapEvents.filter { $0 > time }
        figures = Array(repeating: [:], count: starts.count)
    }

    /// Adds a sample: to the lap its start lies in (none before the first lap).
    mutating func add(_ sample: QuantitySample) {
        guard !starts.isEmpty else { return }
        let start = sample.start.timeIntervalSince1970
        // Lap i ends where lap i + 1 begins; the last lap ends at the workout's end.
        while index < starts.count - 1, start >= starts[index + 1] { index += 1 }
        guard start >= starts[index] else { return }
        figures[index][sample.type].add(sample)
    }

    /// Whether `laps` (the time line's, finished) begin where these do, one for one.
    func matches(_ laps: [WorkoutLap]) -> Bool {
        laps.count == starts.count && zip(laps, starts).allSatisfy { $0.start.timeIntervalSince1970 == $1 }
    }
}
