import Foundation
import LocationCore

/// A value against time, kept in a fixed number of time buckets over the workout: each bucket
/// remembers its lowest and its highest value (min/max decimation), so peaks survive and memory
/// and output stay bounded (2 × ``bucketCount`` points) whatever the number of values fed.
/// Values may come in any order.
struct PlotSeries: Sendable {
    /// One kept value.
    struct Point: Sendable, Equatable {
        var time: Double
        var value: Double
        /// The route segment it came from: a line is never drawn across segments.
        var segment: Int
    }

    let start: Double
    let duration: Double
    let bucketCount: Int
    private var low: [Point?]
    private var high: [Point?]
    private(set) var count = 0
    private(set) var minimum = Double.infinity
    private(set) var maximum = -Double.infinity

    init(start: Double, duration: Double, bucketCount: Int) {
        self.start = start
        self.duration = max(duration, 1e-9)
        self.bucketCount = bucketCount
        low = Array(repeating: nil, count: bucketCount)
        high = Array(repeating: nil, count: bucketCount)
    }

    var isEmpty: Bool { count == 0 }

    /// The bucket a time falls in (times outside the workout go to the first or last).
    func bucket(of time: Double) -> Int {
        let position = (time - start) / duration * Double(bucketCount)
        guard position.isFinite else { return 0 }
        return min(bucketCount - 1, max(0, Int(position)))
    }

    mutating func add(time: Double, value: Double, segment: Int = 0) {
        guard value.isFinite, time.isFinite else { return }
        let point = Point(time: time, value: value, segment: segment)
        let index = bucket(of: time)
        if low[index].map({ value < $0.value }) ?? true { low[index] = point }
        if high[index].map({ value > $0.value }) ?? true { high[index] = point }
        count += 1
        minimum = min(minimum, value)
        maximum = max(maximum, value)
    }

    /// The kept points as lines to draw, in time order: a new line starts at a segment change or
    /// after a gap longer than `maximumGap` seconds.
    func lines(maximumGap: Double = .infinity) -> [[Point]] {
        var lines: [[Point]] = []
        var previous: Point?
        for index in 0..<bucketCount {
            guard let low = low[index], let high = high[index] else { continue }
            let pair = low == high ? [low] : low.time <= high.time ? [low, high] : [high, low]
            for point in pair {
                if let last = previous, last.segment == point.segment, point.time - last.time <= maximumGap {
                    lines[lines.count - 1].append(point)
                } else {
                    lines.append([point])
                }
                previous = point
            }
        }
        return lines
    }
}

/// A route's shape for drawing, kept small as it streams by: the first point of each segment in
/// each of ``bucketCount`` time buckets, and each segment's last point, with the bounds, mean
/// latitude and distance of every point fed. Feed points in route order.
struct RouteSketch: Sendable {
    struct Point: Sendable, Equatable {
        var latitude: Double
        var longitude: Double
        var segment: Int
    }

    private var series: PlotSeries
    private(set) var kept: [Point] = []
    /// The last point fed when it was not kept: the segment's end, until another comes.
    private var pending: Point?
    private var lastBucket = -1
    private var previous: Point?
    private(set) var count = 0
    private(set) var minimumLatitude = Double.infinity
    private(set) var maximumLatitude = -Double.infinity
    private(set) var minimumLongitude = Double.infinity
    private(set) var maximumLongitude = -Double.infinity
    private var latitudeSum = 0.0
    /// Metres along the route, within segments (haversine).
    private(set) var distance = 0.0

    init(start: Double, duration: Double, bucketCount: Int) {
        series = PlotSeries(start: start, duration: duration, bucketCount: bucketCount)
    }

    var meanLatitude: Double { count == 0 ? 0 : latitudeSum / Double(count) }

    /// Every kept point, each segment's last included.
    var points: [Point] { pending.map { kept + [$0] } ?? kept }

    mutating func add(latitude: Double, longitude: Double, time: Double, segment: Int) {
        let point = Point(latitude: latitude, longitude: longitude, segment: segment)
        let bucket = series.bucket(of: time)
        if let previous, previous.segment == segment {
            distance += Geodesy.distance(previous.latitude, previous.longitude, latitude, longitude)
        }
        if previous?.segment != segment {
            if let pending { kept.append(pending) }  // the end of the segment before
            pending = nil
            kept.append(point)
            lastBucket = bucket
        } else if bucket != lastBucket {
            pending = nil
            kept.append(point)
            lastBucket = bucket
        } else {
            pending = point
        }
        previous = point
        count += 1
        latitudeSum += latitude
        minimumLatitude = min(minimumLatitude, latitude)
        maximumLatitude = max(maximumLatitude, latitude)
        minimumLongitude = min(minimumLongitude, longitude)
        maximumLongitude = max(maximumLongitude, longitude)
    }
}

/// Axis ticks at round numbers.
enum PlotTicks {
    /// About `target` ticks at 1, 2 or 5 × 10ⁿ steps covering `low...high`, and the range they span.
    static func values(_ low: Double, _ high: Double, target: Int = 4) -> (ticks: [Double], range: ClosedRange<Double>) {
        var low = low
        var high = high
        if high - low < 1e-9 {
            low -= 5
            high += 5
        }
        let raw = (high - low) / Double(target)
        let magnitude = pow(10, floor(log10(raw)))
        let normalized = raw / magnitude
        let step = (normalized < 1.5 ? 1 : normalized < 3 ? 2 : normalized < 7 ? 5 : 10) * magnitude
        let first = floor(low / step) * step
        let last = ceil(high / step) * step
        var ticks: [Double] = []
        var value = first
        while value <= last + step * 1e-6 {
            ticks.append(abs(value) < step * 1e-9 ? 0 : value)
            value += step
        }
        return (ticks, first...last)
    }

    /// Elapsed-time ticks, seconds, at a round step giving at most 6 ticks over `duration`.
    static func times(duration: Double) -> [Double] {
        let steps: [Double] = [60, 120, 300, 600, 900, 1_200, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200, 86_400]
        let step = steps.first { duration / $0 <= 6 } ?? (duration / 6 / 86_400).rounded(.up) * 86_400
        return stride(from: 0, through: duration, by: step).map { $0 }
    }

    /// Elapsed seconds as `h:mm`.
    static func elapsed(_ seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded())
        let text = String(minutes % 60)
        return "\(minutes / 60):" + (text.count < 2 ? "0" + text : text)
    }
}
