import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport
@testable import Workout

/// The figures of a stored workout that every path must keep: what `workout show` prints.
struct ShownFigures: CustomStringConvertible {
    var distance: Double
    var elapsed: Double
    var duration: Double
    var moving: Double
    var heartRate: Double?
    var laps: Int
    var pauses: Int
    var stops: Int
    var energy: Double?

    init(_ workout: WorkoutRecord, in store: WorkoutStore) async throws {
        distance = workout.totals.distance ?? 0
        elapsed = workout.elapsedTime
        duration = workout.duration
        moving = workout.movingTime
        heartRate = try await store.sampleFigures(of: workout.id)[.heartRate]?.average
        laps = try await store.laps(of: workout.id).count
        let events = try await store.events(of: workout.id)
        pauses = events.filter { $0.kind == .pause }.count
        stops = events.filter { $0.kind == .motionPaused }.count
        energy = workout.totals.energy
    }

    var description: String {
        String(format: "%.1f m, elapsed %.1f s, duration %.1f s, moving %.1f s, heart rate %@, %d laps, %d pauses, %d stops, energy %@",
               distance, elapsed, duration, moving, heartRate.map { String(format: "%.2f", $0) } ?? "-", laps, pauses, stops,
               energy.map { String(format: "%.0f kcal", $0) } ?? "-")
    }

    /// What differs beyond the issue's tolerances: distance 0.1 %, times 1 s, mean heart rate 1 bpm,
    /// laps, pauses and stops equal, energy within a kilocalorie a lap (TCX holds a lap's in whole
    /// kilocalories), or absent in both.
    func differences(from other: ShownFigures) -> [String] {
        var found: [String] = []
        if abs(distance - other.distance) > 0.001 * max(distance, 1) { found.append("distance") }
        if abs(elapsed - other.elapsed) > 1 { found.append("elapsed time") }
        if abs(duration - other.duration) > 1 { found.append("duration") }
        if abs(moving - other.moving) > 1 { found.append("moving time") }
        switch (heartRate, other.heartRate) {
        case let (a?, b?) where abs(a - b) > 1: found.append("heart rate")
        case (.some, nil), (nil, .some): found.append("heart rate")
        default: break
        }
        if laps != other.laps { found.append("laps") }
        if pauses != other.pauses { found.append("pauses") }
        if stops != other.stops { found.append("stops") }
        switch (energy, other.energy) {
        case let (a?, b?) where abs(a - b) > Double(max(laps, 1)): found.append("energy")
        case (.some, nil), (nil, .some): found.append("energy")
        default: break
        }
        return found
    }
}

/// Imports any file our importers read (GPX, FIT, TCX), as `workout import` does.
enum AnyImport {
    typealias Imported = (workout: WorkoutRecord, outcome: SaveOutcome, pauses: Int?, stops: Int?)

    /// The workouts imported (or found already stored), with their outcomes, and the pauses and
    /// stops the import reports (what `workout import` prints; FIT and TCX).
    static func run(_ path: String, into store: WorkoutStore) async throws -> [Imported] {
        switch WorkoutFileFormat(contentsOf: path) {
        case .gpx?:
            return try await GPXImporter(store: store).importFile(at: path).workouts.map { ($0.workout, $0.outcome, nil, nil) }
        case .fit?:
            return try await FITImporter(store: store).importFile(at: path).workouts.map { ($0.workout, $0.outcome, $0.pauses, $0.stops) }
        case .tcx?:
            return try await TCXImporter(store: store).importFile(at: path).workouts.map { ($0.workout, $0.outcome, $0.pauses, $0.stops) }
        case nil:
            Issue.record("\(path): not GPX, FIT or TCX")
            return []
        }
    }
}


/// Recorded sessions, through a real `WorkoutSession` on a virtual clock: a run at 3 m/s with
/// three stops, the receiver's speed reported or not, auto-pause on or off, a poor fix now and
/// then (150 m accuracy, 80 m off: the session counts it for nothing), the user pausing once and
/// pressing a lap, and a strap read between the fixes (its heart rate 0.37 s after each fix, and
/// its beat-to-beat intervals).
enum RecordedSessions {
    struct Variant: Sendable, CustomStringConvertible {
        var reportsSpeed: Bool
        var autoPause: Bool
        var description: String { "speed \(reportsSpeed ? "reported" : "worked out"), auto-pause \(autoPause ? "on" : "off")" }
    }

    static let variants = [Variant(reportsSpeed: true, autoPause: true), Variant(reportsSpeed: false, autoPause: true),
                           Variant(reportsSpeed: true, autoPause: false), Variant(reportsSpeed: false, autoPause: false)]

    /// The fixes: 8 minutes of running, with 40 s stops wandering 3 m after minutes 2, 4 and 6.
    static func fixes(reportsSpeed: Bool) -> [Location] {
        let moving = SyntheticTrack.generate(count: 480, startTime: Date().addingTimeInterval(-7_200), seed: 31)
        var random = SeededRandom(seed: 32)
        var fixes: [Location] = []
        var shift = 0.0
        for (index, fix) in moving.enumerated() {
            var fix = fix
            fix.time = fix.time!.addingTimeInterval(shift)
            fix.receivedAt = fix.time!
            if !reportsSpeed { fix.speed = nil }
            if index % 97 == 50 {
                fix.horizontalAccuracy = 150
                fix.latitude += 80 / 111_195
            }
            fixes.append(fix)
            guard [120, 240, 360].contains(index) else { continue }
            for second in 1...40 {
                var still = fix
                still.latitude += random.uniform(-3, 3) / 111_195
                still.longitude += random.uniform(-3, 3) / (111_195 * cos(fix.latitude * .pi / 180))
                still.time = fix.time!.addingTimeInterval(Double(second))
                still.receivedAt = still.time!
                if reportsSpeed { still.speed = random.uniform(0, 0.3) }
                fixes.append(still)
            }
            shift += 40
        }
        return fixes
    }

    /// Records `variant` into `store`; returns the saved workout.
    static func record(_ variant: Variant, into store: WorkoutStore) async throws -> WorkoutRecord {
        let clock = VirtualClock()
        let source = FakeLocationSource()
        let strap = HandFedSampleSource()
        let session = WorkoutSession(
            store: store, source: source, samples: [strap],
            configuration: .init(activityType: .running, autoPause: variant.autoPause ? .defaults(for: .running) : nil),
            clock: clock)
        try session.start()
        let fixes = fixes(reportsSpeed: variant.reportsSpeed)
        var random = SeededRandom(seed: 33)
        var samples: [QuantitySample] = []
        var heartRate = 130.0
        for (index, fix) in fixes.enumerated() {
            source.send(.location(fix))
            if index == 200 { try session.pause() }
            if index == 230 { try session.resume() }
            if index == 300 { try session.lap() }
            let time = fix.time!.addingTimeInterval(0.37)
            heartRate = min(185, max(95, heartRate + random.uniform(-2, 2.2)))
            samples.append(QuantitySample(type: .heartRate, value: heartRate.rounded(), at: time))
            let beat = 60 / heartRate
            samples.append(QuantitySample(type: .heartbeatInterval, value: (beat * 1024).rounded() / 1024, start: time - beat, end: time))
        }
        // The strap's readings reach the session through its stream, after the fixes they follow.
        for sample in samples { strap.send(sample) }
        var figures = session.statistics(buffering: .all).makeAsyncIterator()
        while let current = await figures.next(), (current.samples[.heartRate]?.count ?? 0) < samples.count / 2 {
            await clock.advance(by: .seconds(1))
        }
        return try await session.end()
    }
}
