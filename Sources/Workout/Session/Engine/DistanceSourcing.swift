import Foundation

/// The one place that decides, reading by reading, whether the time line takes a sensor's
/// reading (its distance, and motion judged by it), by the workout's ``DistanceSource``; and that
/// hands the readings on in time order among the fixes.
///
/// With ``DistanceSource/automatic`` a reading counts when it lies in a **gap**: a stretch between
/// two usable fixes (taken, and accurate enough to count) longer than ``gapLimit``, or from the
/// first fix to the first usable one, or after the last one once the readings have gone on past
/// ``gapLimit``; indoors, where no fix is expected, every reading
/// (a reading is placed at its time, a distance at the middle of its interval). To
/// know, a reading waits for the next usable fix (or for a reading past the limit): fed the same
/// fixes and readings in the same time order, live or read back from the store, it decides the
/// same. ``DistanceSource/sensor`` counts every reading, ``DistanceSource/gps`` none.
///
/// It also works out the speed motion is judged by at each reading that counts: the sensor's last
/// speed (a distance over its interval is one; held at most ``holdTime``), raised to the auto-pause threshold while a crank turns or a
/// power is measured (a rider pedalling a trainer whose flywheel reports a low speed is moving);
/// none of them above zero is standing still.
struct DistanceSourcing: Sendable {
    /// The longest stretch without a usable fix, seconds, that the fixes cover alone.
    static let gapLimit = 5.0
    /// How long a speed, cadence or power is taken to hold after it was measured, seconds.
    static let holdTime = 10.0

    let source: DistanceSource
    /// The speed below which auto-pause stops (`nil`: no auto-pause, nothing is judged).
    let threshold: Double?
    /// Whether fixes are expected: outdoors a reading waits for the fix after it; indoors only
    /// for the readings of its time.
    let expectsFixes: Bool

    /// The time of the last usable fix.
    private var lastUsable: Double?
    /// The time of the first fix, usable or not: before the first usable one, the stretch without
    /// one begins there.
    private var firstFix: Double?
    /// Readings since the last usable fix, in time order, waiting for the next one.
    private var held: [SensorReading] = []
    /// The stretch since the last usable fix is known to be a gap (the readings passed the limit).
    private var inGap = false
    /// Whether the stretch that ended at the last usable fix was a gap (for a reading that comes
    /// after that fix but is dated before it).
    private var previousWasGap = false
    private var latestSpeed: (value: Double, time: Double)?
    private var latestCadence: (value: Double, time: Double)?
    private var latestPower: (value: Double, time: Double)?

    init(source: DistanceSource, threshold: Double?, expectsFixes: Bool = true) {
        self.source = source
        self.threshold = threshold
        self.expectsFixes = expectsFixes
    }

    /// Where the stretch without a usable fix began: the last usable fix, or the first fix.
    private var stretchStart: Double? { lastUsable ?? firstFix }

    /// Whether a reading waits (for the next fix, or for the next reading's time).
    var isHolding: Bool { !held.isEmpty }

    /// A fix at `time`, `usable` when it is taken and accurate enough: returns the readings that
    /// come before it, decided (those at its time or later wait on).
    mutating func point(at time: Double, usable: Bool) -> [TimelineReading] {
        if firstFix == nil { firstFix = time }
        guard usable else { return [] }
        let gap = inGap || stretchStart.map { time - $0 > Self.gapLimit } ?? true
        let released = release(before: time, inGap: gap)
        previousWasGap = gap
        lastUsable = time
        inGap = false
        return released
    }

    /// Whether `reading` would end the wait for a fix (it is past ``gapLimit`` after the last
    /// usable one): a fix held elsewhere before it should come first.
    func endsWait(_ reading: SensorReading) -> Bool {
        guard !inGap, let since = stretchStart else { return false }
        return reading.placement - since > Self.gapLimit
    }

    /// A reading (in time order with the other readings, but for those of one time, which come
    /// in any order): returns the readings decided now. Those of a time are decided together,
    /// once a later reading (or a fix, or the end) shows that all of them came: the motion at a
    /// moment is judged by every measure of that moment.
    mutating func take(_ reading: SensorReading) -> [TimelineReading] {
        if let lastUsable, reading.placement < lastUsable {
            // Placed before the last fix, which came first: its stretch is decided.
            return release([reading], inGap: previousWasGap)
        }
        let index = held.lastIndex { $0.placement <= reading.placement }.map { $0 + 1 } ?? 0
        held.insert(reading, at: index)
        if endsWait(reading) || !expectsFixes { inGap = true }
        guard inGap else { return [] }
        return release(before: reading.placement, inGap: true)
    }

    /// The input has ended: the readings still waiting come after the last usable fix, within
    /// the limit: not a gap (unless none came, or they had passed the limit).
    mutating func finish() -> [TimelineReading] {
        release(before: .infinity, inGap: inGap || lastUsable == nil)
    }


    /// Decides and hands on the readings held before `time`.
    private mutating func release(before time: Double, inGap: Bool) -> [TimelineReading] {
        let count = held.prefix { $0.placement < time }.count
        guard count > 0 else { return [] }
        let due = Array(held.prefix(count))
        held.removeFirst(count)
        return release(due, inGap: inGap)
    }

    /// Decides `readings` (in time order): those of one time by the measures of that time together.
    private mutating func release(_ readings: [SensorReading], inGap: Bool) -> [TimelineReading] {
        var released: [TimelineReading] = []
        released.reserveCapacity(readings.count)
        var index = readings.startIndex
        let counts = counts(inGap: inGap)
        while index < readings.endIndex {
            let time = readings[index].placement
            var end = index
            while end < readings.endIndex, readings[end].placement == time {
                note(readings[end])
                end += 1
            }
            let judged = counts ? judgedSpeed(at: time) : nil
            for reading in readings[index..<end] {
                released.append(TimelineReading(reading: reading, inGap: inGap, counts: counts, judgedSpeed: judged))
            }
            index = end
        }
        return released
    }

    private func counts(inGap: Bool) -> Bool {
        switch source {
        case .gps: false
        case .sensor: true
        case .automatic: inGap
        }
    }

    /// Notes a reading's measure as the latest of its kind: a distance over an interval is a
    /// speed too (the wheel turned meanwhile), unless a speed was measured later.
    private mutating func note(_ reading: SensorReading) {
        switch reading.measure {
        case let .distance(metres, since):
            let time = reading.placement
            if reading.time > since, latestSpeed.map({ $0.time <= time }) ?? true {
                latestSpeed = (metres / (reading.time - since), time)
            }
        case let .speed(value): latestSpeed = (value, reading.time)
        case let .cadence(value): latestCadence = (value, reading.time)
        case let .power(value): latestPower = (value, reading.time)
        }
    }

    /// The speed to judge motion by at `time` (see the type's description).
    private func judgedSpeed(at time: Double) -> Double? {
        func current(_ value: (value: Double, time: Double)?) -> Double? {
            guard let value, time - value.time <= Self.holdTime else { return nil }
            return value.value
        }
        let speed = current(latestSpeed)
        let cadence = current(latestCadence)
        let power = current(latestPower)
        guard speed != nil || cadence != nil || power != nil else { return nil }
        if (cadence ?? 0) > 0 || (power ?? 0) > 0, let threshold { return max(speed ?? threshold, threshold) }
        return speed ?? 0
    }
}
