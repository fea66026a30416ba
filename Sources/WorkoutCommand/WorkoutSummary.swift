import Foundation
import LocationFacade
import Workout
import GPSCore

/// What `workout import` prints about one imported workout: lines for a person, or one JSON object.
struct WorkoutSummary {
    var imported: ImportedWorkout
    var file: String

    init(_ imported: ImportedWorkout, file: String) {
        self.imported = imported
        self.file = file
    }

    var text: [String] {
        let workout = imported.workout
        let track = "track \(imported.trackIndex + 1)" + (imported.trackName.map { " \"\($0)\"" } ?? "")
        let status = imported.isNew ? "imported as" : "already in the store as"
        var lines = ["\(file): \(track): \(status) \(imported.workoutID.uuidString) (\(workout.activityType))"]
        var facts = [
            "\(Format.dateTime(workout.start)) to \(Format.dateTime(workout.end))",
            "\(imported.points) points in \(imported.segments) segment\(imported.segments == 1 ? "" : "s")",
            Format.distance(workout.totals.distance),
            Format.duration(workout.duration),
        ]
        if let gain = workout.totals.elevationGain { facts.append("+\(Int(gain.rounded())) m") }
        if let average = imported.heartRateAverage, let maximum = imported.heartRateMaximum {
            facts.append("heart rate avg \(Int(average.rounded())) max \(Int(maximum.rounded()))")
        }
        lines.append("  " + facts.joined(separator: ", "))
        if imported.duplicatesDropped > 0 {
            lines.append("  \(imported.duplicatesDropped) exact duplicate point\(imported.duplicatesDropped == 1 ? "" : "s") dropped")
        }
        if !imported.skipped.isEmpty {
            lines.append("  skipped \(imported.skipped.count):")
            lines += imported.skipped.map { "    " + $0.located(in: file) }
        }
        return lines
    }

    /// The keys: id, file, track, name, status (`imported`, `already_imported`), activity, start,
    /// end, points, segments, duplicates_dropped, distance_m, duration_s, moving_time_s,
    /// elevation_gain_m, elevation_loss_m, heart_rate_avg, heart_rate_max, samples, skipped
    /// (objects with line, column, reason). Absent numbers are null.
    var json: String {
        let workout = imported.workout
        let object: [String: Any] = [
            "id": imported.workoutID.uuidString,
            "file": file,
            "track": imported.trackIndex,
            "name": imported.trackName as Any? ?? NSNull(),
            "status": imported.isNew ? "imported" : "already_imported",
            "activity": workout.activityType.rawValue,
            "start": RFC3339.string(from: workout.start),
            "end": RFC3339.string(from: workout.end),
            "points": imported.points,
            "segments": imported.segments,
            "duplicates_dropped": imported.duplicatesDropped,
            "distance_m": Format.json(workout.totals.distance),
            "duration_s": workout.duration,
            "moving_time_s": Format.json(workout.totals.movingTime),
            "elevation_gain_m": Format.json(workout.totals.elevationGain),
            "elevation_loss_m": Format.json(workout.totals.elevationLoss),
            "heart_rate_avg": Format.json(imported.heartRateAverage),
            "heart_rate_max": Format.json(imported.heartRateMaximum),
            "samples": imported.samples,
            "skipped": imported.skipped.map { ["line": $0.line, "column": $0.column, "reason": $0.reason] as [String: Any] },
        ]
        return Format.jsonLine(object)
    }
}
