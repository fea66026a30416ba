import Foundation
import GPX
import LocationFacade
import Simulators
import Testing
import TestSupport
@testable import Workout

/// Random sessions, from fixed seeds: fix streams with stops (drift at rest), gaps, jumps,
/// inaccurate fixes, fixes without a time or a speed, the user's pauses, laps and markers, and
/// auto-pause and auto-laps or not. For each, the figures agree however they are worked out:
/// live (`end()`), recovered after a crash (`WorkoutStore.end(_:)`), resumed after a crash,
/// recomputed from the saved route and events (`laps(of:)`), and measured on the GPX export by
/// the GPX import.
@Suite(.timeLimit(.minutes(3))) struct SessionPropertyTests {
    /// One random session: its fixes, what the user does after which fix, and its configuration.
    struct Case: CustomStringConvertible {
        var seed: UInt64
        var fixes: [Location]
        /// After fix `index`, the user does `action`.
        var actions: [(index: Int, action: WorkoutSession.Action)]
        var configuration: WorkoutSession.Configuration

        var description: String {
            "seed \(seed): \(fixes.count) fixes, \(actions.count) actions, auto-pause \(configuration.autoPause != nil), "
                + "auto-lap \(configuration.autoLapDistance.map { "\($0) m" } ?? "-") \(configuration.autoLapTime.map { "\($0)" } ?? "-")"
        }
    }

    static func makeCase(seed: UInt64) -> Case {
        var random = SeededRandom(seed: seed)
        let start = Date().addingTimeInterval(-86_400)
        let speeds = Int.random(in: 0..<3, using: &random)  // 0: always reported, 1: never, 2: now and then
        var fixes: [Location] = []
        var (east, north, altitude) = (0.0, 0.0, 30.0)
        var second = 0.0
        var heading = Double.random(in: 0..<(2 * .pi), using: &random)
        let metresPerDegreeEast = 111_195 * cos(48.2 * .pi / 180)
        func add(speed: Double, drift: Double = 0, accuracy: Double? = nil) {
            let (driftEast, driftNorth) = drift > 0
                ? (Double.random(in: -drift...drift, using: &random), Double.random(in: -drift...drift, using: &random)) : (0, 0)
            let time = start.addingTimeInterval(second)
            let reported: Double? = switch speeds {
            case 0: speed
            case 1: nil
            default: Bool.random(using: &random) ? speed : nil
            }
            var fix = Location(
                latitude: 48.2 + (north + driftNorth) / 111_195, longitude: 16.37 + (east + driftEast) / metresPerDegreeEast,
                altitude: altitude, horizontalAccuracy: accuracy ?? Double.random(in: 3...8, using: &random), speed: reported,
                time: time, receivedAt: time, mode: .fix3D, isSimulated: true)
            if Int.random(in: 0..<150, using: &random) == 0 { fix.time = nil }  // the receiver has no date yet
            fixes.append(fix)
        }
        for _ in 0..<Int.random(in: 3...7, using: &random) {
            let speed = Double.random(in: 1...6, using: &random)
            for _ in 0..<Int.random(in: 20...120, using: &random) {
                heading += Double.random(in: -0.2...0.2, using: &random)
                east += speed * sin(heading)
                north += speed * cos(heading)
                altitude += Double.random(in: -1...1.2, using: &random)
                second += 1
                switch Int.random(in: 0..<100, using: &random) {
                case 0: second += Double(Int.random(in: 2...60, using: &random))  // a gap
                case 1: add(speed: speed, accuracy: 150)  // a bad fix
                case 2: east += 5_000  // a jump
                default: break
                }
                add(speed: speed)
            }
            if Bool.random(using: &random) {
                for _ in 0..<Int.random(in: 10...60, using: &random) {
                    second += 1
                    add(speed: Double.random(in: 0.05...0.3, using: &random), drift: 3)
                }
            }
        }
        var actions: [(Int, WorkoutSession.Action)] = []
        var index = Int.random(in: 5...40, using: &random)
        var paused = false
        while index < fixes.count - 5 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                actions.append((index, paused ? .resume : .pause))
                paused.toggle()
            case 2: actions.append((index, .lap))
            default: actions.append((index, .mark))
            }
            index += Int.random(in: 5...90, using: &random)
        }
        let autoPause = Bool.random(using: &random)
        let lapDistance: Double? = Bool.random(using: &random) ? Double.random(in: 100...600, using: &random) : nil
        let lapTime: Duration? = Bool.random(using: &random) ? .seconds(Int.random(in: 30...200, using: &random)) : nil
        return Case(
            seed: seed, fixes: fixes, actions: actions,
            configuration: .init(
                activityType: .running, autoPause: autoPause ? .defaults(for: .running) : nil, autoLapDistance: lapDistance,
                autoLapTime: lapTime))
    }

    /// Plays `fixes` (each one second apart on the clock, whatever its time) into a session, the
    /// user acting after the fixes the case says. Returns the session with everything written.
    func record(
        _ fixes: ArraySlice<Location>, actions: [(index: Int, action: WorkoutSession.Action)], into store: WorkoutStore,
        configuration: WorkoutSession.Configuration, resuming interrupted: InterruptedSession? = nil
    ) async throws -> WorkoutSession {
        let clock = VirtualClock()
        let source = FakeLocationSource()
        let session: WorkoutSession
        if let interrupted {
            session = try await WorkoutSession.resume(interrupted, store: store, source: source, clock: clock)
        } else {
            session = WorkoutSession(store: store, source: source, configuration: configuration, clock: clock)
            try session.start()
        }
        var next = actions.firstIndex { $0.index >= fixes.startIndex } ?? actions.endIndex
        for index in fixes.indices {
            source.send(.location(fixes[index]))
            while next < actions.endIndex, actions[next].index == index {
                switch actions[next].action {
                case .pause: try? session.pause()
                case .resume: try? session.resume()
                case .lap: try session.lap()
                case .mark: try session.mark("mark \(index)")
                default: break
                }
                next += 1
            }
        }
        // The last fix is held for a next one until a second goes by, then written.
        for _ in 0..<5 where !session.isAllWritten {
            await clock.advance(by: .seconds(1))
            await session.settled()
        }
        return session
    }

    /// Leaves a session's rows as a crashed process leaves them.
    func crash(_ session: WorkoutSession, in store: WorkoutStore) async throws -> InterruptedSession {
        try #require(session.isAllWritten)
        let ended = StagingOwner(pid: getpid(), start: StagingOwner.current.start + 1)
        try await store.withDatabase { db in
            for table in ["workout", "route"] {
                try db.execute(
                    sql: "UPDATE \(table) SET builder_owner = substr(builder_owner, 1, 44) || ':' || ? WHERE builder_owner LIKE 'session:%'",
                    arguments: [ended.description])
            }
        }
        let interrupted = try await store.interruptedSessions()
        try #require(interrupted.count == 1)
        return interrupted[0]
    }

    static let seeds: [UInt64] = Array(1...24)

    @Test(arguments: seeds)
    func liveRecoveredAndRecomputedFiguresAgree(seed: UInt64) async throws {
        let example = Self.makeCase(seed: seed)
        let fixes = example.fixes[...]
        // Live.
        let liveStore = try WorkoutStore.inMemory()
        let live = try await record(fixes, actions: example.actions, into: liveStore, configuration: example.configuration)
        let workout = try await live.end()
        let totals = workout.totals
        // Recovered after a crash at the same point.
        let crashStore = try WorkoutStore.inMemory()
        let crashed = try await record(fixes, actions: example.actions, into: crashStore, configuration: example.configuration)
        let recovered = try #require(try await crashStore.end(try await crash(crashed, in: crashStore)))
        #expect(recovered.totals == totals, "\(example)")
        #expect(recovered.start == workout.start && recovered.end == workout.end, "\(example)")
        #expect(try await crashStore.events(of: recovered.id) == liveStore.events(of: workout.id), "\(example)")
        #expect(try await crashStore.laps(of: recovered.id) == liveStore.laps(of: workout.id), "\(example)")
        withExtendedLifetime(crashed) {}
        // Recomputed from the saved route and events.
        let laps = try await liveStore.laps(of: workout.id)
        let distance = try #require(totals.distance), active = try #require(totals.movingTime)
        #expect(abs(laps.map(\.distance).reduce(0, +) - distance) <= 1e-6 * max(1, distance), "\(example)")
        #expect(abs(laps.map(\.movingTime).reduce(0, +) - active) <= 1e-6, "\(example)")
        // Measured on the GPX export, by the import: what the session counted.
        let file = NSTemporaryDirectory() + "property-\(seed)-\(UUID()).gpx"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await liveStore.export(workout.id, format: .gpx, toFileAt: file)
        let imported = try await GPXImporter(store: try WorkoutStore.inMemory()).importFile(at: file)
        if let importedWorkout = imported.workouts.first {
            let measured = importedWorkout.workout.totals
            #expect(abs((measured.distance ?? 0) - distance) <= 1e-6 * max(1, distance), "\(example)")
            #expect(abs((measured.elevationGain ?? 0) - (totals.elevationGain ?? 0)) <= 1e-6, "\(example)")
        } else {
            #expect(distance == 0, "\(example): nothing exported, yet \(distance) m")
        }
        let again = try await GPXImporter(store: liveStore).importFile(at: file)
        #expect(again.workouts.allSatisfy { !$0.isNew }, "\(example): re-importing the export finds the session")
    }

    /// A crash halfway and a resume: the figures are the same whether the resumed session ends
    /// itself or crashes again and is recovered.
    @Test(arguments: seeds.prefix(12))
    func aResumedSessionEndsAsItsRecoveryWould(seed: UInt64) async throws {
        let example = Self.makeCase(seed: seed)
        let half = example.fixes.count / 2
        let (first, second) = (example.fixes[..<half], example.fixes[(half + 10)...])
        func resumeAfterCrash(in store: WorkoutStore) async throws -> WorkoutSession {
            let crashed = try await record(first, actions: example.actions, into: store, configuration: example.configuration)
            let interrupted = try await crash(crashed, in: store)
            withExtendedLifetime(crashed) {}
            return try await record(second, actions: example.actions, into: store, configuration: example.configuration, resuming: interrupted)
        }
        let endedStore = try WorkoutStore.inMemory()
        let ended = try await resumeAfterCrash(in: endedStore).end()
        let recoveredStore = try WorkoutStore.inMemory()
        let again = try await resumeAfterCrash(in: recoveredStore)
        let recovered = try #require(try await recoveredStore.end(try await crash(again, in: recoveredStore)))
        #expect(recovered.totals == ended.totals, "\(example)")
        #expect(try await recoveredStore.events(of: recovered.id) == endedStore.events(of: ended.id), "\(example)")
        let events = try await endedStore.events(of: ended.id)
        #expect(events.contains(WorkoutEvent(.pause, at: first.last!.time ?? .distantPast)) || events.contains { $0.kind == .pause },
                "the time it was down is a pause")
    }
}

