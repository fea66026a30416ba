import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
@testable import Workout

/// Runs in a straight line for the recordings, a fix a second, dated now: a GPS week rollover is
/// corrected by comparing a fix's date with the system clock, so a run dated in 2024 would test
/// something else. Every run heads 60° from `origin`, at 3 m/s unless it stops.
enum StraightRun {
    static let course = 60.0
    static let speed = 3.0

    /// Now, to the whole second (the fake writes times to the millisecond).
    static func now() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// Fix `i` is `along[i]` metres along the course from `origin`, then `offsets[i]` metres east
    /// and north, `i` seconds after `start`, reporting `speeds[i]` (none when `nil`).
    static func fixes(
        along: [Double], offsets: [(east: Double, north: Double)]? = nil, speeds: [Double?], start: Date,
        origin: (latitude: Double, longitude: Double) = SyntheticTrack.greenwich
    ) -> [Location] {
        along.indices.map { index in
            var (latitude, longitude) = SyntheticTrack.destination(origin.latitude, origin.longitude, course: course, distance: along[index])
            if let offset = offsets?[index] {
                (latitude, longitude) = SyntheticTrack.destination(latitude, longitude, course: 90, distance: offset.east)
                (latitude, longitude) = SyntheticTrack.destination(latitude, longitude, course: 0, distance: offset.north)
            }
            let time = start.addingTimeInterval(Double(index))
            return Location(
                latitude: (latitude * 1e9).rounded() / 1e9, longitude: (longitude * 1e9).rounded() / 1e9, altitude: 30,
                horizontalAccuracy: 3, verticalAccuracy: 5, speed: speeds[index], course: course, time: time, receivedAt: time,
                mode: .fix3D, isSimulated: true)
        }
    }

    /// `count` fixes at 3 m/s: 120 of them cover 357 m in 119 s.
    static func steady(count: Int = 120, start: Date = now(), origin: (latitude: Double, longitude: Double) = SyntheticTrack.greenwich) -> [Location] {
        fixes(along: (0..<count).map { Double($0) * speed }, speeds: Array(repeating: speed, count: count), start: start, origin: origin)
    }

    /// 60 s at 3 m/s, a 60 s stop wandering up to 3 m east and north of where it stopped (seeded;
    /// a reported speed below 0.3 m/s, as a receiver's Doppler speed at rest), and 60 s at 3 m/s
    /// again: 180 fixes, 357 m in 119 s of motion.
    static func withStop(reportingSpeed: Bool, seed: UInt64 = 11, start: Date = now()) -> [Location] {
        var random = SeededRandom(seed: seed)
        var along: [Double] = [], offsets: [(east: Double, north: Double)] = [], speeds: [Double?] = []
        for index in 0..<180 {
            switch index {
            case ..<60:
                along.append(Double(index) * speed)
                offsets.append((0, 0))
                speeds.append(speed)
            case 60...120:
                along.append(180)
                offsets.append(index == 60 || index == 120 ? (0, 0) : (random.uniform(-3, 3), random.uniform(-3, 3)))
                speeds.append(index == 120 ? speed : random.uniform(0, 0.3))
            default:
                along.append(180 + Double(index - 120) * speed)
                offsets.append((0, 0))
                speeds.append(speed)
            }
        }
        return fixes(along: along, offsets: offsets, speeds: reportingSpeed ? speeds : speeds.map { _ in nil }, start: start)
    }
}

/// `workout record 127.0.0.1:PORT --activity running --auto-pause --json`, as the issue ran it,
/// against the fake gpsd playing a script, on a store file of its own (or one it is given).
///
/// The fake hangs up after its last report: the recorder coming back (it reconnects to a gpsd
/// that went away) shows it has read every report before it, so SIGINT then loses nothing in
/// flight and no test has to sleep.
final class Recording: Sendable {
    /// The fake plays the scripts this many times faster than their fixes' times.
    static let speed = 10.0

    let folder: String
    let store: String
    let gpsd: FakeGPSDServer
    let recorder: ChildProcess

