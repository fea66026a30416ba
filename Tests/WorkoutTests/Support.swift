import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
import Testing
@testable import Workout

/// A folder of its own under the system's temporary folder, removed when the value goes away.
final class TemporaryFolder: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "workout-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the folder.
    func file(_ name: String) -> String {
        path + "/" + name
    }
}

/// `location` as the store gives it back: `receivedAt` is the fix's time; climb and device are not kept.
func asStored(_ location: Location) -> Location {
    var stored = location
    stored.receivedAt = location.time!
    stored.climb = nil
    stored.device = nil
    return stored
}

/// Every point of a workout's route, read through the batched sequence.
func readRoute(_ store: WorkoutStore, _ id: UUID, batchSize: Int = 1_000) async throws -> [RoutePoint] {
    var points: [RoutePoint] = []
    for try await batch in store.routePoints(of: id, batchSize: batchSize) {
        points += batch
    }
    return points
}

/// Checks that the store holds `run` completely: the workout, every sample and every point.
func expectComplete(_ run: SyntheticRun, in store: WorkoutStore, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let id = run.workout.id
    #expect(try await store.workout(id: id) == run.workout, sourceLocation: sourceLocation)
    #expect(try await store.samples(of: id) == run.samples, sourceLocation: sourceLocation)
    let route = try await store.route(of: id)
    #expect(route?.pointCount == run.route.count, sourceLocation: sourceLocation)
    let points = try await readRoute(store, id, batchSize: 4_096)
    #expect(points.map(\.location) == run.route.map(asStored), sourceLocation: sourceLocation)
    #expect(points.map(\.ordinal) == Array(0..<run.route.count), sourceLocation: sourceLocation)
}

/// `count` fixes one second apart from `start`, on a line north from Greenwich.
func fixes(_ count: Int, from start: Date, firstLatitude: Double = 51.5) -> [Location] {
    (0..<count).map { index in
        Location(
            latitude: firstLatitude + Double(index) * 1e-5, longitude: 0, altitude: 10,
            time: start.addingTimeInterval(Double(index)), receivedAt: start.addingTimeInterval(Double(index)))
    }
}

/// A running workout of `seconds` from 2024-05-01T10:00:00Z.
func workout(seconds: Double = 3_600, externalID: String? = nil, activityType: WorkoutActivityType = .running, startingAt start: Date = SyntheticTrack.defaultStartTime) -> WorkoutRecord {
    WorkoutRecord(
        activityType: activityType, start: start, end: start.addingTimeInterval(seconds),
        metadata: WorkoutMetadata(externalID: externalID))
}

/// The error `body` throws, or `nil` (recording an issue) when it does not throw.
func thrownError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> WorkoutStoreError? {
    do {
        try await body()
        Issue.record("expected an error, none was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as WorkoutStoreError {
        return error
    } catch {
        Issue.record("expected a WorkoutStoreError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A test's own failure: the store threw (or did not throw) something else than expected.
struct Unexpected: Error, CustomStringConvertible {
    var error: WorkoutStoreError?
    init(_ error: WorkoutStoreError?) { self.error = error }
    var description: String { "unexpected: \(error.map { "\($0)" } ?? "no error")" }
}

/// A sample source a test hands each sample to: what it sends before the session starts reading
/// waits in the stream.
final class HandFedSampleSource: SampleSource {
    private let stream: AsyncStream<QuantitySample>
    private let continuation: AsyncStream<QuantitySample>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: QuantitySample.self)
    }

    func start() -> AsyncStream<QuantitySample> { stream }
    func send(_ sample: QuantitySample) { continuation.yield(sample) }
    func stop() { continuation.finish() }
}
