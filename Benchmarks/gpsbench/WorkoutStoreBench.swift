import ArgumentParser
import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Workout

/// `gpsbench workout-store ...`: saving runs through the HealthKit-style chain and reading routes
/// back, for `scripts/bench.d/40-workout-store.py`, which compares them with the sqlite3 shell
/// inserting and selecting the same rows.
struct WorkoutStoreBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout-store",
        abstract: "Save a synthetic run through the chain, read a route back, or write the same rows as CSV.",
        subcommands: [Save.self, Read.self, Rows.self]
    )

    /// The run every subcommand works on: SyntheticRun 0 with every route column filled (so the
    /// sqlite3 shell's `.import`, which cannot write NULL, inserts exactly the same rows).
    static func run(points: Int, samples: Int) -> SyntheticRun {
        var run = SyntheticRun(index: 0, points: points)
        for index in run.route.indices {
            run.route[index].speedAccuracy = 0.25 + Double(index % 7) * 0.125
            run.route[index].courseAccuracy = 1.5 + Double(index % 5) * 0.5
        }
        run.samples = Array(run.samples.prefix(samples))
        return run
    }

    struct RunOptions: ParsableArguments {
        @Option(help: "The store file (created; it must not exist yet).")
        var store: String
        @Option(help: "Route points, one a second.")
        var points: Int
        @Option(help: "Heart-rate samples, one per point from the first (at most --points).")
        var samples: Int = 0
    }

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save the run through the chain; print the time the chain took.",
            discussion: "save, addSamples, insertRouteData in batches, finishRoute. Generating the run is not timed.")

        @OptionGroup var options: RunOptions
        @Option(help: "Route points per insertRouteData call.")
        var batch: Int = 1_000

        func validate() throws {
            guard options.points > 0, batch > 0, (0...options.points).contains(options.samples) else {
                throw ValidationError("--points and --batch must be positive, --samples within 0...points")
            }
        }

        func run() async throws {
            let run = WorkoutStoreBench.run(points: options.points, samples: options.samples)
            let store = try WorkoutStore(path: options.store)
            let clock = ContinuousClock()
            let started = clock.now
            try await store.save(run.workout)
            if !run.samples.isEmpty {
                try await store.addSamples(run.samples, to: run.workout)
            }
            let routeBuilder = RouteBuilder(store: store)
            for start in stride(from: 0, to: run.route.count, by: batch) {
                try await routeBuilder.insertRouteData(Array(run.route[start..<min(start + batch, run.route.count)]))
            }
            try await routeBuilder.finishRoute(with: run.workout, metadata: nil)
            let seconds = seconds(clock.now - started)
            print(#"{"seconds":\#(seconds),"points":\#(run.route.count),"samples":\#(run.samples.count)}"#)
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read the route of the store's first workout through the batched sequence; print the time.")

        @Option(help: "The store file.")
        var store: String
        @Option(help: "Points per batch.")
        var batch: Int = 1_000

        func run() async throws {
            let store = try WorkoutStore(path: store)
            guard let workout = try await store.workouts(limit: 1).first else {
                throw ValidationError("the store holds no workout")
            }
            let clock = ContinuousClock()
            let started = clock.now
            var points = 0
            var checksum = 0.0
            for try await batch in store.routePoints(of: workout.id, batchSize: batch) {
                points += batch.count
                for point in batch { checksum += point.location.latitude }
            }
            let seconds = seconds(clock.now - started)
            print(#"{"seconds":\#(seconds),"points":\#(points),"checksum":\#(checksum)}"#)
        }
    }

    struct Rows: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an empty store and write the run's rows as the sqlite3 shell imports them.",
            discussion: """
                Writes FOLDER/workout.sql (the workout and route rows), FOLDER/samples.csv and FOLDER/points.csv, \
                in the column order of the store's tables, with the keys the store gives its first workout and route (1).
                """)

        @OptionGroup var options: RunOptions
        @Option(help: "The folder for the files.")
        var folder: String

        func run() async throws {
            let run = WorkoutStoreBench.run(points: options.points, samples: options.samples)
            _ = try WorkoutStore(path: options.store)   // the schema, in WAL mode
            let workout = run.workout
            let first = run.route.first!.time!.timeIntervalSince1970
            let last = run.route.last!.time!.timeIntervalSince1970
            let hex = withUnsafeBytes(of: workout.id.uuid) { $0.map { String(format: "%02X", $0) }.joined() }
            let sql = """
                INSERT INTO workout (id, uuid, activity_type, start_time, end_time, distance, source_app, external_id, metadata, saved_at)
                VALUES (1, X'\(hex)', 'running', \(workout.start.timeIntervalSince1970), \(workout.end.timeIntervalSince1970), \
                \(workout.totals.distance!), 'SyntheticRun', '\(workout.metadata.externalID!)', '{}', 0);
                INSERT INTO route (id, workout, point_count, segment_count, start_time, end_time, metadata, created_at)
                VALUES (1, 1, \(run.route.count), 1, \(first), \(last), '{}', 0);

                """
            try sql.write(toFile: folder + "/workout.sql", atomically: true, encoding: .utf8)
            try write(folder + "/samples.csv", run.samples) { sample in
                let time = sample.start.timeIntervalSince1970
                return "1,heart_rate,\(time),\(time),\(sample.value)\n"
            }
            var ordinal = -1
            try write(folder + "/points.csv", run.route) { l in
                ordinal += 1
                let fix = l.mode.gpsdMode | (l.status?.gpsdStatus ?? 0) << 2 | (l.isSimulated ? 64 : 0)
                return "1,\(ordinal),0,\(l.time!.timeIntervalSince1970),\(l.latitude),\(l.longitude),\(l.altitude!),"
                    + "\(l.ellipsoidalAltitude!),\(l.horizontalAccuracy!),\(l.verticalAccuracy!),\(l.speed!),"
                    + "\(l.speedAccuracy!),\(l.course!),\(l.courseAccuracy!),\(fix)\n"
            }
        }

        private func write<T>(_ path: String, _ items: [T], line: (T) -> String) throws {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw ValidationError("cannot create \(path)")
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            var buffer = ""
            for item in items {
                buffer += line(item)
                if buffer.utf8.count > 1 << 20 {
                    try handle.write(contentsOf: Data(buffer.utf8))
                    buffer = ""
                }
            }
            try handle.write(contentsOf: Data(buffer.utf8))
        }
    }
}

/// A duration in seconds, as a Double.
private func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) * 1e-18
}
