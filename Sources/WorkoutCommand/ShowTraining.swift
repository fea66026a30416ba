import Foundation
import Workout

/// `workout show`'s training figures: normalized power, intensity factor, training stress score,
/// work and the time in zones, with the device's own beside them where they differ.
extension Show {
    /// The profile `--ftp` and `--max-heart-rate` give, to put over the workout's own.
    var profileOverride: TrainingProfile {
        TrainingProfile(functionalThresholdPower: ftp, maximumHeartRate: maxHeartRate)
    }

    /// The lines of the training figures (none without power or heart-rate zones).
    static func trainingLines(_ training: TrainingSummary, device: DeviceTotals?) -> [String] {
        var lines: [String] = []
        if training.work != nil || training.normalizedPower != nil {
            var ours: [String] = []
            var theirs: [String] = []
            func add(_ name: String, _ value: Double?, _ deviceValue: Double?, _ format: String, unit: String = "") {
                guard value != nil || deviceValue != nil else { return }
                let text = value.map { "\(name) \(String(format: format, $0))\(unit)" }
                if let text { ours.append(text) }
                if let deviceValue {
                    let deviceText = "\(name) \(String(format: format, deviceValue))\(unit)"
                    if deviceText != text { theirs.append(deviceText) }
                }
            }
            add("NP", training.normalizedPower, device?.normalizedPower, "%.0f", unit: " W")
            add("IF", training.intensityFactor, device?.intensityFactor, "%.2f")
            add("TSS", training.trainingStressScore, device?.trainingStressScore, "%.1f")
            add("work", training.work, device?.work, "%.0f", unit: " kJ")
            var line = "  training   " + ours.joined(separator: "  ")
            if let ftp = training.profile.functionalThresholdPower {
                line += " (FTP \(String(format: "%.0f", ftp)) W)"
            } else if training.normalizedPower != nil {
                line += " (no FTP: give --ftp for IF and TSS)"
            }
            if !theirs.isEmpty {
                let ftp = device?.thresholdPower.map { ", FTP \(String(format: "%.0f", $0)) W" } ?? ""
                line += " (the device: \(theirs.joined(separator: "  "))\(ftp))"
            }
            lines.append(line)
        }
        if let zones = training.powerZones { lines.append("  power zones " + zoneText(zones)) }
        if let zones = training.heartRateZones { lines.append("  hr zones    " + zoneText(zones)) }
        return lines
    }

    /// `Z1 0:12:00  Z2 0:30:00 ...`, and the time without a reading when there is any.
    private static func zoneText(_ zones: ZoneTimes) -> String {
        var parts = zones.times.enumerated().map { "Z\($0.offset + 1) \(Format.duration($0.element))" }
        if zones.unrecorded >= 0.5 { parts.append("none \(Format.duration(zones.unrecorded))") }
        return parts.joined(separator: "  ")
    }

    /// The `training` object of `show --json`.
    static func trainingObject(_ training: TrainingSummary) -> [String: Any] {
        var object: [String: Any] = [
            "duration_s": Format.json(training.duration), "power_time_s": Format.json(training.powerTime),
            "heart_rate_time_s": Format.json(training.heartRateTime),
            "normalized_power_w": Format.json(training.normalizedPower), "intensity_factor": Format.json(training.intensityFactor),
            "training_stress_score": Format.json(training.trainingStressScore), "work_kj": Format.json(training.work),
            "ftp_w": Format.json(training.profile.functionalThresholdPower),
            "max_heart_rate_bpm": Format.json(training.profile.maximumHeartRate),
        ]
        func zones(_ zones: ZoneTimes?) -> Any {
            guard let zones else { return NSNull() }
            return [
                "upper_bounds": zones.upperBounds.map(Format.json), "times_s": zones.times.map(Format.json),
                "unrecorded_s": Format.json(zones.unrecorded),
            ] as [String: Any]
        }
        object["time_in_power_zone"] = zones(training.powerZones)
        object["time_in_hr_zone"] = zones(training.heartRateZones)
        return object
    }
}
