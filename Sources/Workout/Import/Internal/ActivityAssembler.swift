import Foundation
import GPSCore
import LocationCore

/// The part of a FIT or TCX import that turns a recorded activity's moments into a workout,
/// whatever the format: each moment admitted in time order (its position a route point, its
/// values samples), pauses and resumes as events (each resume starting a new route segment), and
/// the totals worked out by the session engine's time line, fed as the store will feed it again
/// (``WorkoutStore/laps(of:)``, the GPX export), so the import and the store agree.
///
/// Where a moment lies in its file (a FIT record's byte offset, a TCX point's line) is the
/// caller's `position`, given back with each skip.
struct ActivityAssembler {
    /// A moment or value not kept, and why.
    struct Skip {
        var position: Int
        var reason: String
    }

    /// What an admitted moment became.
    struct Admitted {
        /// The route point, when the moment has a position.
        var location: Location?
        /// Its samples.
        var samples: [QuantitySample] = []
        /// The point starts a new route segment (the first after a pause).
        var startsSegment = false
    }

    /// The workout's figures, once every moment is in.
    struct Assembled {
        /// Pauses, resumes and laps, in time order.
        var events: [WorkoutEvent]
        var laps: Int
        /// The time line's totals: distance and elevation from the points, duration and moving
        /// time from the pauses and stops, as a recorded session's.
        var totals: WorkoutTotals
        /// Elevation gain summed over every rise (metres), as ``ImportedWorkout/rawElevationGain``.
        var rawElevationGain: Double
        /// The fingerprint of the points (the GPX import's, so the same points are the same
        /// workout whatever the format), or of the samples without points: `PREFIX:HASH:COUNT`.
        var externalID: String
    }

    /// What a moment is called in messages: "record" (FIT), "point" (TCX).
    let moment: String

    init(moment: String) {
        self.moment = moment
    }

    static let maximumSkipsListed = 1_000
    static let maximumEvents = 100_000
    /// The longest gap between two moments of one activity that is not taken for damage (a day).
    static let maximumGap = 86_400.0

    private(set) var moments = 0
    private(set) var points = 0
    private(set) var duplicates = 0
    private(set) var samples = 0
    private(set) var segment = 0
    /// The user's pauses, and auto-pause's stops, among the events.
    private(set) var pauses = 0
    private(set) var stops = 0
    private(set) var firstTime: Double?
    private(set) var lastTime: Double?
    private(set) var heartRate: SampleFigures?
    private(set) var skipped: [Skip] = []
    private(set) var skippedNotListed = 0
    private var events: [WorkoutEvent] = []
    private var lastPoint: (time: Double, latitude: Double, longitude: Double, altitude: Double?)?
    /// The last sample of each type, by `QuantityType.hashKey` (an array: a dictionary hashed the
    /// type's name for every value of a million-record file).
    private var lastSample = [(time: Double, value: Double)?](repeating: nil, count: QuantityType.allCases.count)
    private var segmentPending = false
    /// The device's distance at the last moment without a position that had one, and when: the
    /// next one's distance less this is a `.distance` sample over the time between them.
    private var lastDistance: (time: Double, value: Double)?
    /// Where the time line began (``begin(at:)``): the first distance is counted from there.
    private var beganAt: Double?
    /// The `.distance` samples made of the moments' distances: the workout's distance is theirs.
    private(set) var distanceSamples = 0
    /// The distance samples of the moments so far, while it is not known whether the activity has
    /// positions (whose distance is then the points'): they are handed on at its end, or once
    /// ``distancesHeld`` of them show it is done without positions (`nil` from then on).
    private var heldDistances: [QuantitySample]? = []
    /// How many distance samples without a position are held before they are taken for an
    /// activity without positions (an hour of records a second): memory stays bounded.
    static let distancesHeld = 3_600
    private var fingerprint = TrackFingerprint()
    private var sampleFingerprint = TrackFingerprint()
    private var feed = TimelineFeed(options: .asStored, events: [])
    /// Our own file's record distances, once it says how its distance was counted
    /// (``countDistance(as:)``); `nil` for another device's file.
    private var own: OwnRecordDistances?
    /// The distance source the time line counts with, when our own file gave it: the imported
    /// workout's metadata says it (``SensorDistance``, factor 1), so the store counts as the import did.
    var ownSource: DistanceSource? { own?.source }

