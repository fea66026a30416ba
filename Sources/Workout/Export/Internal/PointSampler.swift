import Foundation

/// The samples of one type handed to the route points of a GPX export, as the points stream by:
/// each point carries the sample **nearest its time within its interval**, the time it stands
/// for: from halfway to the point before to halfway to the point after, and no more than
/// ``reach`` either side of it. The value written was measured (never made up by interpolation);
/// a point whose interval holds no sample carries none; a sample in a point's interval that
/// another sample beat to it, or in no point's interval (during a pause the export leaves out),
/// is not written and is counted in ``unmatched``.
///
/// Read back, each value stands for its point's interval, so the mean of the file's values is
/// the mean of the workout's over the time its points cover, to the rounding of the format (GPX
/// heart rates and cadences are whole numbers): a strap read between fixes, as every real strap
/// is, no longer leaves its values out.
///
/// Points and samples are taken in time order, in one pass.
struct PointSampler {
    /// The most a point's interval reaches from its time, seconds: past a pause or a gap in the
    /// fixes, a point does not take a sample from far away.
    static let reach = 5.0

    private let times: [Double]
    private let values: [Double]
    private var next = 0
    /// Samples written on a point so far.
    private(set) var matched = 0

    /// Takes the samples' starts and values (sorted by start unless they already are).
    init(_ samples: [(start: Double, value: Double)]) {
        let ordered = zip(samples, samples.dropFirst()).allSatisfy { $0.start <= $1.start }
        let sorted = ordered ? samples : samples.sorted { $0.start < $1.start }
        times = sorted.map(\.start)
        values = sorted.map(\.value)
    }

    /// How many samples there are.
    var count: Int { times.count }
    /// Samples not written (all of them, until the points have all gone by).
    var unmatched: Int { times.count - matched }

    /// The interval of a point at `time` between its neighbours' times (`nil` for none), as
    /// ``value(at:from:to:)`` takes it.
    static func interval(at time: Double, previous: Double?, next: Double?) -> (from: Double, to: Double) {
        let from = max(time - reach, previous.map { ($0 + time) / 2 } ?? -.infinity)
        let to = min(time + reach, next.map { (time + $0) / 2 } ?? .infinity)
        return (from, to)
    }

    /// The value of the sample nearest `time` among those in `from..<to` (with `to` included for
    /// the last point: `closed`). Call with the points' intervals in order; each sample is looked
    /// at once.
    mutating func value(at time: Double, from: Double, to: Double, closed: Bool = false) -> Double? {
        while next < times.count, times[next] < from { next += 1 }
        var best: Int?
        while next < times.count, times[next] < to || (closed && times[next] == to) {
            if best == nil || abs(times[next] - time) < abs(times[best!] - time) { best = next }
            next += 1
        }
        guard let best else { return nil }
        matched += 1
        return values[best]
    }
}
