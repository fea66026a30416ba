import Foundation
import GPSCore
import GPX
import LocationCore

/// Totals of a track, computed as its points stream by: feed it each segment's points in order,
/// calling ``startSegment()`` at each segment break (`GPXEvent.segmentStart`), and read the totals
/// at any time. Nothing is measured across a segment break.
///
/// ```swift
/// var totals = TrackStatistics()
/// _ = try GPXReader().read(fileAt: path) { event in
///     if case .segmentStart = event { totals.startSegment() }
///     if case .trackPoint(let point) = event { totals.add(point) }
/// }
/// print(totals.distance, totals.elevationGain, totals.movingTime)
/// ```
///
/// The formulas:
/// - **Distance** (2D): the sum over consecutive points of a segment of the haversine distance
///   `2R·asin(√(sin²(Δφ/2) + cos φ₁·cos φ₂·sin²(Δλ/2)))` on a sphere of radius
///   R = 6,371,008.8 m (the mean radius of the WGS84 ellipsoid). Elevation is not counted.
/// - **Raw elevation gain / loss**: the sums of the positive / negative differences between
///   consecutive elevations within a segment (points without elevation are passed over).
///   GPS elevation is noisy, so this overstates climbing.
/// - **Smoothed elevation gain / loss**: hysteresis: a reference elevation starts at a segment's
///   first elevation; an elevation at least ``elevationThreshold`` above (below) the reference
///   adds the difference to the gain (loss) and becomes the new reference; smaller changes are
///   ignored as noise.
/// - **Moving time**: the sum of the time between consecutive timed points of a segment, counting
///   a gap only when it is positive, at most ``maximumMovingGap`` long (a longer one is a pause,
///   such as a device left off), and covered at more than ``movingSpeed`` (distance / time).
/// - **Heart rate**: count, minimum, maximum and arithmetic mean of the points' heart rates.
public struct TrackStatistics: Sendable {
    /// The mean radius of the WGS84 ellipsoid, metres: the sphere the distances are measured on.
    @available(*, deprecated, renamed: "Geodesy.meanEarthRadius")
    public static var earthRadius: Double { Geodesy.meanEarthRadius }

    /// The haversine distance in metres between two WGS84 positions (degrees).
    @available(*, deprecated, renamed: "Geodesy.distance(_:_:_:_:)")
    public static func haversine(
        _ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double
    ) -> Double {
        Geodesy.distance(latitude1, longitude1, latitude2, longitude2)
    }

    /// The change of elevation, metres, that the smoothed gain and loss count (default 5 m).
    public var elevationThreshold: Double
    /// The speed, metres per second, above which a gap between points counts as moving (0.5 m/s).
    public var movingSpeed: Double
    /// The longest gap between points, seconds, that can count as moving (60 s).
    public var maximumMovingGap: TimeInterval

    /// Points fed.
    public private(set) var pointCount = 0
    /// Segments: the number of ``startSegment()`` calls (at least 1 once a point is fed).
    public private(set) var segmentCount = 0
    /// Metres, 2D haversine, within segments.
    public private(set) var distance = 0.0
    /// Metres, raw sum of rises within segments.
    public private(set) var elevationGain = 0.0
    /// Metres, raw sum of drops within segments (positive).
    public private(set) var elevationLoss = 0.0
    /// Metres, with the hysteresis of ``elevationThreshold``.
    public private(set) var smoothedElevationGain = 0.0
    /// Metres, with the hysteresis of ``elevationThreshold`` (positive).
    public private(set) var smoothedElevationLoss = 0.0
    /// The time of the first point that has one.
    public private(set) var firstTime: GPXTime?
    /// The time of the last point that has one.
    public private(set) var lastTime: GPXTime?
    /// Seconds spent moving (see the type's description).
    public private(set) var movingTime: TimeInterval = 0
    /// Points with an elevation.
    public private(set) var elevationCount = 0
    /// Points with a heart rate.
    public private(set) var heartRateCount = 0
    public private(set) var heartRateMinimum: Double?
    public private(set) var heartRateMaximum: Double?
    private var heartRateSum = 0.0

    /// The mean heart rate, or nil without any.
    public var heartRateAverage: Double? {
        heartRateCount == 0 ? nil : heartRateSum / Double(heartRateCount)
    }

    /// From the first to the last time, seconds; nil without times.
    public var elapsedTime: TimeInterval? {
        guard let firstTime, let lastTime else { return nil }
        return lastTime.date.timeIntervalSince(firstTime.date)
    }

