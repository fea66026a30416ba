import Foundation
import LocationFacade
import Simulators
import WorkoutSimulators
@testable import Workout

/// A stored run with everything an export writes: two segments, coordinates with many digits (and
/// one so small Swift prints it with an exponent), elevations (one unknown, some below sea level),
/// heart rate and cadence at the points' times (with gaps), speed and course on one point, and a
/// name that XML and JSON must escape. Two samples cannot be written: a heart rate between points
/// and a power reading.
struct ExportFixture {
    static let name = #"Tom & Jerry's <run> "fast""#
    static let start = Date(timeIntervalSince1970: 1_714_557_600.123)

    let workout: WorkoutRecord
    let segments: [[Location]]
    let samples: [QuantitySample]
    /// The heart rate each point should carry, in route order.
    let heartRates: [Double?]
    /// The cadence each point should carry, in route order.
    let cadences: [Double?]

    var points: [Location] { segments.flatMap { $0 } }

    init(name: String? = ExportFixture.name) {
        let start = Self.start
        workout = WorkoutRecord(
            activityType: .running, start: start, end: start.addingTimeInterval(120),
            totals: WorkoutTotals(distance: 123.5, elevationGain: 4.25),
            metadata: WorkoutMetadata(values: name.map { ["name": $0] } ?? [:]))
        func point(_ index: Int, at time: Date) -> Location {
            Location(
                latitude: 51.123456789012345 + Double(index) * 0.000012345678901,
                longitude: -0.000000123456789 + Double(index) * 1e-7,
                altitude: index == 2 ? nil : 12.3456789 - Double(index) * 3.25,
                speed: index == 1 ? 3.25 : nil,
                course: index == 1 ? 270.5 : nil,
                time: time, receivedAt: time)
        }
        let first = (0..<5).map { point($0, at: start.addingTimeInterval(Double($0) * 1.001)) }
        let second = (5..<9).map { point($0, at: start.addingTimeInterval(60 + Double($0 - 5) * 0.999)) }
        segments = [first, second]
        let all = first + second
        heartRates = all.indices.map { $0 == 3 ? nil : 120 + Double($0) }
        cadences = all.indices.map { $0.isMultiple(of: 2) ? 80 + Double($0) : nil }
        var samples: [QuantitySample] = []
        for (index, location) in all.enumerated() {
            if let value = heartRates[index] { samples.append(QuantitySample(type: .heartRate, value: value, at: location.time!)) }
            if let value = cadences[index] { samples.append(QuantitySample(type: .cadence, value: value, at: location.time!)) }
        }
        samples.append(QuantitySample(type: .heartRate, value: 99, at: start.addingTimeInterval(0.5)))
        samples.append(QuantitySample(type: .power, value: 250, at: start))
        self.samples = samples
    }

    /// Saves the run, its second segment after a pause, into `store`.
    func save(in store: WorkoutStore) async throws {
        try await store.saveWorkout(workout, samples: samples) { route in
            try await route.insertRouteData(segments[0])
            try await route.startNewSegment()
            try await route.insertRouteData(segments[1])
        }
    }

    /// A store holding the run.
    static func store(name: String? = ExportFixture.name) async throws -> (WorkoutStore, ExportFixture) {
        let store = try WorkoutStore.inMemory()
        let fixture = ExportFixture(name: name)
        try await fixture.save(in: store)
        return (store, fixture)
    }
}
