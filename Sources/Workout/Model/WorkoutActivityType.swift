/// The kind of activity a workout records, as HealthKit's `HKWorkoutActivityType` does.
///
/// Raw values are stable strings: they are what the store writes, what `--json` output shows and
/// what an importer maps a GPX `<type>` to. Anything without a case of its own is ``other``.
///
/// ```swift
/// let type = WorkoutActivityType(rawValue: "running")   // .running
/// ```
public enum WorkoutActivityType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Running or jogging, on foot.
    case running
    /// Walking.
    case walking
    /// Hiking: walking off road, usually with climbing.
    case hiking
    /// Cycling, on a road, a track or off road.
    case cycling
    /// Swimming, in a pool or open water.
    case swimming
    /// Rowing, on water or a machine.
    case rowing
    /// Paddling: kayak, canoe, stand-up paddle board.
    case paddling
    /// Cross-country or backcountry skiing.
    case crossCountrySkiing = "cross_country_skiing"
    /// Downhill skiing or snowboarding.
    case downhillSkiing = "downhill_skiing"
    /// Skating: inline or on ice.
    case skating
    /// Anything else.
    case other

    /// The activity in words, for people: "running", "cross-country skiing".
    public var description: String {
        switch self {
        case .crossCountrySkiing: "cross-country skiing"
        case .downhillSkiing: "downhill skiing"
        default: rawValue
        }
    }
}
