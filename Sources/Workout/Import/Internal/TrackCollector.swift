import Foundation
import LocationCore
import GPSCore

/// What the GPX importer's reader thread sends to the task that saves.
typealias GPXImportItem = ImportItem<CollectedTrack, GPXReadSummary, GPXError>

/// A track as the reader thread saw it: its fields, totals, samples and identity.
struct CollectedTrack: Sendable {
    var info: GPXPathInfo
    /// The line of its `<trk>`.
    var line: Int
    /// The file's own figures, as gpxpy would give them (raw gain, segments, the points' heart rates).
    var statistics = TrackStatistics()
    /// The workout's figures: the time line fed its points, each segment break a pause.
    var figures = TimelineFeed(options: .asStored, events: [])
    /// The heart rate's figures (the mean weighted by time).
    var heartRate: SampleFigures?
    /// The time of the last point kept, and whether a segment break came after it.
    var lastKept: Double?
    var pauseBeforeNext = false
    /// Samples sent with the points.
    var sampleCount = 0
    /// Points sent as route points.
    var points = 0
    /// Points dropped as exact duplicates of a point kept at the same time (same position and
    /// elevation): receivers and apps that write a fix twice.
    var duplicates = 0
    /// Points and values the importer skipped (the reader's own skips are in its summary).
    var skipped: [GPXSkip] = []
    /// The kept points' fingerprint.
    var fingerprint = TrackFingerprint()
    /// The file's `creator`.
    var creator: String?
    /// What our own export wrote in the `<trk>`'s extensions: the workout's id, start, end and
    /// exact events (none in another tool's file). With them, ``figures`` is fed those events,
    /// and the segment breaks stand for no pause of their own.
    var marks = WorkoutEnvelope.Marks()

    /// The external id that recognises this track when it is imported again, from this file or
    /// from another that holds the same points.
    var externalID: String {
        fingerprint.externalID
    }
}

/// Turns the reader's events into route batches and a ``CollectedTrack`` per track, on the
/// reader's thread, so that the task writing to the store only writes.
///
/// What it keeps of a track point: position, elevation (as altitude above mean sea level), time,
/// speed and course; fix mode from `<fix>` (`2d`, `3d`, `dgps`), else 3D with an elevation and 2D
/// without. What it skips, with the point's line: a point without a time (a route point must
/// have one) and a point whose time is earlier than the point before it (a route is in time
/// order). A point equal to one kept at the same time (position and elevation) is dropped as a
/// duplicate, before anything is counted or hashed. Pauses: each segment break is a `pause` at
/// the last point before it and a `resume` at the first point after it, unless the track carries
/// our own export's exact events (``WorkoutEnvelope``), which are fed instead. Samples: heart rate, cadence, power and air temperature, each an instantaneous sample
/// at its point's time; a second value of the same type at the same time is skipped when it
/// differs from the first.
final class TrackCollector {
    private let batchSize: Int
    private let outlet: ImportOutlet<GPXImportItem>
    private var creator: String?
    /// The track being read, with what reading it needs; `nil` outside a track.
    private var reading: TrackReading?
    private var batch = PointBatch()

    init(batchSize: Int, outlet: ImportOutlet<GPXImportItem>) {
        self.batchSize = batchSize
        self.outlet = outlet
        batch.locations.reserveCapacity(batchSize)
        batch.lines.reserveCapacity(batchSize)
    }

    func handle(_ event: GPXEvent) throws(ImportOutlet<GPXImportItem>.Stopped) {
        try outlet.checkOpen()
        switch event {
        case let .metadata(metadata):
            creator = metadata.creator
        case let .trackStart(info):
            reading = TrackReading(info: info, creator: creator)
            batch.newSegment = false
            batch.trackIndex = info.index
            batch.trackLine = info.line
        case .segmentStart:
            try flush()
            batch.newSegment = true
            reading?.startSegment()
        case let .trackPoint(point):
            reading?.add(point, to: &batch)
            if batch.locations.count == batchSize { try flush() }
        case let .trackEnd(info):
            try flush()
            guard var finished = reading?.track else { return }
            finished.info = info
            reading = nil
            try outlet.deliver(.finished(finished))
        default:
            break
        }
    }

