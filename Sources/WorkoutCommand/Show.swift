import ArgumentParser
import CommandSupport
import Foundation
import GPSCore
import Workout

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a workout: its times, totals, samples, training figures and route.",
        discussion: """
            The training figures (normalized power, intensity factor, training stress score, work, \
            time in power and heart-rate zones) are measured against the FTP and maximum heart rate \
            the workout was recorded with (its metadata ftp_w, max_heart_rate_bpm), or those --ftp and \
            --max-heart-rate give. Power zones are Coggan's seven (55, 75, 90, 105, 120, 150 % of FTP), \
            heart-rate zones five (60, 70, 80, 90 % of the maximum), unless the metadata gives others. \
            With --json, the object "training" has normalized_power_w, intensity_factor, \
            training_stress_score, work_kj, ftp_w, max_heart_rate_bpm, duration_s, power_time_s, \
            heart_rate_time_s, and time_in_power_zone and time_in_hr_zone (upper_bounds, times_s, \
            unrecorded_s); "device" has the device's own (device_normalized_power_w, ...).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The workout's id, or the start of it.")
    var id: String

    @Flag(help: "One JSON object.")
    var json = false

    @Option(help: "Also draw the workout as an SVG picture: the route, and elevation and heart rate against time.",
            completion: .file(extensions: ["svg"]))
    var plot: String?

    @Option(help: "Also print splits: the time of every this many metres covered while moving.")
    var splits: Double?

    @Option(help: ArgumentHelp("The FTP, watts, to measure the training figures against.", discussion: "Default: the workout's own (metadata ftp_w), if any."))
    var ftp: Double?

    @Option(help: ArgumentHelp("The maximum heart rate, bpm, the heart-rate zones are fractions of.", discussion: "Default: the workout's own (metadata max_heart_rate_bpm), if any."))
    var maxHeartRate: Double?

    func validate() throws {
        if let splits, !(splits > 0 && splits.isFinite) { throw ValidationError("--splits must be a positive number of metres, not \(splits).") }
        if let ftp, !(ftp > 0 && ftp.isFinite) { throw ValidationError("--ftp must be a positive number of watts, not \(ftp).") }
        if let maxHeartRate, !(maxHeartRate > 0 && maxHeartRate.isFinite) {
            throw ValidationError("--max-heart-rate must be a positive number of beats per minute, not \(maxHeartRate).")
        }
    }

    func run() async throws {
        let store = try storeOptions.open()
        let workout = try await storeOptions.resolve(id, in: store)
        if let plot { try await draw(workout, in: store, to: plot) }
        let route = try await storeCall { try await store.route(of: workout.id) }
        let statistics = try await storeCall { try await store.sampleFigures(of: workout.id) }
        let laps = try await storeCall { try await store.laps(of: workout.id) }
        if json {
            Output.line(Format.jsonLine(try await Self.object(workout, in: store, profile: profileOverride)))
            return
        }
        let training = try await storeCall { try await store.trainingFigures(of: workout.id, profile: profileOverride) }
        let totals = workout.totals
        // The recording device's own totals (a FIT or TCX import), where they differ from ours as printed.
        let device = DeviceTotals(workout.metadata)
        func besides(_ ours: String, _ theirs: String?) -> String {
            guard let theirs, theirs != ours else { return ours }
            return ours + " (the device: \(theirs))"
        }
        var lines = [
            "\(workout.id.uuidString)  \(workout.activityType)"
                + (workout.metadata.isIndoor == true ? " indoors" : "")
                + (workout.unknownActivityType.map { " (stored as \"\($0)\", unknown to this version)" } ?? "")
                + (workout.metadata.values["name"].map { "  \"\($0)\"" } ?? ""),
            "  when       \(Format.dateTime(workout.start)) to \(Format.dateTime(workout.end))",
            "  distance   " + besides(Format.distance(totals.distance), device?.distance.map(Format.distance)),
            "  elapsed    " + besides(Format.duration(workout.elapsedTime), device?.elapsedTime.map(Format.duration)),
            "  duration   " + besides(Format.duration(workout.duration), device?.timerTime.map { "timer \(Format.duration($0))" }),
            "  moving     \(Format.duration(workout.movingTime))",
        ]
        if let sensor = SensorDistance(workout.metadata), sensor.circumference != nil || sensor.source != .automatic {
            lines.append("  distance from " + Self.distanceSource(sensor))
        }
        if let gain = totals.elevationGain {
            let ours = "+\(Int(gain.rounded())) m / -\(Int((totals.elevationLoss ?? 0).rounded())) m"
            let theirs = device?.ascent.map { "+\(Int($0.rounded())) m / -\(Int((device?.descent ?? 0).rounded())) m" }
            lines.append("  elevation  " + besides(ours, theirs))
        }
        if let energy = totals.energy { lines.append("  energy     \(Int(energy.rounded())) kcal") }
        if let route {
            lines.append("  route      \(route.pointCount) points in \(route.segmentCount) segment\(route.segmentCount == 1 ? "" : "s")")
        }
        for type in QuantityType.allCases {
            guard let figures = statistics[type] else { continue }
            let name = "\(type)" + String(repeating: " ", count: max(0, 10 - "\(type)".count))
            let format = Self.valueFormat(of: type)
            var line = "  \(name) avg \(String(format: format, figures.average)) max \(String(format: format, figures.maximum)) \(type.unit) (\(figures.count) samples)"
            let theirs: (Double?, Double?) = switch type {
            case .heartRate: (device?.heartRateAverage, device?.heartRateMaximum)
            case .power: (device?.powerAverage, device?.powerMaximum)
            default: (nil, nil)
            }
            if let average = theirs.0, let maximum = theirs.1,
               String(format: "%.0f/%.0f", average, maximum) != String(format: "%.0f/%.0f", figures.average, figures.maximum) {
                line += " (the device: avg \(String(format: "%.0f", average)) max \(String(format: "%.0f", maximum)))"
            }
            lines.append(line)
        }
        lines += Self.trainingLines(training, device: device)
        let metadata = workout.metadata
        if let device = metadata.sourceDevice { lines.append("  device     \(device)") }
        if let app = metadata.sourceApp { lines.append("  app        \(app)") }
        if let file = metadata.values["file"] { lines.append("  file       \(file)") }
        if let course = metadata.values[CourseGuide.metadataKey] { lines.append("  course     \(course)") }
        if laps.count > 1 {
            for lap in laps {
                lines.append("  lap \(String(lap.index).leftPadded(3))    \(Format.distance(lap.distance).leftPadded(9))  \(Format.duration(lap.duration).leftPadded(8))  moving \(Format.duration(lap.movingTime).leftPadded(8))")
            }
        }
        if let splits {
            for split in try await storeCall({ try await store.splits(of: workout.id, every: splits) }) {
                lines.append("  split \(String(split.index).leftPadded(3))  \(Format.distance(split.distance).leftPadded(9))  \(Format.duration(split.movingTime).leftPadded(8))")
            }
        }
        lines.forEach(Output.line)
    }

    /// How a value of `type` is printed: to the precision its sensors give (beats per minute and
    /// watts whole, speeds and distances to a tenth, the times between beats to the millisecond).
    static func valueFormat(of type: QuantityType) -> String {
        switch type {
        case .heartRate, .cadence, .power: "%.0f"
        case .speed, .distance, .temperature: "%.1f"
        case .heartbeatInterval: "%.3f"
        }
    }

    /// A stored workout as `show --json` prints it: the keys of `list --json`, with the route's
    /// points and segments, the samples' figures, the active time, the events, the laps, the
    /// training figures (against the workout's profile with `profile` over it), and for a FIT or
    /// TCX import `device`, the device's own totals (keys as in the metadata).
    /// Where a recorded workout's distance came from, in words: "the sensor (wheel 2.105 m
    /// assumed; 2.096 m by 8.9 km of GPS)".
    static func distanceSource(_ sensor: SensorDistance) -> String {
        var text = switch sensor.source {
        case .gps: "GPS"
        case .sensor: "the sensor"
        case .automatic: "GPS, and the sensor where GPS had no usable fix"
        }
        if let circumference = sensor.circumference {
            text += String(format: " (wheel %.3f m %@", circumference, sensor.circumferenceIsGiven ? "given" : "assumed")
            if let calibrated = sensor.calibratedCircumference, let over = sensor.calibrationDistance {
                text += String(format: "; %.3f m by %@ of GPS", calibrated, Format.distance(over))
                if !sensor.circumferenceIsGiven { text += ", counted with" }
            }
            text += ")"
        }
        return text
    }

    static func object(_ workout: WorkoutRecord, in store: WorkoutStore, profile: TrainingProfile? = nil) async throws -> [String: Any] {
        let route = try await storeCall { try await store.route(of: workout.id) }
        var samples: [String: Any] = [:]
        for (type, figures) in try await storeCall({ try await store.sampleFigures(of: workout.id) }) {
            samples[type.rawValue] = ["count": figures.count, "average": Format.json(figures.average), "maximum": figures.maximum] as [String: Any]
        }
        let events = try await storeCall { try await store.events(of: workout.id) }
        let laps = try await storeCall { try await store.laps(of: workout.id) }
        var object = StoredWorkoutJSON.object(workout)
        object["points"] = route?.pointCount ?? 0
        object["segments"] = route?.segmentCount ?? 0
        object["samples"] = samples
        object["training"] = Self.trainingObject(try await storeCall { try await store.trainingFigures(of: workout.id, profile: profile) })
        // Kept from format 1, where it was the only moving time never null: moving_time_s now is.
        object["active_duration_s"] = workout.movingTime
        if let device = DeviceTotals(workout.metadata) {
            object["device"] = device.metadataValues.mapValues { Double($0) ?? 0 }
        }
        object["events"] = events.map { event -> [String: Any] in
            var item: [String: Any] = ["type": event.kind.rawValue, "time": RFC3339.string(from: event.time)]
            if let name = event.name { item["name"] = name }
            return item
        }
        object["laps"] = laps.map { lap -> [String: Any] in
            [
                "index": lap.index, "start": RFC3339.string(from: lap.start), "end": RFC3339.string(from: lap.end),
                "distance_m": Format.json(lap.distance), "elapsed_time_s": lap.elapsedTime, "duration_s": lap.duration,
                "moving_time_s": lap.movingTime, "active_duration_s": lap.movingTime,
                "heart_rate_avg": Format.json(lap.heartRateAverage),
                "samples": Dictionary(uniqueKeysWithValues: lap.samples.map { type, figures in
                    (type.rawValue, ["count": figures.count, "average": Format.json(figures.average), "maximum": figures.maximum] as [String: Any])
                }),
            ]
        }
        return object
    }

    private func draw(_ workout: WorkoutRecord, in store: WorkoutStore, to path: String) async throws {
        let svg = try await storeCall { try await store.plotSVG(of: workout.id) }
        do {
            try Data(svg.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            Output.error("workout show: cannot write \(path): \(error.localizedDescription)")
            throw ExitCode(.cannotCreate)
        }
    }
}