    // The segment being fed.
    private var previous: (latitude: Double, longitude: Double)?
    private var previousTimed: (latitude: Double, longitude: Double, time: Date)?
    private var previousElevation: Double?
    /// The smoothed gain and loss's rule (GPSCore's, shared with a course's climbs).
    private var smoothing = ElevationHysteresis()
    private var inSegment = false

    public init(elevationThreshold: Double = 5, movingSpeed: Double = 0.5, maximumMovingGap: TimeInterval = 60) {
        self.elevationThreshold = elevationThreshold
        self.movingSpeed = movingSpeed
        self.maximumMovingGap = maximumMovingGap
    }

    /// Begins a new segment: the next point is not joined to the previous one.
    public mutating func startSegment() {
        segmentCount += 1
        inSegment = true
        previous = nil
        previousTimed = nil
        previousElevation = nil
        smoothing.reset()
    }

    /// Adds the next point of the current segment (starting one if none was started).
    public mutating func add(_ point: GPXPoint) {
        add(latitude: point.latitude, longitude: point.longitude, elevation: point.elevation, time: point.time, heartRate: point.heartRate)
    }

    /// Adds the next route point of the current segment (starting one if none was started): the
    /// same formulas for a route saved through the store's chain, `saveWorkout` or a session as
    /// for a GPX track.
    public mutating func add(_ location: Location) {
        add(latitude: location.latitude, longitude: location.longitude, elevation: location.altitude,
            time: location.time.map { GPXTime(date: $0) }, heartRate: nil)
    }

    /// Adds the next point of the current segment, its time in seconds since 1970 (for the
    /// session engine, which holds points without building a `Location` for each).
    mutating func add(latitude: Double, longitude: Double, elevation: Double?, time: Double) {
        add(latitude: latitude, longitude: longitude, elevation: elevation,
            time: GPXTime(date: Date(timeIntervalSince1970: time)), heartRate: nil)
    }

    /// The totals these figures give a workout: the distance, the moving time (at most
    /// `elapsed`), and the smoothed elevation gain and loss when there was elevation.
    public func totals(within elapsed: TimeInterval? = nil) -> WorkoutTotals {
        let hasElevation = elevationCount > 1
        return WorkoutTotals(
            distance: distance,
            movingTime: min(movingTime, elapsed ?? movingTime),
            elevationGain: hasElevation ? smoothedElevationGain : nil,
            elevationLoss: hasElevation ? smoothedElevationLoss : nil)
    }

    private mutating func add(latitude: Double, longitude: Double, elevation: Double?, time: GPXTime?, heartRate: Double?) {
        if !inSegment { startSegment() }
        pointCount += 1
        // The step from the point before: its distance serves the moving time too when that
        // point was timed (the usual case), rather than being worked out twice.
        var step: (from: (latitude: Double, longitude: Double), metres: Double)?
        if let previous {
            let metres = Geodesy.distance(previous.latitude, previous.longitude, latitude, longitude)
            distance += metres
            step = (previous, metres)
        }
        previous = (latitude, longitude)

        if let elevation {
            elevationCount += 1
            if let previousElevation {
                let change = elevation - previousElevation
                if change > 0 { elevationGain += change } else { elevationLoss -= change }
            }
            previousElevation = elevation
            smoothing.threshold = elevationThreshold
            let change = smoothing.feed(elevation)
            if change > 0 { smoothedElevationGain += change } else { smoothedElevationLoss -= change }
        }

        if let time {
            if firstTime == nil { firstTime = time }
            lastTime = time
            if let before = previousTimed {
                let gap = time.date.timeIntervalSince(before.time)
                if gap > 0, gap <= maximumMovingGap {
                    let covered: Double
                    if let step, step.from.latitude == before.latitude, step.from.longitude == before.longitude {
                        covered = step.metres
                    } else {
                        covered = Geodesy.distance(before.latitude, before.longitude, latitude, longitude)
                    }
                    if covered / gap > movingSpeed { movingTime += gap }
                }
            }
            previousTimed = (latitude, longitude, time.date)
        }

        if let heartRate {
            heartRateCount += 1
            heartRateSum += heartRate
            heartRateMinimum = min(heartRateMinimum ?? heartRate, heartRate)
            heartRateMaximum = max(heartRateMaximum ?? heartRate, heartRate)
        }
    }
}