    init(
        _ script: GPSDScript, speed: Double = Recording.speed, faults: [GPSDFault] = [], store: String? = nil,
        arguments: [String] = ["--activity", "running", "--auto-pause", "--json"]
    ) throws {
        folder = NSTemporaryDirectory() + "record-real-input-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.store = store ?? folder + "/workouts.sqlite"
        gpsd = FakeGPSDServer(
            script: script, pace: .recorded(speed: speed), faults: faults + [.closeConnections(afterMessages: script.entries.count)])
        let port = try gpsd.start()
        recorder = try ChildProcess(
            Repository.builtExecutable("workout").path, ["record", "127.0.0.1:\(port)", "--store", self.store] + arguments)
    }

    deinit {
        recorder.send(signal: SIGKILL)
        gpsd.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Returns once the fake has sent every report and the recorder has come back for more.
    func waitUntilEverythingIsRead() async {
        await gpsd.waitUntil { $0.isFinished && $0.watchers > 0 }
    }

    /// SIGINT, as Ctrl-C; returns how the recorder ended.
    func interrupt() async -> RecordingOutcome {
        recorder.send(signal: SIGINT)
        return await outcome()
    }

    /// How the recorder ended, once it has.
    func outcome() async -> RecordingOutcome {
        let status = await recorder.waitUntilExit()
        return RecordingOutcome(status: status, output: recorder.lines(.output), errors: recorder.lines(.error))
    }

    /// Plays the script to its end, then SIGINT.
    func finish() async -> RecordingOutcome {
        await waitUntilEverythingIsRead()
        return await interrupt()
    }

    /// Waits until the recorder has written at least `points` route points to the store: until
    /// the fake has sent that many (an event), then, reading the store, for the session's write
    /// (about a second behind).
    func waitUntilWritten(_ points: Int) async throws {
        await gpsd.waitUntil { $0.sentReports >= points }  // the recorder has opened (and so created) the store
        let watcher = try WorkoutStore(path: store)
        try await waitUntil {
            try await watcher.storageCounts().stagedPoints >= points || recorder.exitStatus != nil
        }
    }
}

/// How `workout record` ended, and the figures of the JSON object it printed.
struct RecordingOutcome: Sendable, CustomStringConvertible {
    var status: Int32
    var output: [String]
    var errors: [String]

    var description: String {
        "exit \(status); standard output: \(output.joined(separator: "\n")); standard error: \(errors.joined(separator: "\n"))"
    }

    /// The JSON object `--json` printed (the last line of standard output).
    var json: [String: Any] {
        guard let line = output.last, let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return [:]
        }
        return object
    }

    var points: Int? { json["points"] as? Int }
    var segments: Int? { json["segments"] as? Int }
    var distance: Double { json["distance_m"] as? Double ?? .nan }
    var duration: Double { json["duration_s"] as? Double ?? .nan }
    var activeTime: Double { json["active_duration_s"] as? Double ?? .nan }
    var start: Date? { (json["start"] as? String).flatMap { RFC3339.parse($0)?.date } }
    /// The events' types, in order.
    var events: [String] { (json["events"] as? [[String: Any]])?.compactMap { $0["type"] as? String } ?? [] }
    /// The counts of `"input"`, by reason.
    var input: [String: Int] { (json["input"] as? [String: Any])?.compactMapValues { $0 as? Int } ?? [:] }
    var storeFailures: [[String: Any]] { json["store_failures"] as? [[String: Any]] ?? [] }
    var malformedLines: Int? { json["malformed_lines"] as? Int }

    /// The lines of standard error that contain `text`.
    func errors(containing text: String) -> [String] {
        errors.filter { $0.contains(text) }
    }
}

/// `workout` run to its end with `arguments`.
func runWorkout(_ arguments: [String]) async throws -> RecordingOutcome {
    let process = try ChildProcess(Repository.builtExecutable("workout").path, arguments)
    let status = await process.waitUntilExit()
    return RecordingOutcome(status: status, output: process.lines(.output), errors: process.lines(.error))
}
