import Foundation

/// The 1-second series of one type of sample (``TrainingFigures``'s contract): the pieces of time
/// its values held over, on the span's seconds, taken in order; the time in zones, and for power
/// the work and the rolling means of normalized power, in bounded memory.
struct SecondSeries: Sendable {
    /// The seconds covered, and the integral of the value over them.
    private(set) var recorded = 0.0
    private(set) var integral = 0.0
    private var zones: ZoneTimes?
    /// The second under way (from the span's start), what held over it and for how long.
    private var second: Int?
    private var secondIntegral = 0.0
    private var secondCovered = 0.0
    /// The rolling window's length, and its last values (a ring).
    private let window: Int?
    private var ring: [Double] = []
    private var ringNext = 0
    /// The rolling means' fourth powers, summed, and how many.
    private var fourthPowers = 0.0
    private var windows = 0

    init(zones bounds: [Double]?, window: Int?) {
        zones = bounds.map(ZoneTimes.init(upperBounds:))
        self.window = window
        if let window { ring.reserveCapacity(window) }
    }

    /// Takes the next piece of time (span seconds, after the last one taken).
    mutating func add(_ piece: SampleHold.Piece) {
        recorded += piece.length
        integral += piece.value * piece.length
        var from = piece.from
        while piece.to > from {
            let index = Int(from.rounded(.down))
            if index != second {
                closeSecond()
                second = index
            }
            let to = min(piece.to, Double(index + 1))
            secondIntegral += piece.value * (to - from)
            secondCovered += to - from
            from = to
        }
    }

    /// The series with the second under way closed: what a reading now says.
    func closed() -> SecondSeries {
        var copy = self
        copy.closeSecond()
        return copy
    }

    private mutating func closeSecond() {
        guard second != nil, secondCovered > 0 else { return }
        let value = secondIntegral / secondCovered
        if let zone = zones?.zone(of: value) { zones?.times[zone] += secondCovered }
        if let window { roll(value, window: window) }
        second = nil
        secondIntegral = 0
        secondCovered = 0
    }

    private mutating func roll(_ value: Double, window: Int) {
        if ring.count < window {
            ring.append(value)
        } else {
            ring[ringNext] = value
        }
        ringNext = (ringNext + 1) % window
        guard ring.count == window else { return }
        let mean = ring.reduce(0, +) / Double(window)
        fourthPowers += mean * mean * mean * mean
        windows += 1
    }

    /// Coggan's normalized power over the seconds closed; `nil` before a whole window.
    var normalizedPower: Double? {
        windows > 0 ? pow(fourthPowers / Double(windows), 0.25) : nil
    }

    /// The time in zones over a span of `span` seconds; `nil` without bounds.
    func zoneTimes(span: Double) -> ZoneTimes? {
        guard var zones else { return nil }
        zones.unrecorded = max(0, span - zones.times.reduce(0, +))
        return zones
    }
}
