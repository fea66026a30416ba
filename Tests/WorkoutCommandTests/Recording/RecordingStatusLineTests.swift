import Foundation
import GPX
import LocationFacade
import Simulators
import Testing
import TestSupport

/// What a runner sees on `workout record`'s status line is what is saved: a speedless replay (a
/// GPX track without `<speed>`, as most files are) of a run with three stops, recorded with
/// auto-pause on a terminal (`script` gives the command one), shows at no moment more distance or
/// moving time than the workout it saves. The status line used to show about twice the distance
/// (12.97 km live for a 6.5 km run).
@Suite(.timeLimit(.minutes(2))) struct RecordingStatusLineTests {
    /// A run at about 3 m/s for 15 minutes, stopping three times for 40 s (wandering 3 m about
    /// where it stopped), without speeds: the GPX file `workout record --simulate` replays.
    static func runWithStops(to path: String) throws {
        let moving = SyntheticTrack.generate(count: 900, seed: 7)
        var random = SeededRandom(seed: 8)
        var fixes: [Location] = []
        var shift = 0.0
        for (index, fix) in moving.enumerated() {
            var fix = fix
            fix.time = fix.time!.addingTimeInterval(shift)
            fixes.append(fix)
            guard [200, 450, 700].contains(index) else { continue }
            for second in 1...40 {
                var still = fix
                still.latitude += random.uniform(-3, 3) / 111_195
                still.longitude += random.uniform(-3, 3) / (111_195 * cos(fix.latitude * .pi / 180))
                still.time = fix.time!.addingTimeInterval(Double(second))
                fixes.append(still)
            }
            shift += 40
        }
        var bytes: [UInt8] = []
        GPXWriter.appendHeader(creator: "test", to: &bytes)
        GPXWriter.appendTrackStart(name: "stops", type: "running", to: &bytes)
        GPXWriter.appendSegmentStart(to: &bytes)
        for fix in fixes {
            GPXWriter.appendTrackPoint(GPXPoint(
                latitude: fix.latitude, longitude: fix.longitude, elevation: fix.altitude, time: GPXTime(date: fix.time!)), to: &bytes)
        }
        GPXWriter.appendSegmentEnd(to: &bytes)
        GPXWriter.appendTrackEnd(to: &bytes)
        GPXWriter.appendFooter(to: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Metres in `text` as `Format.distance` writes them ("850 m", "10.02 km"), and how much the
    /// rounding can hide.
    static func metres(_ text: Substring) -> (value: Double, rounding: Double)? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let number = Double(parts[0]) else { return nil }
        return parts[1] == "km" ? (number * 1000, 5) : (number, 0.5)
    }

    static func seconds(_ text: Substring) -> Double? {
        let parts = text.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }

    @Test func theStatusLineNeverShowsMoreThanIsSaved() async throws {
        let folder = NSTemporaryDirectory() + "workout-status-line-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let gpx = folder + "/stops.gpx", store = folder + "/runs.sqlite", typescript = folder + "/typescript"
        try Self.runWithStops(to: gpx)
        let command = [Repository.builtExecutable("workout").path, "record", "--store", store, "--simulate", gpx,
                       "--auto-pause", "--speed", "100", "--json"].joined(separator: " ")
        let script = try ChildProcess("/usr/bin/script", ["-qec", command, typescript])
        #expect(await script.waitUntilExit() == 0)
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: typescript)), as: UTF8.self)
        let lines = text.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
        let saved = try #require(lines.compactMap { line -> [String: Any]? in
            guard line.hasPrefix("{") else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }.last, "the saved workout's JSON in \(lines.suffix(5))")
        let distance = try #require(saved["distance_m"] as? Double), moving = try #require(saved["moving_time_s"] as? Double)
        #expect(abs(distance - 2_730) < 150, "the run's own distance, about 2.7 km: \(distance) m")
        // "running  duration 0:12:01 (moving 0:11:40)  2.17 km  0:05:23/km  lap 1"
        let status = lines.filter { $0.contains("(moving ") && $0.contains("  lap ") }
        #expect(status.count >= 3, "status lines: \(lines.prefix(20))")
        for line in status {
            let fields: [Substring] = line.split(separator: "  ").map { $0.drop { $0 == " " } }
            let durations = fields.first { $0.hasPrefix("duration ") }?.split(separator: "(moving ").last
            let shownMoving = try #require(durations.flatMap { Self.seconds($0.dropLast()) }, "\(line)")
            let shown = try #require(fields.compactMap(Self.metres).first, "\(line)")
            #expect(shown.value <= distance + shown.rounding, "\(line): the workout saved \(distance) m")
            #expect(shownMoving <= moving + 0.5, "\(line): the workout saved \(moving) s moving")
        }
    }
}
