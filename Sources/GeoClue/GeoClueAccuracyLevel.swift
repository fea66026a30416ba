/// How precise a location GeoClue is asked for (its `GClueAccuracyLevel`). GeoClue picks its
/// sources by it (Wi-Fi and cell towers for a street, the GPS for an exact position) and, where
/// an agent allows less, gives no more than allowed.
public enum GeoClueAccuracyLevel: UInt32, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// No location at all (what an agent answers to refuse).
    case none = 0
    /// The country.
    case country = 1
    /// The city, about 15 km.
    case city = 4
    /// The neighbourhood, about 5 km.
    case neighborhood = 5
    /// The street, about 1 km.
    case street = 6
    /// As exact as the best source has it: a GPS fix.
    case exact = 8

    /// The coarsest level whose positions are within `metres`, as GeoClue sizes its levels:
    /// exact under 1 km, a street within 1 km, a neighbourhood within 5 km, a city within 15 km,
    /// else a country. The level for a request's `desiredAccuracy`.
    ///
    /// ```swift
    /// GeoClueAccuracyLevel(forAccuracy: 50)     // .exact
    /// GeoClueAccuracyLevel(forAccuracy: 3_000)  // .street
    /// ```
    public init(forAccuracy metres: Double) {
        switch metres {
        case ..<1_000: self = .exact
        case ..<5_000: self = .street
        case ..<15_000: self = .neighborhood
        case ..<300_000: self = .city
        default: self = .country
        }
    }

    /// Whether `lhs` is less exact than `rhs`.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `exact`, `street`, `neighborhood`, `city`, `country` or `none`: the names the `locate`
    /// command takes.
    public var description: String {
        switch self {
        case .none: "none"
        case .country: "country"
        case .city: "city"
        case .neighborhood: "neighborhood"
        case .street: "street"
        case .exact: "exact"
        }
    }
}