    /// Moments and values skipped, listed or not.
    private(set) var skipCount = 0
    /// The last skip, listed or not: what a strict import refuses.
    private(set) var lastSkip: Skip?

    mutating func skip(_ position: Int, _ reason: String) {
        skipCount += 1
        let skip = Skip(position: position, reason: reason)
        lastSkip = skip
        if skipped.count < Self.maximumSkipsListed { skipped.append(skip) } else { skippedNotListed += 1 }
    }

    /// The skips, the last saying how many more there were when not all are listed.
    var allSkips: [Skip] {
        skippedNotListed == 0 ? skipped
            : skipped + [Skip(position: skipped.last?.position ?? 0, reason: "and \(skippedNotListed) more skipped, for the reasons above")]
    }

    /// The time of the next moment if it can be admitted: a date, not earlier than the moment
    /// before, not more than a day after it; otherwise `nil`, the moment skipped and reported.
    mutating func check(time: Double?, at position: Int) -> Double? {
        let what = moment
        guard let time else {
            skip(position, "the \(what) has no time, or a time since the device started rather than a date")
            return nil
        }
        if let lastTime, time < lastTime {
            skip(position, "its time \(Self.text(time)) is earlier than the \(what) before it (\(Self.text(lastTime)))")
            return nil
        }
        if let lastTime, time - lastTime > Self.maximumGap {
            skip(position, "its time \(Self.text(time)) is more than a day after the \(what) before it (\(Self.text(lastTime))): taken for damage")
            return nil
        }
        return time
    }

    /// The time of a moment at `time` if ``check(time:at:)`` would admit it, without reporting
    /// anything: what ``OutlierHold`` judges by.
    func admissible(_ time: Double?) -> Double? {
        guard let time else { return nil }
        if let lastTime, time < lastTime || time - lastTime > Self.maximumGap { return nil }
        return time
    }

    /// `time` as RFC 3339, for messages.
    static func text(_ time: Double) -> String {
        RFC3339.string(from: Date(timeIntervalSince1970: time))
    }

    /// A pause (by the user, or auto-pause) at `time`.
    mutating func pause(at time: Double, automatic: Bool) {
        emit(WorkoutEvent(automatic ? .motionPaused : .pause, at: Date(timeIntervalSince1970: time)))
        if automatic { stops += 1 } else { pauses += 1 }
    }

    /// The end of a pause at `time`: the next point starts a new route segment.
    mutating func resume(at time: Double, automatic: Bool) {
        emit(WorkoutEvent(automatic ? .motionResumed : .resume, at: Date(timeIntervalSince1970: time)))
        segmentPending = true
    }

    /// An event exactly as our own export wrote it (``WorkoutEnvelope``): it changes no route
    /// segment (our files say where segments begin: ``startSegment()``).
    mutating func event(_ event: WorkoutEvent) {
        emit(event)
        if event.kind == .pause { pauses += 1 }
        if event.kind == .motionPaused { stops += 1 }
    }

    /// Counts samples made outside ``add(time:at:latitude:longitude:altitude:accuracy:values:)``
    /// (a FIT file's beat-to-beat intervals).
    mutating func countSamples(_ count: Int) {
        samples += count
    }

    /// Counts the distance as our own file says its workout counted it, from the first moment on:
    /// the time line takes `source`, and the records' distances where it counted the sensor become
    /// `.distance` samples (``OwnRecordDistances``), already multiplied by the sensor's factor (the
    /// time line's factor is 1). Another device's file keeps the rule of
    /// ``add(time:at:latitude:longitude:altitude:accuracy:values:)``: outdoors a device's record
    /// distance is often its GPS's, which the points measure again (and the corpora's expected
    /// figures hold imports to that).
    mutating func countDistance(as source: DistanceSource) {
        guard moments == 0 else { return }
        var options = SessionTimeline.Options.asStored
        options.distanceSource = source
        feed = TimelineFeed(options: options, events: events)
        if let beganAt { feed.begin(at: beganAt) }
        own = OwnRecordDistances(source: source)
    }

    /// Begins the time line at `time`, before the first moment: our own export's start, which
    /// may come before its first record (a workout that began with nothing to record).
    mutating func begin(at time: Double) {
        feed.begin(at: time)
        beganAt = beganAt ?? time
    }

    /// The next point begins a new route segment.
    mutating func startSegment() {
        segmentPending = true
    }

