import Foundation

/// The samples of one type handed to the route points of a GPX export, as the points stream by:
/// each point carries the sample **nearest its time within its interval**, the time it stands
/// for: from halfway to the point before to halfway to the point after, and no more than
/// ``reach`` either side of it. The value written was measured (never made up by interpolation);
/// a point whose interval holds no sample carries none.
///
/// Read back, each value stands for its point's interval, so the mean of the values on the points
/// is the mean of the workout's over the time its points cover, to the rounding of the format
/// (GPX heart rates and cadences are whole numbers): a strap read between fixes, as every real
/// strap is, no longer leaves its values out.
///
/// Every other sample (one of several in an interval, one in no interval: during a pause the
/// export leaves out, of a type no point can carry) is an **extra**, written in our own extension
/// on the point it comes with (the point whose interval it lies in or comes before; the last point
/// for those after it), so our import reads back every sample the workout holds.
///
/// Points and samples are taken in time order, in one pass. The GPX export gives every sample at
/// once; the FIT export (``RecordMoments``) feeds them as it reads them (``append(_:)``), ahead of
/// the points that take them, and forgets those taken (``forget(before:)``), so its memory stays
/// a batch whatever the workout's length.
struct PointSampler {
    typealias Sample = (start: Double, end: Double, value: Double)

    /// The most a point's interval reaches from its time, seconds: past a pause or a gap in the
    /// fixes, a point does not take a sample from far away.
    static let reach = 5.0

    let type: QuantityType
    /// Whether a point carries this type's value (heart rate, cadence, power, temperature), or
    /// every sample of it is an extra.
    let onPoints: Bool
    private var samples: [Sample]
    /// Samples forgotten from the front of ``samples``: the index, counted from the first sample
    /// given, of `samples[0]`.
    private var forgotten = 0
    /// The first sample in ``samples`` not yet taken.
    private var next = 0
    /// Samples written on a point so far.
    private(set) var matched = 0

    /// Takes the samples of `type`, sorted by start unless they already are.
    init(type: QuantityType, samples: [Sample], onPoints: Bool) {
        self.type = type
        self.onPoints = onPoints
        let ordered = zip(samples, samples.dropFirst()).allSatisfy { $0.start <= $1.start }
        self.samples = ordered ? samples : samples.sorted { $0.start < $1.start }
    }

    /// How many samples were given (at ``init(type:samples:onPoints:)`` and ``append(_:)``).
    var count: Int { forgotten + samples.count }

    /// The start of the last sample given, if any.
    var lastStart: Double? { samples.last?.start }

    /// Adds samples after those given, in order, none starting before the last of them.
    mutating func append(contentsOf more: some Collection<Sample>) {
        samples.append(contentsOf: more)
    }

    /// The start of sample `index` (counted from the first given), if it was given and is not forgotten.
    func start(ofSample index: Int) -> Double? {
        let local = index - forgotten
        return local >= 0 && local < samples.count ? samples[local].start : nil
    }

    /// Forgets the samples taken before sample `index` (counted from the first given), once there
    /// are enough of them to be worth moving the rest.
    mutating func forget(before index: Int) {
        let count = min(next, index - forgotten)
        guard count >= 4_096, count * 2 >= samples.count else { return }
        samples.removeFirst(count)
        forgotten += count
        next -= count
    }

    /// The interval of a point at `time` between its neighbours' times (`nil` for none), as
    /// ``take(at:from:to:isLast:extras:)`` takes it.
    static func interval(at time: Double, previous: Double?, next: Double?) -> (from: Double, to: Double) {
        let from = max(time - reach, previous.map { ($0 + time) / 2 } ?? -.infinity)
        let to = min(time + reach, next.map { (time + $0) / 2 } ?? .infinity)
        return (from, to)
    }

    /// The sample for a point at `time` whose interval is `from..<to`: the one nearest it in the
    /// interval (when points carry this type). The samples before `to` that it does not take (and,
    /// for the last point, all those after it) are appended to `extras`. Call with the points'
    /// intervals in order, once every sample that starts before `to` (for the last point, every
    /// sample) was given.
    mutating func take(at time: Double, from: Double, to: Double, isLast: Bool, extras: inout [Sample]) -> Sample? {
        var best: Int?
        let first = next
        while next < samples.count, isLast || samples[next].start < to {
            let start = samples[next].start
            if onPoints, start >= from, start < to || isLast && start == to,
               best == nil || abs(start - time) < abs(samples[best!].start - time) {
                best = next
            }
            next += 1
        }
        for index in first..<next where index != best { extras.append(samples[index]) }
        guard let best else { return nil }
        matched += 1
        return samples[best]
    }
}
