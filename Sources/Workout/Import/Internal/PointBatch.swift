import LocationCore
import WorkoutCore

/// A batch of route points of one workout being imported (a GPX track, a FIT or TCX activity),
/// and what goes with them.
struct PointBatch: Sendable {
    var locations: [Location] = []
    /// Each location's place in the file (its line; a FIT record's byte offset), for errors.
    var lines: [Int] = []
    /// The samples of these points.
    var samples: [QuantitySample] = []
    /// The points' unknown extensions, by index in `locations`.
    var extensions: [(index: Int, xml: String)] = []
    /// Whether the first point starts a new segment.
    var newSegment = false
    /// The workout's index in the file and the place it starts (a `<trk>`'s line, a FIT file's
    /// offset).
    var trackIndex = 0
    var trackLine = 0

    /// The batch as it is, for sending, leaving this one empty (its capacity kept) for the
    /// points after it; `nil` when it holds no point and no sample.
    mutating func take() -> PointBatch? {
        guard !locations.isEmpty || !samples.isEmpty else { return nil }
        let full = self
        locations.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        samples.removeAll(keepingCapacity: true)
        extensions.removeAll()
        newSegment = false
        return full
    }

    /// `samples` grouped by type, each type's in the order given (a stable partition, on the
    /// reader's thread): the store inserts them in the order of its key (workout, type, start),
    /// into one part of the table at a time rather than alternating between a part per type.
    static func groupedByType(_ samples: [QuantitySample]) -> [QuantitySample] {
        guard let first = samples.first?.type, samples.contains(where: { $0.type != first }) else { return samples }
        var grouped: [QuantitySample] = []
        grouped.reserveCapacity(samples.count)
        for type in QuantityType.allCases.sorted(by: { $0.rawValue < $1.rawValue }) {
            grouped += samples.lazy.filter { $0.type == type }
        }
        return grouped
    }
}
