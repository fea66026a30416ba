import ArgumentParser
import Foundation
import LocationFacade
import Simulators
import LocationCore
import Workout
import WorkoutSimulators

/// `gpsbench session`: a recorded workout session over `fixes` 1 Hz fixes from the replay device
/// on a `VirtualClock` (advanced a minute at a time), written to a store file as it goes, with
/// auto-pause and auto-laps, then ended; for `scripts/bench.d/70-session.py`. Prints the CPU time
/// of the recording per fix (every fix through admission, auto-pause and the time line; with
/// `--no-speed` the fixes carry no speed, so auto-pause works it out from their positions), the
/// time end() takes, the time `laps(of:)` and `splits(of:every: 1000)` of the saved workout take
/// (the best of five), and the process's peak RSS once the track and the replay device are made
/// (before the session) and after it.
struct SessionBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Record a session of 1 Hz fixes into a store file on a virtual clock; print JSON.")

    @Option(help: "How many fixes (one a second).")
    var fixes = 10_800

    @Option(help: "The store file (created; removed after).")
    var store: String

    @Flag(help: "Fixes without a reported speed: auto-pause works it out from the positions.")
    var noSpeed = false

    @Flag(help: "Indoors: no fixes; a trainer's speed, distance, power and cadence and a strap's heart rate, each once a second for as many seconds as --fixes.")
    var indoor = false

    func run() async throws {
        if indoor { return try await runIndoors() }
        var track = SyntheticTrack.generate(count: fixes, seed: 10_800)
        if noSpeed {
            for index in track.indices { track[index].speed = nil }
        }
        try? FileManager.default.removeItem(atPath: store)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let workouts = try WorkoutStore(path: store)
        let clock = VirtualClock()
        let device = ReplayLocationSource(locations: track, clock: clock)
        let baseline = ReplayDayBench.peakResidentBytes()
        // The session's own clock (its writer's once-a-second tick when nothing new comes) stays
        // real, as in the field: on the virtual clock a day of ticks would run in a second of CPU,
        // a cost of the time compressed, not of the fixes.
        let session = WorkoutSession(
            store: workouts, source: device,
            configuration: .init(activityType: .cycling, autoPause: .defaults(for: .cycling), autoLapDistance: 1_000))
        let cpuBefore = Self.cpuSeconds()
        try session.start()
        // A minute at a time, as fixes come in the field: the writer keeps up between minutes.
        for _ in 0..<(fixes + 59) / 60 {
            await clock.advance(by: .seconds(60))
            await Task.yield()
        }
        let cpuRecording = Self.cpuSeconds() - cpuBefore
        let wall = ContinuousClock()
        let ending = wall.now
        let workout = try await session.end()
        let endTime = wall.now - ending
        let points = try await workouts.route(of: workout.id)?.pointCount ?? 0
        // The session's memory: before the queries below read the saved day back.
        let peak = ReplayDayBench.peakResidentBytes()
        var (lapsTime, splitsTime) = (Duration.seconds(3_600), Duration.seconds(3_600))
        var (laps, splits) = (0, 0)
        for _ in 0..<5 {
            let lapsStart = wall.now
            laps = try await workouts.laps(of: workout.id).count
            lapsTime = min(lapsTime, wall.now - lapsStart)
            let splitsStart = wall.now
            splits = try await workouts.splits(of: workout.id, every: 1_000).count
            splitsTime = min(splitsTime, wall.now - splitsStart)
        }
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.attoseconds) / 1e18 + Double(duration.components.seconds)
        }
        print(#"{"fixes":\#(fixes),"points":\#(points),"cpu_per_fix_us":\#(cpuRecording / Double(fixes) * 1e6),"#
            + #""end_seconds":\#(seconds(endTime)),"laps":\#(laps),"laps_seconds":\#(seconds(lapsTime)),"#
            + #""splits":\#(splits),"splits_seconds":\#(seconds(splitsTime)),"#
            + #""peak_rss":\#(peak),"baseline_rss":\#(baseline)}"#)
    }

    /// An indoor session of `fixes` seconds: five samples a second from fakes on the virtual clock
    /// that deliver them to the session as they fall due (as a Bluetooth sensor does), with
    /// auto-pause and auto-laps, into a store file. Prints the CPU per sample.
    private func runIndoors() async throws {
        try? FileManager.default.removeItem(atPath: store)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let workouts = try WorkoutStore(path: store)
        let start = Date(timeIntervalSince1970: 1_717_000_000)
        var samples: [QuantitySample] = []
        samples.reserveCapacity(fixes * 5)
        for second in 1...fixes {
            let at = start.addingTimeInterval(Double(second))
            let speed = 8 + sin(Double(second) / 60)
            samples.append(QuantitySample(type: .speed, value: speed, at: at))
            samples.append(QuantitySample(type: .distance, value: speed, start: at.addingTimeInterval(-1), end: at))
            samples.append(QuantitySample(type: .power, value: 200 + 30 * sin(Double(second) / 45), at: at))
            samples.append(QuantitySample(type: .cadence, value: 90, at: at))
            samples.append(QuantitySample(type: .heartRate, value: 140, at: at.addingTimeInterval(0.3)))
        }
        let clock = VirtualClock()
        let time = FixTime(startingAt: start, clock: clock)
        let sensors = TimedSampleSource(samples: samples, startingAt: start, clock: clock)
        let baseline = ReplayDayBench.peakResidentBytes()
        let session = WorkoutSession(
            store: workouts, samples: [sensors],
            configuration: .init(activityType: .cycling, autoPause: .defaults(for: .cycling), autoLapDistance: 1_000), now: time.now)
        let cpuBefore = Self.cpuSeconds()
        try session.start()
        for _ in 0..<(fixes + 59) / 60 {
            await clock.advance(by: .seconds(60))
            await Task.yield()
        }
        let cpuRecording = Self.cpuSeconds() - cpuBefore
        let wall = ContinuousClock()
        let ending = wall.now
        let workout = try await session.end()
        let endTime = wall.now - ending
        let saved = try await workouts.sampleFigures(of: workout.id).values.map(\.count).reduce(0, +)
        let peak = ReplayDayBench.peakResidentBytes()
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.attoseconds) / 1e18 + Double(duration.components.seconds)
        }
        print(#"{"seconds":\#(fixes),"samples":\#(samples.count),"saved":\#(saved),"cpu_per_sample_us":\#(cpuRecording / Double(samples.count) * 1e6),"#
            + #""distance":\#(workout.totals.distance ?? 0),"end_seconds":\#(seconds(endTime)),"#
            + #""peak_rss":\#(peak),"baseline_rss":\#(baseline)}"#)
    }

    /// User and system CPU time of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
