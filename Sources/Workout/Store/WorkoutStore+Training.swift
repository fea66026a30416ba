import Foundation
import GRDB

/// A stored workout's training figures (``TrainingFigures``), and the rules its metadata keeps
/// for its figures (``SampleAveraging``, ``TrainingProfile``).
extension WorkoutStore {
    /// The training figures of a stored workout: normalized power, intensity factor, training
    /// stress score, work and the time in zones, over its duration, from its power and
    /// heart-rate samples and its pauses, as ``TrainingFigures`` defines them. They are measured
    /// against the profile the workout's metadata keeps, with what `profile` gives put over it
    /// (``TrainingProfile/overridden(by:)``): `workout show --ftp 250` is
    /// `trainingFigures(of: id, profile: TrainingProfile(functionalThresholdPower: 250))`.
    ///
    /// ```swift
    /// let figures = try await store.trainingFigures(of: id, profile: TrainingProfile(functionalThresholdPower: 250))
    /// print(figures.normalizedPower ?? 0, figures.trainingStressScore ?? 0)
    /// ```
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold it.
    public func trainingFigures(of workoutID: UUID, profile: TrainingProfile? = nil) async throws(WorkoutStoreError) -> TrainingSummary {
        let summary = try await read { db -> TrainingSummary? in
            guard let stored = try WorkoutRows.find(workoutID, in: db) else { return nil }
            let metadata = try Self.metadata(ofWorkoutKey: stored.key, in: db)
            var used = TrainingProfile(metadata) ?? TrainingProfile()
            if let profile { used = used.overridden(by: profile) }
            var figures = TrainingFigures(profile: used, start: Date(timeIntervalSince1970: stored.start))
            var events = try Self.events(ofWorkoutKey: stored.key, in: db)[...]
            try Self.forEachSample(ofWorkoutKey: stored.key, in: db) { sample in
                while let event = events.popFirst(where: { $0.time <= sample.end }) { figures.apply(event) }
                figures.add(sample)
            }
            events.forEach { figures.apply($0) }
            figures.finish(at: Date(timeIntervalSince1970: stored.end))
            return figures.summary
        }
        guard let summary else { throw .workoutNotSaved(workoutID: workoutID, step: .read) }
        return summary
    }

    /// The metadata of the workout row `key` (empty when it has none). Throws
    /// ``WorkoutRows/UnreadableMetadata`` when it does not read.
    static func metadata(ofWorkoutKey key: Int64, in db: Database) throws -> WorkoutMetadata {
        guard let row = try Row.fetchOne(db, sql: "SELECT uuid, metadata FROM workout WHERE id = ?", arguments: [key]) else {
            return WorkoutMetadata()
        }
        let id: UUID = row["uuid"]
        return WorkoutMetadata(values: try WorkoutRows.decode(row["metadata"] as String, column: "workout.metadata", of: "workout \(id)"))
    }

    /// Whether the means of the workout row `key` count zeros, as its metadata says.
    static func sampleAveraging(ofWorkoutKey key: Int64, in db: Database) throws -> SampleAveraging {
        SampleAveraging(try metadata(ofWorkoutKey: key, in: db))
    }
}