    private mutating func emit(_ event: WorkoutEvent) {
        guard events.count < Self.maximumEvents else { return }
        events.append(event)
        feed.append(event)
    }

    /// Adds a moment whose time ``check(time:at:)`` accepted: its values become samples (one
    /// per type and time; impossible values reported), its position a route point (unless an
    /// exact repeat of the point before), its speed a sample when it has no position, and so its
    /// distance (the device's, since the start) while the activity has no position at all, or, in
    /// our own file, where its workout counted the sensor (``countDistance(as:)``): the distance
    /// since the moment before that had one, as a `.distance` sample over the time between them
    /// (the first from the time line's start; none for no distance covered, nor for a distance
    /// that goes back, which is reported). Returns `nil` when nothing of it is kept.
    mutating func add(
        time: Double, at position: Int, latitude: Double?, longitude: Double?, altitude: Double?, accuracy: Double?,
        values: InstantValues
    ) -> Admitted? {
        moments += 1
        if firstTime == nil {
            firstTime = time
            feed.begin(at: time)
        }
        lastTime = time
        var admitted = Admitted()
        for type in [QuantityType.heartRate, .cadence, .power, .temperature] {
            if let value = values[type], let sample = sample(type, value, at: time, position: position) { admitted.samples.append(sample) }
        }
        if let heartRate = admitted.samples.first(where: { $0.type == .heartRate }) { self.heartRate.add(heartRate) }
        guard let latitude, let longitude else {
            if let speed = values.speed, let sample = sample(.speed, speed, at: time, position: position) { admitted.samples.append(sample) }
            if let own, own.source == .sensor || points > 0 {
                let sample = values.distance.flatMap { distanceSample($0, at: time, position: position) }
                admitted.samples += ownDistances(sample, at: time, fix: nil)
            } else if points == 0, let distance = values.distance, let sample = distanceSample(distance, at: time, position: position) {
                if heldDistances == nil {
                    admitted.samples.append(sample)
                    take(sample)
                } else {
                    heldDistances?.append(sample)
                    if (heldDistances?.count ?? 0) >= Self.distancesHeld { admitted.samples += releaseDistances() }
                }
            }
            noteSamples(admitted.samples, at: time)
            return admitted.samples.isEmpty ? nil : admitted
        }
        if own != nil {
            // Our own file: the record's distance where the sensor counted, before the point, as the
            // store feeds a sample placed before it.
            let sample = values.distance.flatMap { distanceSample($0, at: time, position: position) }
            admitted.samples += ownDistances(sample, at: time, fix: (latitude, longitude))
        }
        noteSamples(admitted.samples, at: time)
        // A file with positions takes its distance from them: the device's before the first fix goes.
        if heldDistances != nil { heldDistances = [] }
        if let last = lastPoint, last.time == time, last.latitude == latitude, last.longitude == longitude, last.altitude == altitude {
            duplicates += 1
            return admitted.samples.isEmpty ? nil : admitted
        }
        lastPoint = (time, latitude, longitude, altitude)
        if segmentPending, points > 0 {
            segment += 1
            admitted.startsSegment = true
        }
        segmentPending = false
        let date = Date(timeIntervalSince1970: time)
        admitted.location = Location(
            latitude: latitude, longitude: longitude, altitude: altitude, horizontalAccuracy: accuracy, speed: values.speed,
            time: date, receivedAt: date, mode: altitude == nil ? .fix2D : .fix3D)
        feed.add(TimelinePoint(
            ordinal: points, segment: segment, time: time, latitude: latitude, longitude: longitude, altitude: altitude,
            speed: values.speed, horizontalAccuracy: accuracy))
        fingerprint.add(time: time, latitude: latitude, longitude: longitude)
        points += 1
        return admitted
    }

    /// `value` as a sample of `type`, or `nil` when impossible or a repeat at the same time (reported when it differs).
    private mutating func sample(_ type: QuantityType, _ value: Double, at time: Double, position: Int) -> QuantitySample? {
        guard value.isFinite, value >= 0 || type.allowsNegativeValues else {
            skip(position, "a \(type) of \(value) \(type.unit) is not possible; the value was dropped")
            return nil
        }
        if let last = lastSample[type.hashKey], last.time == time {
            if last.value != value {
                skip(position, "its \(type) \(value) was dropped: the \(moment) before it has the same time and a \(type) of \(last.value)")
            }
            return nil
        }
        lastSample[type.hashKey] = (time, value)
        samples += 1
        return QuantitySample(type: type, value: value, at: Date(timeIntervalSince1970: time))
    }

