import Foundation

/// Which of our own FIT or TCX file's record distances are the sensor's: those the workout's
/// ``DistanceSource`` counted, turned back into `.distance` samples so that the imported workout
/// counts its distance as the original did (across a tunnel, the wheel's half circle rather than
/// the straight line between the fixes either side).
///
/// Our exports write on each record (each track point) the distance the workout's time line had
/// counted by its time, the sensor's factor already applied; the difference from the record before
/// is a sample over the time between them (``ActivityAssembler``). Which of them become samples:
/// - ``DistanceSource/sensor``: every record's, with a position or not.
/// - ``DistanceSource/gps``: none (the fixes counted alone).
/// - ``DistanceSource/automatic``: those of a **gap** (``DistanceSourcing``: a stretch between
///   fixes more than ``DistanceSourcing/gapLimit`` apart, or after the last fix once past the
///   limit), and the difference at the fix that ends it, which holds the sensor's last reading
///   (placed before the fix) and what the straight line was longer than the sensor: the imported
///   time line then adds nothing for the step across the gap (its straight line is no longer than
///   what the samples cover), so the stretch covers what it covered. A gap without sensor
///   distance (no wheel) gives none: the difference at its end is the straight line, which the
///   fixes count again. Before the first fix, the assembler's rule for a file without positions
///   decides (the sensor counts there only when no fix ever comes, as ``DistanceSourcing`` says).
///
/// The records of a stretch are held until the fix that ends it, or until they pass the limit (a
/// gap: memory stays bounded, at most ``DistanceSourcing/gapLimit`` of records).
struct OwnRecordDistances {
    /// Where the records stand, since the last fix.
    enum Stretch {
        /// Within the gap limit of the fix at `since`: the samples wait (`held`) for the next fix
        /// to say whether they lie in a gap.
        case waiting(since: Double, held: [QuantitySample])
        /// Past the limit: a gap, whose samples count as they come; `sensed`: some sensor
        /// distance came in it.
        case gap(sensed: Bool)
    }

    let source: DistanceSource
    /// `nil` before the first fix.
    private var stretch: Stretch?

    /// The straight line the difference at the fix after a gap may exceed it by, metres, before it
    /// is taken for the sensor's rather than the line itself: FIT holds a distance to the
    /// centimetre and a position to about 9 mm.
    static let straightLineTolerance = 0.05

    init(source: DistanceSource) {
        self.source = source
    }

    /// The record at `time`, whose distance since the record before is `sample` (`nil`: none
    /// covered); `step` is the straight line from the fix before when the record is a fix.
    /// Returns the samples that become the workout's now, in time order.
    mutating func take(_ sample: QuantitySample?, at time: Double, isFix: Bool, step: Double?) -> [QuantitySample] {
        switch source {
        case .gps: return []
        case .sensor: return sample.map { [$0] } ?? []
        case .automatic: break
        }
        guard let current = stretch else {
            if isFix { stretch = .waiting(since: time, held: []) }
            return []
        }
        switch current {
        case .waiting(let since, var held):
            stretch = nil  // `held` is the only reference: appended to in place
            if isFix {
                stretch = .waiting(since: time, held: [])
                guard time - since > DistanceSourcing.gapLimit else { return [] }
                return held + closing(sample, sensed: !held.isEmpty, step: step)
            }
            if let sample { held.append(sample) }
            if time - since > DistanceSourcing.gapLimit {
                stretch = .gap(sensed: !held.isEmpty)
                return held
            }
            stretch = .waiting(since: since, held: held)
            return []
        case let .gap(sensed):
            if isFix {
                stretch = .waiting(since: time, held: [])
                return closing(sample, sensed: sensed, step: step)
            }
            if sample != nil { stretch = .gap(sensed: true) }
            return sample.map { [$0] } ?? []
        }
    }

    /// The difference at the fix that ends a gap, when it is the sensor's (see the type).
    private func closing(_ sample: QuantitySample?, sensed: Bool, step: Double?) -> [QuantitySample] {
        guard let sample else { return [] }
        if sensed { return [sample] }
        return sample.value > (step ?? 0) + Self.straightLineTolerance ? [sample] : []
    }
}
