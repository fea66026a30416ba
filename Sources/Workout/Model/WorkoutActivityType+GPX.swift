import Foundation

extension WorkoutActivityType {
    /// The activity a GPX `<type>` names, as devices and services write it: `running`, `Run`,
    /// `trail_running`, `cycling`, `Biking`, `road_biking`, `Ride`, `hiking`, `walking`,
    /// `swimming`, `open_water_swimming`, `rowing`, `kayaking`, `skiing`... Matching ignores case
    /// and looks for the word inside longer names; anything unrecognised is ``other``. Strava's
    /// numeric types (`1` ride, `4` hike, `9` run, `10` walk) are understood too.
    ///
    /// ```swift
    /// WorkoutActivityType(gpxType: "trail_running")   // .running
    /// ```
    public init(gpxType text: String) {
        let name = text.lowercased()
        switch name.trimmingCharacters(in: .whitespaces) {
        case "1": self = .cycling
        case "4": self = .hiking
        case "9": self = .running
        case "10": self = .walking
        default:
            let words: [(String, WorkoutActivityType)] = [
                ("cross_country", .crossCountrySkiing), ("cross-country", .crossCountrySkiing),
                ("nordic", .crossCountrySkiing), ("ski", .downhillSkiing), ("snowboard", .downhillSkiing),
                ("run", .running), ("jog", .running), ("cycl", .cycling), ("bik", .cycling), ("ride", .cycling),
                ("hik", .hiking), ("walk", .walking), ("swim", .swimming), ("row", .rowing),
                ("kayak", .paddling), ("canoe", .paddling), ("paddl", .paddling),
                ("skat", .skating),
            ]
            self = words.first { name.contains($0.0) }?.1 ?? .other
        }
    }
}
