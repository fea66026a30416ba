import Foundation
@testable import Workout

/// A trainer ride, recorded without GPS: ten minutes of a strap (0.2 s into each second), a power
/// meter and the trainer's cadence, speed and distance (0.5 s into each second; a distance over
/// each second, as a wheel or a trainer measures it), and a pause of half a minute.
enum IndoorRideFixture {
    static let start = Date(timeIntervalSince1970: 1_714_550_400)
    static let seconds = 600
    /// The pause, seconds into the ride.
    static let pause = 300.2..<330.7

    /// Saves the ride into `store` (`virtual`: a course on a screen drove the trainer); returns it as stored.
    static func save(in store: WorkoutStore, activity: WorkoutActivityType = .cycling, virtual: Bool = false) async throws -> WorkoutRecord {
        var metadata = WorkoutMetadata(isIndoor: true)
        if virtual { metadata.values[WorkoutMetadata.virtualKey] = "true" }
        let workout = WorkoutRecord(
            activityType: activity, start: start, end: start.addingTimeInterval(Double(seconds)), metadata: metadata)
        var samples: [QuantitySample] = []
        for second in 0..<seconds where !pause.contains(Double(second) + 0.5) {
            let time = start.addingTimeInterval(Double(second))
            let speed = 8 + Double(second % 11) / 10
            samples.append(QuantitySample(type: .heartRate, value: Double(120 + second % 30), at: time.addingTimeInterval(0.2)))
            samples.append(QuantitySample(type: .power, value: Double(180 + second % 40), at: time.addingTimeInterval(0.5)))
            samples.append(QuantitySample(type: .cadence, value: Double(80 + second % 12), at: time.addingTimeInterval(0.5)))
            samples.append(QuantitySample(type: .speed, value: speed, at: time.addingTimeInterval(0.5)))
            samples.append(QuantitySample(type: .distance, value: speed, start: time, end: time.addingTimeInterval(1)))
        }
        let events = [
            WorkoutEvent(.pause, at: start.addingTimeInterval(pause.lowerBound)),
            WorkoutEvent(.resume, at: start.addingTimeInterval(pause.upperBound)),
        ]
        _ = try await store.saveWorkout(workout, samples: samples, segments: [[]], events: events, routeMetadata: nil)
        return try await store.workout(id: workout.id) ?? workout
    }
}
