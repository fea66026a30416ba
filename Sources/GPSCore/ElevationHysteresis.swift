/// The package's one rule for smoothing GPS elevation: a reference elevation starts at the first
/// elevation; one at least `threshold` metres above (below) the reference counts the difference
/// as a climb (a descent) and becomes the new reference; smaller changes are noise. A workout's
/// smoothed gain and loss and a course's smoothed profile (its climbs) are both this.
///
/// ```swift
/// var smoothing = ElevationHysteresis(threshold: 5)
/// let changes = [100, 103, 106, 104, 99].map { smoothing.feed($0) }   // [0, 0, 6, 0, -7]
/// ```
public struct ElevationHysteresis: Sendable, Hashable {
    /// Metres of change that count (a workout's default is 5 m).
    public var threshold: Double
    /// The current reference elevation (the smoothed elevation), nil before the first.
    public private(set) var reference: Double?

    public init(threshold: Double = 5) {
        self.threshold = threshold
    }

    /// Takes one elevation; returns the change it counts: positive for a climb, negative for a
    /// descent, 0 when it moved the reference by less than ``threshold``.
    @discardableResult
    public mutating func feed(_ elevation: Double) -> Double {
        guard let reference else {
            self.reference = elevation
            return 0
        }
        let change = elevation - reference
        guard abs(change) >= threshold else { return 0 }
        self.reference = elevation
        return change
    }

    /// Forgets the reference: the next elevation starts again (a new segment).
    public mutating func reset() { reference = nil }
}
