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

extension WorkoutMetadata {
    /// The metadata key that says a course on a screen drove the trainer or treadmill (Zwift,
    /// Rouvy): `"virtual"` with the value `"true"`. The FIT export then writes the sub sport
    /// `virtual_activity`; the FIT import sets it for such a file.
    public static let virtualKey = "virtual"

    /// The metadata key of the FIT sub sport an import read (`indoor_cycling`, `treadmill`...).
    public static let subSportKey = "sub_sport"

    /// Whether ``virtualKey`` says a course drove the workout.
    public var isVirtual: Bool { values[Self.virtualKey] == "true" }
}

extension WorkoutActivityType {
    /// The FIT `sub_sport` a FIT export writes for the activity: outdoors `generic` (0); indoors
    /// (`indoor`), a virtual course's `virtual_activity` (58, for cycling, running and walking),
    /// else cycling's `indoor_cycling` (6), running's `treadmill` (1), walking's `indoor_walking`
    /// (27), rowing's `indoor_rowing` (14), and `generic` for the others.
    ///
    /// ```swift
    /// WorkoutActivityType.cycling.fitSubSport(indoor: true, virtual: false)   // 6
    /// ```
    public func fitSubSport(indoor: Bool, virtual: Bool) -> UInt8 {
        guard indoor else { return FITSubSport.generic.rawValue }
        let subSport: FITSubSport = switch self {
        case .cycling: virtual ? .virtualActivity : .indoorCycling
        case .running: virtual ? .virtualActivity : .treadmill
        case .walking: virtual ? .virtualActivity : .indoorWalking
        case .rowing: .indoorRowing
        default: .generic
        }
        return subSport.rawValue
    }
}
