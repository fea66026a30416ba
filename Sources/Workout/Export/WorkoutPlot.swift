import Foundation
import LocationCore
import GPSCore

/// A picture of a workout as SVG: the route drawn as a map, with start and end markers and one
/// line per segment, and below it elevation and heart rate against elapsed time, under a title
/// with the activity, the date, the distance and the duration.
///
/// Feed it the route in order and the heart rate samples, then render; or let the store do it with
/// ``WorkoutStore/plotSVG(of:width:)``.
///
/// ```swift
/// var plot = WorkoutPlot(workout: run)
/// for try await batch in store.routePoints(of: run.id) { plot.add(batch) }
/// plot.addHeartRate(try await store.samples(of: run.id, type: .heartRate))
/// try plot.svg().write(toFile: "run.svg", atomically: true, encoding: .utf8)
/// ```
///
/// Memory and output stay bounded whatever the route's length: while points stream in, the map
/// keeps the first point of each of 2,000 time slices of the workout (and each segment's ends),
/// and the charts keep the lowest and highest value of each of 1,000 time slices, so no line has
/// more than about 2,000 points and a 1,000,000-point route makes an SVG of about 100 KB.
///
/// The map is an equirectangular projection, longitudes scaled by the cosine of the mean
/// latitude, fitted into its panel with north up. A panel with nothing to draw says so ("no
/// elevation data", "no heart rate data", "no route data") rather than staying blank. Distance in
/// the title is the workout's total when known, else measured along the route.
public struct WorkoutPlot: Sendable {
    /// The number of time slices the map keeps a point for.
    public static let routeSlices = 2_000
    /// The number of time slices each chart keeps its lowest and highest value for.
    public static let chartSlices = 1_000

    /// The workout drawn.
    public let workout: WorkoutRecord
    /// The picture's width in pixels; its height follows.
    public let width: Int

    var route: RouteSketch
    var elevation: PlotSeries
    var heartRate: PlotSeries

    /// An empty plot of `workout`, `width` pixels wide (at least 320).
    public init(workout: WorkoutRecord, width: Int = 960) {
        self.workout = workout
        self.width = max(320, width)
        let start = workout.start.timeIntervalSince1970
        let duration = workout.elapsedTime
        route = RouteSketch(start: start, duration: duration, bucketCount: Self.routeSlices)
        elevation = PlotSeries(start: start, duration: duration, bucketCount: Self.chartSlices)
        heartRate = PlotSeries(start: start, duration: duration, bucketCount: Self.chartSlices)
    }

    /// Adds route points, in route order (batch after batch as ``WorkoutStore/routePoints(of:batchSize:)``
    /// delivers them). Their altitudes feed the elevation chart.
    public mutating func add(_ points: some Sequence<RoutePoint>) {
        for point in points {
            let location = point.location
            let time = (location.time ?? location.receivedAt).timeIntervalSince1970
            route.add(latitude: location.latitude, longitude: location.longitude, time: time, segment: point.segment)
            if let altitude = location.altitude {
                elevation.add(time: time, value: altitude, segment: point.segment)
            }
        }
    }

    /// Adds heart rate samples, in any order; samples of other types are ignored.
    public mutating func addHeartRate(_ samples: some Sequence<QuantitySample>) {
        for sample in samples where sample.type == .heartRate {
            heartRate.add(time: sample.start.timeIntervalSince1970, value: sample.value)
        }
    }

    /// The title: activity (or the workout's name first, when it has one), date, distance and duration,
    /// as in "Running · 2024-05-01 10:00 UTC · 10.01 km · 1:00:00".
    public var title: String {
        let activity = workout.activityType.description
        var parts: [String] = []
        if let name = workout.metadata.values["name"], !name.isEmpty { parts.append(name) }
        parts.append(activity.prefix(1).uppercased() + activity.dropFirst())
        let start = RFC3339.string(from: workout.start, fractionDigits: 0)
        parts.append(start.prefix(10) + " " + start.dropFirst(11).prefix(5) + " UTC")
        var kilometres: [UInt8] = []
        TextBytes.appendFixed((workout.totals.distance ?? route.distance) / 1_000, decimals: 2, to: &kilometres)
        parts.append(String(decoding: kilometres, as: UTF8.self) + " km")
        parts.append(Self.duration(workout.duration))
        return parts.joined(separator: " · ")
    }

    /// Seconds as `h:mm:ss`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded())
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(total / 3_600):\(two(total % 3_600 / 60)):\(two(total % 60))"
    }
}

extension WorkoutStore {
    /// Draws the workout `workoutID` as an SVG document (see ``WorkoutPlot``), reading its route
    /// in batches so that memory stays flat whatever the route's length.
    ///
    /// ```swift
    /// let svg = try await store.plotSVG(of: run.id)
    /// ```
    ///
    /// Throws ``WorkoutStoreError/workoutNotSaved(workoutID:step:)`` when the store does not hold
    /// the workout, ``WorkoutStoreError/cancelled(operation:)`` when the task is cancelled, and the
    /// errors of ``routePoints(of:batchSize:)``.
    public func plotSVG(of workoutID: UUID, width: Int = 960) async throws(WorkoutStoreError) -> String {
        guard let workout = try await workout(id: workoutID) else {
            throw .workoutNotSaved(workoutID: workoutID, step: .export)
        }
        var plot = WorkoutPlot(workout: workout, width: width)
        for try await batch in routePoints(of: workoutID, batchSize: 4_096) {
            plot.add(batch)
            if Task.isCancelled { throw .cancelled(operation: .export) }
        }
        plot.addHeartRate(try await samples(of: workoutID, type: .heartRate))
        return plot.svg()
    }
}