    /// The distance samples held (see ``heldDistances``), now taken: the activity has no position
    /// (at its end, or after ``distancesHeld`` of them). Call before the last samples are saved.
    mutating func releaseDistances() -> [QuantitySample] {
        guard let held = heldDistances, points == 0 else { return [] }
        heldDistances = nil
        for sample in held { take(sample) }
        return held
    }

    /// The samples our own file's record at `time` gives (its distance since the record before
    /// being `sample`; `fix`: its position), counted by the time line now.
    private mutating func ownDistances(_ sample: QuantitySample?, at time: Double, fix: (latitude: Double, longitude: Double)?) -> [QuantitySample] {
        let step = fix.flatMap { fix in
            lastPoint.map { Geodesy.distance($0.latitude, $0.longitude, fix.latitude, fix.longitude) }
        }
        let samples = own?.take(sample, at: time, isFix: fix != nil, step: step) ?? []
        for sample in samples { take(sample) }
        return samples
    }

    /// Counts a distance sample of a workout without positions, or of our own file where its
    /// workout counted the sensor: the time line counts it, as the store's will, so the workout's
    /// distance is the device's (the original's).
    private mutating func take(_ sample: QuantitySample) {
        feed.add(sample)
        distanceSamples += 1
        samples += 1
    }

    /// The distance covered since the last distance given, as a `.distance` sample; `nil` for
    /// none covered, or for one that goes back (a device's reset: reported, and counted from there).
    private mutating func distanceSample(_ distance: Double, at time: Double, position: Int) -> QuantitySample? {
        guard distance.isFinite, distance >= 0 else {
            skip(position, "a distance of \(distance) m is not possible; the value was dropped")
            return nil
        }
        let last = lastDistance ?? (beganAt ?? time, 0)
        lastDistance = (time, distance)
        guard distance >= last.value else {
            skip(position, "its distance \(distance) m is less than the \(moment) before's (\(last.value) m): counted again from there")
            return nil
        }
        guard distance > last.value else { return nil }
        return QuantitySample(
            type: .distance, value: distance - last.value, start: Date(timeIntervalSince1970: min(last.time, time)),
            end: Date(timeIntervalSince1970: time))
    }

    /// Feeds the identity of a workout without a route: its samples' times and values. Once the
    /// workout has a point its identity is its points' (see ``assemble(start:end:lapEnds:samplesPrefix:)``),
    /// and the samples' is no longer worked out.
    private mutating func noteSamples(_ samples: [QuantitySample], at time: Double) {
        guard points == 0 else { return }
        for sample in samples { sampleFingerprint.add(time: time, latitude: sample.value, longitude: Double(sample.type.hashKey)) }
    }

    /// The figures of the workout from `start` to `end`, with a lap event at each of `lapEnds`
    /// that lies inside it (the end of every lap but the last).
    mutating func assemble(start: Double, end: Double, lapEnds: [(time: Double, trigger: WorkoutEvent.LapTrigger?)], samplesPrefix: String) -> Assembled {
        let timeline = feed.finish(at: end)
        let laps = lapEnds.filter { $0.time > start && $0.time < end }
            .map { WorkoutEvent(.lap, at: Date(timeIntervalSince1970: $0.time), trigger: $0.trigger) }
        var all = timeline.events
        if !laps.isEmpty { all = (events + laps).enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element) }
        var totals = timeline.totals(end: end)
        // Without two points, the distance is the device's distances' (when it gave any).
        if points < 2, distanceSamples == 0 { totals.distance = nil }
        let lapCount = all.filter { $0.kind == .lap && $0.time.timeIntervalSince1970 > start && $0.time.timeIntervalSince1970 < end }.count
        return Assembled(
            events: all, laps: lapCount + 1, totals: totals, rawElevationGain: timeline.figures.elevationGain,
            externalID: points > 0 ? fingerprint.externalID : sampleFingerprint.externalID(prefix: samplesPrefix))
    }

}

extension QuantityType {
    /// A small stable number per type, for fingerprints: its place in ``allCases``.
    var hashKey: Int {
        switch self {
        case .heartRate: 0
        case .cadence: 1
        case .power: 2
        case .temperature: 3
        case .speed: 4
        case .heartbeatInterval: 5
        case .distance: 6
        }
    }
}
