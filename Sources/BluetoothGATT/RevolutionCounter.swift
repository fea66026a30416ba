/// Revolutions per second from successive ``RevolutionData`` of one wheel or crank: the
/// revolutions between two measurements over the time between their last revolutions, with the
/// wrap-around of the counter and of the time.
///
/// ```swift
/// var crank = RevolutionCounter(counterBits: 16, eventTimeUnit: 1.0 / 1024)
/// crank.add(first, receivedAt: .seconds(0))        // nil: nothing to compare with yet
/// crank.add(second, receivedAt: .seconds(1))       // .revolving(rate: 1.5, revolutions: 1.5...)
/// ```
///
/// A sensor repeats its last measurement while nothing turns (the same event time): no new
/// revolution is no new value, until ``stopAfter`` of them, when the rate is 0 (a wheel that
/// stopped, not the last speed held for ever).
public struct RevolutionCounter: Sendable, Hashable {
    /// What one measurement says.
    public enum Reading: Sendable, Hashable {
        /// New revolutions since the last measurement: `rate` per second, and `revolutions` in all.
        case revolving(rate: Double, revolutions: UInt32)
        /// Nothing has turned for ``RevolutionCounter/stopAfter``: a rate of 0.
        case stopped
    }

    /// How many bits the revolution counter has: 32 for a wheel, 16 for a crank.
    public let counterBits: Int
    /// The unit of the event time, in seconds: 1/1024, or 1/2048 for a power meter's wheel.
    public let eventTimeUnit: Double
    /// How long without a new revolution (by the receiver's clock) before the rate is 0.
    public let stopAfter: Duration
    /// The most revolutions per second taken for real; more is a counter that was reset.
    public let maximumRate: Double

    private var last: RevolutionData?
    private var lastRevolutionAt: Duration?
    private var lastReceivedAt: Duration?
    private var stopped = false

    /// A counter for a `counterBits`-bit counter with event times in `eventTimeUnit` seconds.
    public init(counterBits: Int, eventTimeUnit: Double, stopAfter: Duration = .seconds(3), maximumRate: Double = 60) {
        self.counterBits = counterBits
        self.eventTimeUnit = eventTimeUnit
        self.stopAfter = stopAfter
        self.maximumRate = maximumRate
    }

    /// Takes `data`, received at `now` (a monotonic clock's reading): the rate since the last
    /// measurement, ``Reading/stopped`` once nothing has turned for ``stopAfter``, or `nil` when
    /// there is nothing new to say (the first measurement, a repeat, a counter that was reset, or
    /// a gap too long for the 16-bit event time, 64 s at 1/1024 s, to be read).
    public mutating func add(_ data: RevolutionData, receivedAt now: Duration) -> Reading? {
        defer {
            last = data
            lastReceivedAt = now
        }
        guard let last, let lastReceivedAt else {
            lastRevolutionAt = now
            return nil
        }
        let counterMask = counterBits >= 32 ? UInt64(UInt32.max) : (UInt64(1) << counterBits) - 1
        let revolutions = (UInt64(data.revolutions) &- UInt64(last.revolutions)) & counterMask
        let ticks = data.eventTime &- last.eventTime
        if ticks == 0 || revolutions == 0 {
            // Nothing turned since: say 0 once, when it has been long enough.
            guard !stopped, let since = lastRevolutionAt, now - since >= stopAfter else { return nil }
            stopped = true
            return .stopped
        }
        let seconds = Double(ticks) * eventTimeUnit
        let wrapPeriod = Double(UInt16.max) * eventTimeUnit
        let rate = Double(revolutions) / seconds
        guard rate <= maximumRate, now - lastReceivedAt < .seconds(wrapPeriod) else {
            // A reset counter, or a gap the event time cannot span: start again from here.
            lastRevolutionAt = now
            return nil
        }
        lastRevolutionAt = now
        stopped = false
        return .revolving(rate: rate, revolutions: UInt32(revolutions))
    }
}