    private func flush() throws(ImportOutlet<GPXImportItem>.Stopped) {
        if let full = batch.take() { try outlet.deliver(.points(full)) }
    }

    static func location(_ point: GPXPoint, time: Date) -> Location {
        var mode: FixMode = point.elevation == nil ? .fix2D : .fix3D
        var status: FixStatus?
        switch point.fix {
        case "2d": mode = .fix2D
        case "3d": mode = .fix3D
        case "dgps": (mode, status) = (.fix3D, .dgps)
        case "pps": status = .pps
        default: break
        }
        return Location(
            latitude: point.latitude, longitude: point.longitude, altitude: point.elevation,
            speed: point.speed, course: point.course, time: time, receivedAt: time, mode: mode, status: status)
    }
}

/// A track being read: what it collects, and what judging its next point needs (the time of the
/// point before, the points kept at that time, each type's last sample), all begun again with
/// each track.
struct TrackReading {
    private(set) var track: CollectedTrack
    private var lastTime: Date?
    /// Position and elevation of the points kept at `lastTime`, to recognise exact duplicates.
    private var atLastTime: [(Double, Double, Double?)] = []
    private var lastSample: [QuantityType: QuantitySample] = [:]

    init(info: GPXPathInfo, creator: String?) {
        track = CollectedTrack(info: info, line: info.line, creator: creator)
        track.marks = WorkoutEnvelope.marks(in: info.extensions)
        if let header = track.marks.header {
            // Our own export: its events, and its start, before its first point when the
            // session began before a fix it counted (as the store reads the workout back),
            // and its sensor's distance (beside the points) counted as the session counted it.
            var options = SessionTimeline.Options.asStored
            if let counting = header.counting {
                options.distanceSource = counting.source
                options.sensorFactor = counting.sensorFactor
            }
            track.figures = TimelineFeed(options: options, events: track.marks.events)
            track.figures.begin(at: header.start.timeIntervalSince1970)
        }
    }

    /// A new segment begins.
    mutating func startSegment() {
        track.statistics.startSegment()
        // A break between segments, where the recorder was paused or turned off, is a pause
        // (unless the file is our own export, which says where its pauses were).
        if track.lastKept != nil, track.marks.header == nil { track.pauseBeforeNext = true }
    }

