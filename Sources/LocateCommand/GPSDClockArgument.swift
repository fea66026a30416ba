import ArgumentParser
import LocationFacade

/// `locate once --gpsd-clock`: whether gpsd's host clock can date the fix gpsd holds, which
/// `--max-age` takes only when its age can be told (`GPSDClient.HostClock`).
enum GPSDClockArgument: String, ExpressibleByArgument, CaseIterable {
    case auto
    case synchronized
    case unsynchronized

    var hostClock: GPSDClient.HostClock {
        switch self {
        case .auto: .automatic
        case .synchronized: .synchronized
        case .unsynchronized: .unsynchronized
        }
    }

    static var allValueDescriptions: [String: String] {
        [
            "auto": "trust it when gpsd is on this machine and the kernel says its clock is synchronized (adjtimex)",
            "synchronized": "trust it (a gpsd elsewhere that keeps true time, or a fake gpsd)",
            "unsynchronized": "never trust it: --max-age then always waits for a new fix",
        ]
    }
}
