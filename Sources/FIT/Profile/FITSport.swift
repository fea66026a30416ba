/// The profile's `sport` values this package names (the profile has more; any other is
/// reported by number).
public enum FITSport: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `generic`: no sport given.
    case generic = 0
    /// `running`.
    case running = 1
    /// `cycling`.
    case cycling = 2
    /// `transition` (between multisport legs).
    case transition = 3
    /// `fitness_equipment`.
    case fitnessEquipment = 4
    /// `swimming`.
    case swimming = 5
    /// `training`.
    case training = 10
    /// `walking`.
    case walking = 11
    /// `cross_country_skiing`.
    case crossCountrySkiing = 12
    /// `alpine_skiing`.
    case alpineSkiing = 13
    /// `snowboarding`.
    case snowboarding = 14
    /// `rowing`.
    case rowing = 15
    /// `mountaineering`.
    case mountaineering = 16
    /// `hiking`.
    case hiking = 17
    /// `multisport`.
    case multisport = 18
    /// `paddling`.
    case paddling = 19
    /// `e_biking`.
    case eBiking = 21
    /// `inline_skating`.
    case inlineSkating = 30
    /// `ice_skating`.
    case iceSkating = 33
    /// `snowshoeing`.
    case snowshoeing = 35
    /// `kayaking`.
    case kayaking = 37
    /// `rafting`.
    case rafting = 38
    /// `stand_up_paddleboarding`.
    case standUpPaddleboarding = 46

    /// The profile's name for the value: `running`, `cross_country_skiing`, or the number.
    public static func name(of value: UInt8) -> String {
        FITSport(rawValue: value)?.description ?? "sport \(value)"
    }

    /// The profile's name: `running`, `cross_country_skiing`.
    public var description: String {
        switch self {
        case .generic: "generic"
        case .running: "running"
        case .cycling: "cycling"
        case .transition: "transition"
        case .fitnessEquipment: "fitness_equipment"
        case .swimming: "swimming"
        case .training: "training"
        case .walking: "walking"
        case .crossCountrySkiing: "cross_country_skiing"
        case .alpineSkiing: "alpine_skiing"
        case .snowboarding: "snowboarding"
        case .rowing: "rowing"
        case .mountaineering: "mountaineering"
        case .hiking: "hiking"
        case .multisport: "multisport"
        case .paddling: "paddling"
        case .eBiking: "e_biking"
        case .inlineSkating: "inline_skating"
        case .iceSkating: "ice_skating"
        case .snowshoeing: "snowshoeing"
        case .kayaking: "kayaking"
        case .rafting: "rafting"
        case .standUpPaddleboarding: "stand_up_paddleboarding"
        }
    }
}

/// The profile's `sub_sport` values this package names: those that say a workout was done indoors
/// (on a treadmill, a trainer, a rowing machine) or on a virtual course, and `generic`. The
/// profile has many more (road, trail, lap swimming...); any other is reported by number.
///
/// ```swift
/// FITSubSport(rawValue: 6)?.isIndoor   // true: indoor_cycling
/// FITSubSport.name(of: 7)               // "sub sport 7"
/// ```
public enum FITSubSport: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `generic`: no sub sport given.
    case generic = 0
    /// `treadmill` (running or walking).
    case treadmill = 1
    /// `spin` (a spin class).
    case spin = 5
    /// `indoor_cycling` (a trainer).
    case indoorCycling = 6
    /// `indoor_rowing` (a rowing machine).
    case indoorRowing = 14
    /// `elliptical`.
    case elliptical = 15
    /// `indoor_walking`.
    case indoorWalking = 27
    /// `indoor_running` (an indoor track).
    case indoorRunning = 45
    /// `virtual_activity`: a course on a screen drove the trainer or treadmill (Zwift, Rouvy).
    case virtualActivity = 58

    /// Whether the sub sport is done indoors: every case but ``generic``.
    public var isIndoor: Bool { self != .generic }

    /// The profile's name for the value: `indoor_cycling`, or "sub sport N" for one not named here.
    public static func name(of value: UInt8) -> String {
        FITSubSport(rawValue: value)?.description ?? "sub sport \(value)"
    }

    /// The profile's name: `indoor_cycling`.
    public var description: String {
        switch self {
        case .generic: "generic"
        case .treadmill: "treadmill"
        case .spin: "spin"
        case .indoorCycling: "indoor_cycling"
        case .indoorRowing: "indoor_rowing"
        case .elliptical: "elliptical"
        case .indoorWalking: "indoor_walking"
        case .indoorRunning: "indoor_running"
        case .virtualActivity: "virtual_activity"
        }
    }
}