    /// Adds a point of the track to it and to `batch`, or skips it (said in ``CollectedTrack/skipped``).
    mutating func add(_ point: GPXPoint, to batch: inout PointBatch) {
        guard let time = point.time?.date else {
            track.skipped.append(GPXSkip(line: point.line, column: 0, reason: "the point has no time"))
            return
        }
        if let lastTime, time < lastTime {
            track.skipped.append(GPXSkip(line: point.line, column: 0, reason:
                "its time \(RFC3339.string(from: time)) is earlier than the point before it (\(RFC3339.string(from: lastTime)))"))
            return
        }
        if time != lastTime { atLastTime.removeAll(keepingCapacity: true) }
        lastTime = time
        if atLastTime.contains(where: { $0 == (point.latitude, point.longitude, point.elevation) }) {
            track.duplicates += 1
            return
        }
        atLastTime.append((point.latitude, point.longitude, point.elevation))
        var point = point
        // Our own export's samples beside the point (``WorkoutEnvelope``), in time order with its own.
        var extras: [QuantitySample] = []
        if point.unknownExtensions.contains(where: { $0.contains(WorkoutEnvelope.namespace) }) {
            extras = WorkoutEnvelope.marks(in: point.unknownExtensions).samples.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
            point.unknownExtensions.removeAll { $0.contains(WorkoutEnvelope.namespace) }
        }
        // A wheel's distances among them, for the time line: those placed before the point come
        // before it, as the store feeds them (``SensorReading/placement``).
        var distances: [QuantitySample] = []
        for extra in extras where extra.start < time {
            if addExtra(extra, line: point.line, to: &batch), extra.type == .distance { distances.append(extra) }
        }
        // Each value becomes a sample, or is dropped from the point when impossible (no array per
        // point: this runs for every point of the file).
        point.heartRate = sample(.heartRate, point.heartRate, at: time, line: point.line, to: &batch)
        point.cadence = sample(.cadence, point.cadence, at: time, line: point.line, to: &batch)
        point.power = sample(.power, point.power, at: time, line: point.line, to: &batch)
        point.airTemperature = sample(.temperature, point.airTemperature, at: time, line: point.line, to: &batch)
        for extra in extras where extra.start >= time {
            if addExtra(extra, line: point.line, to: &batch), extra.type == .distance { distances.append(extra) }
        }
        track.statistics.add(point)
        let seconds = time.timeIntervalSince1970
        if track.pauseBeforeNext, let pausedAt = track.lastKept {
            track.figures.append(WorkoutEvent(.pause, at: Date(timeIntervalSince1970: pausedAt)))
            track.figures.append(WorkoutEvent(.resume, at: time))
            track.pauseBeforeNext = false
        }
        for distance in distances where SensorReading.placement(of: distance) < seconds { track.figures.add(distance) }
        track.figures.add(TimelinePoint(
            ordinal: track.points, segment: track.statistics.segmentCount - 1, time: seconds, latitude: point.latitude,
            longitude: point.longitude, altitude: point.elevation, speed: point.speed, horizontalAccuracy: nil))
        for distance in distances where SensorReading.placement(of: distance) >= seconds { track.figures.add(distance) }
        track.lastKept = seconds
        track.points += 1
        track.fingerprint.add(time: time.timeIntervalSince1970, latitude: point.latitude, longitude: point.longitude)
        if !point.unknownExtensions.isEmpty {
            batch.extensions.append((batch.locations.count, point.unknownExtensions.joined()))
        }
        batch.locations.append(TrackCollector.location(point, time: time))
        batch.lines.append(point.line)
    }

    /// `value` as a sample of `type`, if there is one; returns it, or `nil` when it is impossible.
    private mutating func sample(_ type: QuantityType, _ value: Double?, at time: Date, line: Int, to batch: inout PointBatch) -> Double? {
        guard let value else { return nil }
        return addSample(type, value, at: time, line: line, to: &batch) ? value : nil
    }

    /// Adds a sample; `false` when the value is impossible (and reported), so the point drops it.
    @discardableResult
    private mutating func addSample(_ type: QuantityType, _ value: Double, at time: Date, line: Int, to batch: inout PointBatch) -> Bool {
        guard value.isFinite, value >= 0 || type.allowsNegativeValues else {
            track.skipped.append(GPXSkip(line: line, column: 0, reason: "a \(type) of \(value) \(type.unit) is not possible; the value was dropped"))
            return false
        }
        if let last = lastSample[type], last.start == time {
            if last.value != value {
                track.skipped.append(GPXSkip(line: line, column: 0, reason:
                    "its \(type) \(value) was dropped: the point before it has the same time and a \(type) of \(last.value)"))
            }
            return true
        }
        let sample = QuantitySample(type: type, value: value, at: time)
        if type == .heartRate { track.heartRate.add(sample) }
        lastSample[type] = sample
        batch.samples.append(sample)
        track.sampleCount += 1
        return true
    }

    /// Adds a sample our own export wrote beside a point, unless impossible (reported) or the
    /// same as the last of its type. Returns whether a sample over an interval was kept: a
    /// wheel's distance then counts where the workout's fixes cannot (a tunnel), as it did live.
    private mutating func addExtra(_ sample: QuantitySample, line: Int, to batch: inout PointBatch) -> Bool {
        guard sample.start == sample.end else {
            guard sample.value.isFinite, sample.value >= 0 || sample.type.allowsNegativeValues else {
                track.skipped.append(GPXSkip(line: line, column: 0, reason: "a \(sample.type) of \(sample.value) \(sample.type.unit) is not possible; the value was dropped"))
                return false
            }
            batch.samples.append(sample)
            track.sampleCount += 1
            return true
        }
        addSample(sample.type, sample.value, at: sample.start, line: line, to: &batch)
        return false
    }
}
