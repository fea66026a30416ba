import ArgumentParser
import CommandSupport
import Foundation
import LocationFacade
import Workout
import GPSCore

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the stored workouts, oldest first.",
        discussion: "One line per workout: the start of its id, start time, activity, distance, duration and name.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only workouts of this activity.")
    var activity: WorkoutActivityType?

    @Option(help: "Only workouts that end at or after this time (RFC 3339, or a date: 2024-05-01).")
    var from: String?

    @Option(help: "Only workouts that start before this time (RFC 3339, or a date).")
    var to: String?

    @Flag(help: "One JSON object per workout per line.")
    var json = false

    func validate() throws {
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, Self.date(value) == nil {
                throw ValidationError("\(name) must be an RFC 3339 time or a date such as 2024-05-01, not '\(value)'.")
            }
        }
    }

    func run() async throws {
        let store = try storeOptions.open()
        let workouts = try await storeCall {
            try await store.workouts(
                from: from.flatMap(Self.date), to: to.flatMap(Self.date),
                activityType: activity)
        }
        for workout in workouts {
            if json {
                Output.line(Format.jsonLine(StoredWorkoutJSON.object(workout)))
            } else {
                let name = workout.metadata.values["name"].map { "  \($0)" } ?? ""
                let activity = workout.activityType.rawValue + (workout.unknownActivityType == nil ? "" : "*")
                Output.line([
                    String(workout.id.uuidString.prefix(8)), Format.dateTime(workout.start),
                    activity.padding(toLength: 9, withPad: " ", startingAt: 0),
                    Format.distance(workout.totals.distance).leftPadded(9), Format.duration(workout.duration).leftPadded(8),
                ].joined(separator: "  ") + name)
            }
        }
        if workouts.isEmpty && !json { Output.error("No workouts in \(store.path ?? "the store").") }
        for workout in workouts {
            guard let stored = workout.unknownActivityType else { continue }
            Output.error("* \(workout.id.uuidString.prefix(8)): its activity type \"\(stored)\" is unknown to this version (a newer one wrote it); shown as other.")
        }
    }

    /// An RFC 3339 time, or a date (midnight UTC).
    static func date(_ text: String) -> Date? {
        RFC3339.parse(text)?.date ?? RFC3339.parse(text + "T00:00:00Z")?.date
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

/// A stored workout as JSON, for `list --json` and `show --json`.
enum StoredWorkoutJSON {
    /// The version of the figures' keys, printed as `format_version`. 2: `duration_s` is the
    /// duration (the time not paused by the user) for sessions too, where 1 gave their elapsed
    /// time, and a lap's `duration_s` is its duration, where 1 gave its elapsed time (now
    /// `elapsed_time_s`); `elapsed_time_s` is new, and `moving_time_s` is never null.
    static let formatVersion = 2

    static func object(_ workout: WorkoutRecord) -> [String: Any] {
        let totals = workout.totals
        let metadata = workout.metadata
        return [
            "format_version": formatVersion,
            "id": workout.id.uuidString,
            "activity": workout.activityType.rawValue,
            "activity_unknown": workout.unknownActivityType as Any? ?? NSNull(),
            "start": RFC3339.string(from: workout.start),
            "end": RFC3339.string(from: workout.end),
            "distance_m": Format.json(totals.distance),
            "elapsed_time_s": workout.elapsedTime,
            "duration_s": workout.duration,
            "moving_time_s": workout.movingTime,
            "elevation_gain_m": Format.json(totals.elevationGain),
            "elevation_loss_m": Format.json(totals.elevationLoss),
            "energy_kcal": Format.json(totals.energy),
            "indoor": metadata.isIndoor as Any? ?? NSNull(),
            "source_device": metadata.sourceDevice as Any? ?? NSNull(),
            "source_app": metadata.sourceApp as Any? ?? NSNull(),
            "external_id": metadata.externalID as Any? ?? NSNull(),
            "metadata": metadata.values,
        ]
    }
}
