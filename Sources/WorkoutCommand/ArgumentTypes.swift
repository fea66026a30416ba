import ArgumentParser
import Workout

/// `workout import/list --activity TYPE`: an activity by its raw value (`running`,
/// `cross_country_skiing`), as the store and `--json` write it.
extension WorkoutActivityType: ExpressibleByArgument {
    /// None, so that help lists the values on the option's line: the descriptions of most
    /// activities are their raw values, and a list of them would say nothing more.
    public static var allValueDescriptions: [String: String] { [:] }
}

/// `workout export --format gpx|geojson|fit|tcx`, in either case (`GPX` is `gpx`).
extension WorkoutExportFormat: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }
}

/// `workout record --distance-source gps|sensor|automatic`.
extension DistanceSource: ExpressibleByArgument {}
