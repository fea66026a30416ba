import Foundation

/// The samples of one type, handed to the route points they belong to as the points stream by, in
/// one pass: both are in time order. A sample belongs to the first point whose time is within
/// ``tolerance`` of the sample's start; a sample no point comes that close to is passed over and
/// never written (``unmatched``).
struct SampleAligner {
    /// How far apart, in seconds, a sample's start and a point's time may be and still be the same
    /// instant: half a millisecond, the precision of the times an export writes.
    static let tolerance = 0.000_5

    private let times: [Double]
    private let values: [Double]
    private var next = 0
    /// Samples given to a point so far.
    private(set) var matched = 0

    /// Takes the samples' starts and values, and sorts them by start unless they already are
    /// (as the store's query returns them), to spare a copy.
    init(_ samples: [(start: Double, value: Double)]) {
        let ordered = zip(samples, samples.dropFirst()).allSatisfy { $0.start <= $1.start }
        let sorted = ordered ? samples : samples.sorted { $0.start < $1.start }
        times = sorted.map(\.start)
        values = sorted.map(\.value)
    }

    /// How many samples there are.
    var count: Int { times.count }
    /// Whether there is any sample at all.
    var isEmpty: Bool { times.isEmpty }
    /// Samples no point took (all of them, until the points have all gone by).
    var unmatched: Int { times.count - matched }

    /// The value of the sample at `time`, if one starts within ``tolerance`` of it and no earlier
    /// point took it. Call with the points' times in order.
    mutating func value(at time: Double) -> Double? {
        while next < times.count, times[next] < time - Self.tolerance { next += 1 }
        guard next < times.count, times[next] <= time + Self.tolerance else { return nil }
        defer {
            next += 1
            matched += 1
        }
        return values[next]
    }
}
