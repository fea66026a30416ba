import Foundation
import LocationFacade
import Workout
import GPSCore

/// What `workout import` prints about one imported workout (from a GPX track, a FIT activity or a
/// TCX activity): lines for a person, or one JSON object.
struct WorkoutSummary {
    var file: String
    /// `track 1 "Morning run"`, `activity 1`.
    var title: String
    var workoutID: UUID
    var isNew: Bool
    var workout: WorkoutRecord
    var points: Int
    var segments: Int
    var duplicatesDropped: Int
    var samples: Int
    var heartRateAverage: Double?
    var heartRateMaximum: Double?
    /// Laps, the user's pauses and auto-pause's stops, for the formats that have them.
    var laps: Int?
    var pauses: Int?
    var stops: Int?
    var deviceTotals: DeviceTotals?
    /// The recording device, shown for the formats that name one reliably (not GPX's `creator`, often an app).
    var device: String?
    /// Each skip located in the file (`FILE:LINE: ...`, `FILE: byte N: ...`), and as JSON.
    var skipped: [String]
    var skippedJSON: [[String: Any]]
    /// Keys of the JSON object that name where it is in the file (`track`, `name`; `fit_file`, `offset`).
    var location: [String: Any]

    init(_ imported: ImportedWorkout, file: String) {
        self.file = file
        title = "track \(imported.trackIndex + 1)" + (imported.trackName.map { " \"\($0)\"" } ?? "")
        (workoutID, isNew, workout) = (imported.workoutID, imported.isNew, imported.workout)
        (points, segments, duplicatesDropped, samples) = (imported.points, imported.segments, imported.duplicatesDropped, imported.samples)
        (heartRateAverage, heartRateMaximum) = (imported.heartRateAverage, imported.heartRateMaximum)
        skipped = imported.skipped.map { $0.located(in: file) }
        skippedJSON = imported.skipped.map { ["line": $0.line, "column": $0.column, "reason": $0.reason] }
        location = ["track": imported.trackIndex, "name": imported.trackName as Any? ?? NSNull()]
    }

    /// A TCX activity: as a GPX track, named as an activity, with its laps, pauses, device and totals.
    init(tcx imported: ImportedWorkout, file: String) {
        self.init(imported, file: file)
        title = "activity \(imported.trackIndex + 1)"
        (laps, pauses, stops, deviceTotals) = (imported.laps, imported.pauses, imported.stops, imported.deviceTotals)
        device = imported.workout.metadata.sourceDevice
        location = ["tcx_activity": imported.trackIndex, "line": imported.trackLine]
    }

    init(_ imported: FITImportedWorkout, file: String) {
        self.file = file
        title = "activity \(imported.fileIndex + 1)"
        (workoutID, isNew, workout) = (imported.workoutID, imported.isNew, imported.workout)
        (points, segments, duplicatesDropped, samples) = (imported.points, imported.segments, imported.duplicatesDropped, imported.samples)
        (heartRateAverage, heartRateMaximum) = (imported.heartRateAverage, imported.heartRateMaximum)
        (laps, pauses, stops, deviceTotals) = (imported.laps, imported.pauses, imported.stops, imported.deviceTotals)
        device = imported.workout.metadata.sourceDevice
        skipped = imported.skipped.map { $0.located(in: file) }
        skippedJSON = imported.skipped.map { ["offset": $0.offset, "reason": $0.reason] }
        location = ["fit_file": imported.fileIndex, "offset": imported.offset, "name": imported.workout.metadata.values["name"] as Any? ?? NSNull()]
    }

