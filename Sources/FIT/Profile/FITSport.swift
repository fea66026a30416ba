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
