import FIT

extension WorkoutActivityType {
    /// The activity a FIT `sport` value names: running, cycling and e-biking, walking, hiking and
    /// mountaineering and snowshoeing, swimming, rowing, paddling, kayaking, rafting and stand-up
    /// paddling, cross-country skiing, alpine skiing and snowboarding, inline and ice skating;
    /// anything else is ``other``.
    ///
    /// ```swift
    /// WorkoutActivityType(fitSport: 2)   // .cycling
    /// ```
    public init(fitSport sport: UInt8) {
        self = switch FITSport(rawValue: sport) {
        case .running: .running
        case .cycling, .eBiking: .cycling
        case .walking: .walking
        case .hiking, .mountaineering, .snowshoeing: .hiking
        case .swimming: .swimming
        case .rowing: .rowing
        case .paddling, .kayaking, .rafting, .standUpPaddleboarding: .paddling
        case .crossCountrySkiing: .crossCountrySkiing
        case .alpineSkiing, .snowboarding: .downhillSkiing
        case .inlineSkating, .iceSkating: .skating
        default: .other
        }
    }

    /// The FIT `sport` value a FIT export writes for the activity (`generic`, 0, for ``other``).
    public var fitSport: UInt8 {
        let sport: FITSport = switch self {
        case .running: .running
        case .walking: .walking
        case .hiking: .hiking
        case .cycling: .cycling
        case .swimming: .swimming
        case .rowing: .rowing
        case .paddling: .paddling
        case .crossCountrySkiing: .crossCountrySkiing
        case .downhillSkiing: .alpineSkiing
        case .skating: .inlineSkating
        case .other: .generic
        }
        return sport.rawValue
    }
}
