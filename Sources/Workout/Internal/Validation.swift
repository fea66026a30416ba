import Foundation
import LocationCore
import GPSCore

/// The rules HealthKit enforces on what is saved, checked before anything is written.
enum Validation {
    /// Refuses a workout whose fields contradict each other.
    static func check(_ workout: WorkoutRecord) throws(WorkoutStoreError) {
        func refuse(_ reason: String) -> WorkoutStoreError {
            .invalidWorkout(workoutID: workout.id, reason: reason)
        }
        let start = workout.start.timeIntervalSince1970
        let end = workout.end.timeIntervalSince1970
        guard start.isFinite, end.isFinite else { throw refuse("its start or end is not a finite time") }
        guard end >= start else {
            throw refuse("it ends (\(RFC3339.string(from: workout.end))) before it starts (\(RFC3339.string(from: workout.start)))")
        }
        guard RFC3339.supportedRange.contains(workout.start), RFC3339.supportedRange.contains(workout.end) else {
            throw refuse("its times (\(RFC3339.string(from: workout.start)) to \(RFC3339.string(from: workout.end))) lie outside \(RFC3339.supportedRangeDescription), the times the store keeps")
        }
        let totals = workout.totals
        let named: [(String, Double?)] = [
            ("distance", totals.distance), ("duration", totals.duration), ("moving time", totals.movingTime),
            ("elevation gain", totals.elevationGain), ("elevation loss", totals.elevationLoss),
            ("energy", totals.energy),
        ]
        for case let (name, value?) in named where !(value.isFinite && value >= 0) {
            throw refuse("its \(name) \(value) is not a finite number of zero or more")
        }
        // A millisecond of slack: durations are often computed from the same dates, rounded.
        let elapsed = end - start + 0.001
        if let duration = totals.duration, duration > elapsed {
            throw refuse("its duration \(duration) s is longer than the \(end - start) s from start to end")
        }
        if let moving = totals.movingTime, moving > elapsed {
            throw refuse("its moving time \(moving) s is longer than the \(end - start) s from start to end")
        }
    }

    /// Refuses samples with impossible values or intervals, or outside `bounds` when given.
    static func check(_ samples: [QuantitySample], for workoutID: UUID, within bounds: ClosedRange<Date>?) throws(WorkoutStoreError) {
        for (index, sample) in samples.enumerated() {
            func refuse(_ reason: String) -> WorkoutStoreError {
                .invalidSample(workoutID: workoutID, index: index, reason: reason)
            }
            guard sample.value.isFinite else { throw refuse("its value is not a finite number") }
            if sample.value < 0 && !sample.type.allowsNegativeValues {
                throw refuse("a \(sample.type) of \(sample.value) \(sample.type.unit) is negative")
            }
            guard sample.end >= sample.start else { throw refuse("it ends before it starts") }
            if let bounds, !(bounds.contains(sample.start) && bounds.contains(sample.end)) {
                throw refuse("its time (\(RFC3339.string(from: sample.start)) to \(RFC3339.string(from: sample.end))) lies outside the workout (\(RFC3339.string(from: bounds.lowerBound)) to \(RFC3339.string(from: bounds.upperBound)))")
            }
        }
    }

    /// What is wrong with one route point on its own, if anything.
    static func problem(with location: Location) -> RoutePointProblem? {
        guard location.time != nil else { return .missingTime }
        guard location.latitude.isFinite, (-90...90).contains(location.latitude) else {
            return .latitudeOutOfRange(location.latitude)
        }
        guard location.longitude.isFinite, (-180...180).contains(location.longitude) else {
            return .longitudeOutOfRange(location.longitude)
        }
        let measurements: [(String, Double?)] = [
            ("altitude", location.altitude), ("ellipsoidal altitude", location.ellipsoidalAltitude),
            ("horizontal accuracy", location.horizontalAccuracy), ("vertical accuracy", location.verticalAccuracy),
            ("speed", location.speed), ("speed accuracy", location.speedAccuracy),
            ("course", location.course), ("course accuracy", location.courseAccuracy),
        ]
        for case let (field, value?) in measurements where !value.isFinite {
            return .notFinite(field: field)
        }
        return nil
    }
}