    var text: [String] {
        let status = isNew ? "imported as" : "already in the store as"
        let device = self.device.map { ", \($0)" } ?? ""
        var lines = ["\(file): \(title): \(status) \(workoutID.uuidString) (\(workout.activityType)\(device))"]
        var facts = [
            "\(Format.dateTime(workout.start)) to \(Format.dateTime(workout.end))",
            "\(points) points in \(segments) segment\(segments == 1 ? "" : "s")",
            Format.distance(workout.totals.distance),
            Format.duration(workout.duration),
        ]
        if points == 0 { facts[1] = "no position, \(samples) samples" }
        if let gain = workout.totals.elevationGain { facts.append("+\(Int(gain.rounded())) m") }
        if let average = heartRateAverage, let maximum = heartRateMaximum {
            facts.append("heart rate avg \(Int(average.rounded())) max \(Int(maximum.rounded()))")
        }
        if let laps, laps > 1 { facts.append("\(laps) laps") }
        if let pauses, let stops, pauses + stops > 0 {
            facts.append("\(pauses) pause\(pauses == 1 ? "" : "s"), \(stops) stop\(stops == 1 ? "" : "s")")
        }
        lines.append("  " + facts.joined(separator: ", "))
        if let deviceTotals, let said = DeviceFigures.said(deviceTotals) {
            lines.append("  the device: " + said)
        }
        if duplicatesDropped > 0 {
            lines.append("  \(duplicatesDropped) exact duplicate point\(duplicatesDropped == 1 ? "" : "s") dropped")
        }
        if !skipped.isEmpty {
            lines.append("  skipped \(skipped.count):")
            lines += skipped.map { "    " + $0 }
        }
        return lines
    }

    /// The keys: format_version (see `StoredWorkoutJSON.formatVersion`), id, file, status (`imported`, `already_imported`), activity, start, end, points,
    /// segments, duplicates_dropped, distance_m, elapsed_time_s, duration_s, moving_time_s, elevation_gain_m,
    /// elevation_loss_m, heart_rate_avg, heart_rate_max, samples, skipped (objects with line,
    /// column, reason for GPX and TCX; offset, reason for FIT), where it is in the file (GPX:
    /// track, name; FIT: fit_file, offset, name; TCX: tcx_activity, line), and for FIT and TCX
    /// laps, pauses, stops and device (the device's totals, keys as in the metadata). Absent numbers are null.
    var json: String {
        var object: [String: Any] = [
            "format_version": StoredWorkoutJSON.formatVersion,
            "id": workoutID.uuidString,
            "file": file,
            "status": isNew ? "imported" : "already_imported",
            "activity": workout.activityType.rawValue,
            "start": RFC3339.string(from: workout.start),
            "end": RFC3339.string(from: workout.end),
            "points": points,
            "segments": segments,
            "duplicates_dropped": duplicatesDropped,
            "distance_m": Format.json(workout.totals.distance),
            "elapsed_time_s": workout.elapsedTime,
            "duration_s": workout.duration,
            "moving_time_s": workout.movingTime,
            "elevation_gain_m": Format.json(workout.totals.elevationGain),
            "elevation_loss_m": Format.json(workout.totals.elevationLoss),
            "heart_rate_avg": Format.json(heartRateAverage),
            "heart_rate_max": Format.json(heartRateMaximum),
            "samples": samples,
            "skipped": skippedJSON,
        ]
        object.merge(location) { ours, _ in ours }
        if let laps { object["laps"] = laps }
        if let pauses { object["pauses"] = pauses }
        if let stops { object["stops"] = stops }
        if let deviceTotals { object["device"] = deviceTotals.metadataValues.mapValues { Double($0) ?? 0 } }
        return Format.jsonLine(object)
    }
}

/// The device's own totals in words, for `import` and `show`.
enum DeviceFigures {
    /// "10.05 km, timer 0:59:12, +120 m, 712 kcal", or `nil` when it gives none of them.
    static func said(_ totals: DeviceTotals) -> String? {
        var facts: [String] = []
        if let distance = totals.distance { facts.append(Format.distance(distance)) }
        if let timer = totals.timerTime { facts.append("timer \(Format.duration(timer))") }
        if let ascent = totals.ascent { facts.append("+\(Int(ascent.rounded())) m") }
        if let calories = totals.calories { facts.append("\(Int(calories.rounded())) kcal") }
        if let average = totals.heartRateAverage { facts.append("heart rate avg \(Int(average.rounded()))") }
        return facts.isEmpty ? nil : facts.joined(separator: ", ")
    }
}
