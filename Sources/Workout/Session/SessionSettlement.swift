import Foundation
import GRDB

/// What a session hands over when it is published (``WorkoutSession/end()``, or
/// ``WorkoutStore/end(_:)`` for an interrupted one): the events its engine decided (the user's
/// actions, auto-pause's stops, auto-laps), the counts of its input issues, and when its time
/// line began and (indoors) ended.
///
/// The figures are not handed over: the transaction that publishes the session works them out
/// from what the store holds, through the same ``TimelineFeed`` that ``WorkoutStore/laps(of:)``
/// and the exports read a stored workout with. So a saved workout agrees with its laps, splits
/// and exports to the last bit, whatever order its fixes and its sensors' readings came in live
/// (two sensors' notifications cross on the way; a fix may come after a reading dated later).
/// Where the wheel's circumference is calibrated, the sensor's distance is counted with the
/// calibration of the whole workout (live, with the calibration as far as it had gone).
struct SessionSettlement: Sendable {
    var id: UUID
    var configuration: WorkoutSession.Configuration
    var events: [WorkoutEvent]
    var inputIssues: [InputIssue: Int]
    /// When the time line began (the first fix; indoors, `start()`), seconds since 1970.
    var start: Double
    /// Indoors: when it ended (`end()`, or the last thing an interrupted session wrote).
    var end: Double?
}

/// What publishing a session writes: the workout with its totals and metadata, all its events,
/// where its route's segments begin, and its counted points' fingerprint.
struct SessionPublication: Sendable {
    var workout: WorkoutRecord
    var events: [WorkoutEvent]
    var segmentStarts: [Int]
    /// The external id its GPX export will be found by, when the store has no workout with it yet.
    var externalID: String?
}

extension SessionPublication {
    /// The publication of `settlement`, its figures worked out from its route: `feedRoute` feeds
    /// the staged points and distance samples, in time order, to the feed it is given (once, or
    /// twice where the wheel's calibration is applied). `hasPoints`: whether it has a route
    /// (readings wait for the fixes around them); `hasSensorDistance`: whether it has distance
    /// samples (its metadata then says how they were counted).
    init(
        settlement: SessionSettlement, hasPoints: Bool, hasSensorDistance: Bool, feedRoute: (inout TimelineFeed) throws -> Void
    ) rethrows {
        let configuration = settlement.configuration
        var options = SessionTimeline.Options(maximumHorizontalAccuracy: configuration.fixRules.maximumHorizontalAccuracy)
        options.distanceSource = configuration.effectiveDistanceSource
        options.expectsFixes = hasPoints
        func timeline(factor: Double) throws -> SessionTimeline {
            options.sensorFactor = factor
            var feed = TimelineFeed(options: options, events: settlement.events)
            feed.begin(at: settlement.start)
            try feedRoute(&feed)
            return feed.finish(at: settlement.end ?? settlement.start)
        }
        var settled = try timeline(factor: 1)
        let calibration = settled.calibration
        // The sensor's distance counted with what the whole workout's fixes say of it.
        if configuration.locationType != .indoor, configuration.wheelCircumference.calibrates, let factor = calibration.factor {
            settled = try timeline(factor: factor)
        }
        let end = settled.lastTime ?? settlement.start
        var metadata = configuration.metadata
        for (issue, count) in settlement.inputIssues where count > 0 {
            metadata.values[issue.metadataKey] = String(count)
        }
        switch configuration.locationType {
        case .indoor: metadata.isIndoor = true
        case .outdoor: metadata.isIndoor = false
        case .unknown: break
        }
        let circumference = configuration.wheelCircumference
        let sensor = SensorDistance(
            source: options.distanceSource, factor: settled.options.sensorFactor,
            circumference: hasSensorDistance ? circumference.metres : nil, circumferenceIsGiven: !circumference.calibrates,
            calibratedCircumference: calibration.factor.map { $0 * circumference.metres },
            calibrationDistance: calibration.factor == nil ? nil : calibration.fixDistance)
        metadata.values.merge(sensor.metadataValues) { _, new in new }
        workout = WorkoutRecord(
            id: settlement.id, activityType: configuration.activityType, start: Date(timeIntervalSince1970: settlement.start),
            end: Date(timeIntervalSince1970: end), totals: settled.totals(end: end), metadata: metadata)
        events = settled.events
        segmentStarts = settled.segmentStarts
        externalID = metadata.externalID == nil && settled.fingerprint.count > 0 ? settled.fingerprint.externalID : nil
    }
}

extension WorkoutStore {
    /// The publication of `settlement`, worked out from the staged session's rows (`staging`):
    /// its samples dated before the time line began are dropped first (they are not the workout's).
    static func publication(of settlement: SessionSettlement, staging: SessionStaging, in db: Database) throws -> SessionPublication {
        try db.execute(
            sql: "DELETE FROM quantity_sample WHERE workout = ? AND start_time < ?", arguments: [staging.workoutKey, settlement.start])
        let distances = try distanceSamples(ofWorkoutKey: staging.workoutKey, in: db)
        let hasPoints = try Bool.fetchOne(db, sql: "SELECT 1 FROM route_point WHERE route = ? LIMIT 1", arguments: [staging.routeKey]) ?? false
        return try SessionPublication(settlement: settlement, hasPoints: hasPoints, hasSensorDistance: distances.peek() != nil) { feed in
            let points = try Row.fetchCursor(
                db, sql: "SELECT \(timelinePointColumns) FROM route_point WHERE route = ? ORDER BY ordinal", arguments: [staging.routeKey])
            try Self.feed(points, distances: distances, to: &feed)
        }
    }
}
