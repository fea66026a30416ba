import Foundation
import GPSCore
import GPX
import LocationCore
import TCX

/// What the TCX importer's reader thread sends to the task that saves.
enum TCXImportItem: Sendable {
    /// Route points and samples of the current activity, in order (`lines` hold their lines).
    case points(PointBatch)
    /// The current activity is over.
    case activityEnd(CollectedTCXActivity)
    /// A course: not a workout.
    case course(TCXCourse)
    /// The file is read.
    case end(TCXReadSummary)
    /// Reading failed.
    case failed(TCXError)
}

/// A TCX activity as the reader thread saw it: the workout it makes (its id is the saver's), or
/// why it makes none.
struct CollectedTCXActivity: Sendable {
    var index: Int
    var line: Int
    var notImported: String?
    var workout: WorkoutRecord
    var events: [WorkoutEvent] = []
    var points = 0
    var duplicates = 0
    var segments = 0
    var samples = 0
    var laps = 1
    var pauses = 0
    var stops = 0
    var rawElevationGain = 0.0
    var heartRateAverage: Double?
    var heartRateMaximum: Double?
    var deviceTotals: DeviceTotals?
    var skipped: [GPXSkip] = []
    /// Whether it is our own export, whose workout's id ``workout`` has.
    var isOurs = false
}

/// Turns the TCX reader's events into route batches and a ``CollectedTCXActivity`` per activity,
/// on the reader's thread. ``TCXImporter`` documents what it keeps.
final class TCXActivityCollector {
    private let file: String
    private let options: TCXImportOptions
    private let send: (TCXImportItem) -> Bool
    private let isClosed: () -> Bool
    private var activity: State?
    private var batch = PointBatch()
    /// A point dated far ahead, held with the events after it until the next point shows whether
    /// it is the odd one out.
    private var hold = OutlierHold<TCXEvent>()
    private(set) var stopped = false
    /// In strict mode, the first point (or value) the import would have skipped: it stops the
    /// reader, and the import fails with it as an invalid value.
    private(set) var refusal: GPXSkip?

    struct Stopped: Error {}

    /// One activity being read.
    struct State {
        let start: TCXActivityStart
        var assembler = ActivityAssembler(moment: "point")
        /// The laps' own totals, of the first ``maximumLaps`` laps.
        var laps: [TCXLap] = []
        /// Each lap's start: its `StartTime`, else its first point's time (the first ``maximumLaps``
        /// laps: the later ones are part of the last one kept).
        var lapStarts: [Double?] = []
        /// Whether the lap being read is one of those kept.
        var lapKept = false
        var tracksInLap = 0
        /// A second `<Track>` in a lap: the device paused; the pause is dated at the next point.
        var trackBreak = false
        /// Our own export's header (``WorkoutEnvelope``), from its first point: its events and
        /// segment starts are then read from its points, and tracks and laps infer none.
        var header: WorkoutEnvelope.Header?
    }

    /// The most laps an activity keeps (their starts, their totals): a file of a million laps must
    /// not grow the import with the input.
    static let maximumLaps = 10_000

    init(file: String, options: TCXImportOptions, send: @escaping (TCXImportItem) -> Bool, isClosed: @escaping () -> Bool) {
        self.file = file
        self.options = options
        self.send = send
        self.isClosed = isClosed
    }

    func handle(_ event: TCXEvent) throws {
        if isClosed() {
            stopped = true
            throw Stopped()
        }
        try take(event)
        try refuseSkipsIfStrict()
    }

    /// In strict mode, stops at the first point or value skipped (``refusal``).
    private func refuseSkipsIfStrict() throws {
        guard options.strict, let assembler = activity?.assembler, assembler.skipCount > 0, let skip = assembler.lastSkip else { return }
        refusal = GPXSkip(line: skip.position, column: 0, reason: skip.reason)
        throw Stopped()
    }

    /// Takes an event through the ``OutlierHold``: a point dated far ahead waits for the next
    /// point the activity can take, and the events between them wait with it.
    private func take(_ event: TCXEvent) throws {
        if case let .trackpoint(point) = event, activity != nil,
           let time = activity!.assembler.admissible(point.time.date.timeIntervalSince1970) {
            if hold.isHolding {
                switch hold.judge(next: time) {
                case let .odd(held):
                    activity!.assembler.skip(held.position, OutlierHold<TCXEvent>.reason(held, next: time, moment: "point"))
                    for later in held.after { try take(later) }
                case let .stands(held):
                    try pass(held)
                }
                return try take(event)
            }
            if OutlierHold<TCXEvent>.mustWait(time, after: activity!.assembler.lastTime) {
                return hold.hold(event, time: time, position: point.line)
            }
        } else if hold.isHolding {
            if case .activityEnd = event {
                while let held = hold.release() { try pass(held) }
            } else {
                if let released = hold.queue(event, bytes: Self.bytes(of: event)) { try pass(released) }
                return
            }
        }
        try apply(event)
    }

    /// About how many bytes an event holds: its text (a lap's intensity, a sport) may be long.
    private static func bytes(of event: TCXEvent) -> Int {
        switch event {
        case let .lapEnd(lap): 256 + (lap.intensity?.utf8.count ?? 0) + (lap.triggerMethod?.utf8.count ?? 0)
        case let .activityStart(start): 256 + (start.sport?.utf8.count ?? 0)
        case let .activityEnd(activity): 256 + (activity.notes?.utf8.count ?? 0) + (activity.creator?.utf8.count ?? 0)
        case let .course(course): 256 + (course.name?.utf8.count ?? 0)
        default: 256
        }
    }

    /// Lets a point held (and what waited behind it) through.
    private func pass(_ held: OutlierHold<TCXEvent>.Held) throws {
        try apply(held.moment)
        for later in held.after { try take(later) }
    }

    private func apply(_ event: TCXEvent) throws {
        switch event {
        case let .activityStart(start):
            activity = State(start: start)
            batch.trackIndex = start.index
            batch.trackLine = start.line
        case let .lapStart(lap):
            guard activity != nil else { return }
            activity!.lapKept = activity!.lapStarts.count < Self.maximumLaps
            if activity!.lapKept { activity!.lapStarts.append(lap.startTime?.date.timeIntervalSince1970) }
            activity!.tracksInLap = 0
        case .trackStart:
            guard activity != nil else { return }
            if activity!.tracksInLap > 0, activity!.assembler.points > 0 { activity!.trackBreak = true }
            activity!.tracksInLap += 1
        case let .trackpoint(point):
            try add(point)
        case .trackEnd:
            break
        case let .lapEnd(lap):
            if (activity?.laps.count ?? .max) < Self.maximumLaps { activity!.laps.append(lap) }
        case let .activityEnd(whole):
            try refuseSkipsIfStrict()
            guard var state = activity else { return }
            activity = nil
            batch.samples += state.assembler.releaseDistances()
            try flush()
            try deliver(.activityEnd(Self.collected(&state, whole, file: file, options: options)))
        case let .course(course):
            try deliver(.course(course))
        }
    }

    private func add(_ point: TCXTrackpoint) throws {
        guard activity != nil else { return }
        let marks = point.extensions.isEmpty ? WorkoutEnvelope.Marks() : WorkoutEnvelope.marks(in: point.extensions)
        if activity!.header == nil, activity!.assembler.moments == 0, let header = marks.header {
            // Our own export: the time line begins at the workout's start, which its first point
            // may come after, and counts the distance as the workout did.
            activity!.header = header
            if let counting = header.counting { activity!.assembler.countDistance(as: counting.source) }
            activity!.assembler.begin(at: header.start.timeIntervalSince1970)
        }
        guard let time = activity!.assembler.check(time: point.time.date.timeIntervalSince1970, at: point.line) else {
            for event in marks.events { activity!.assembler.event(event) }
            return
        }
        if activity!.header != nil {
            // Our own file: its events as written (those before the point before it), its segments where it says.
            for event in marks.events where event.time.timeIntervalSince1970 < time { activity!.assembler.event(event) }
            if marks.segmentStart { activity!.assembler.startSegment() }
        } else if activity!.trackBreak, let last = activity!.assembler.lastTime, time > last {
            activity!.assembler.pause(at: last, automatic: false)
            activity!.assembler.resume(at: time, automatic: false)
        }
        activity!.trackBreak = false
        defer {
            if activity!.header != nil {
                for event in marks.events where event.time.timeIntervalSince1970 >= time { activity!.assembler.event(event) }
            }
        }
        if activity!.lapKept, let index = activity!.lapStarts.indices.last, activity!.lapStarts[index] == nil { activity!.lapStarts[index] = time }
        let values = InstantValues(heartRate: point.heartRate, cadence: point.cadence, power: point.power, speed: point.speed, distance: point.distance)
        guard let admitted = activity!.assembler.add(
            time: time, at: point.line, latitude: point.latitude, longitude: point.longitude, altitude: point.altitude,
            accuracy: nil, values: values)
        else { return }
        if admitted.startsSegment { try flush() }
        if let location = admitted.location {
            if batch.locations.isEmpty { batch.newSegment = admitted.startsSegment }
            batch.locations.append(location)
            batch.lines.append(point.line)
        }
        batch.samples += admitted.samples
        if batch.locations.count >= options.batchSize || batch.samples.count >= 4 * options.batchSize { try flush() }
    }

    /// The workout an activity makes, or why it makes none.
    private static func collected(_ state: inout State, _ whole: TCXActivity, file: String, options: TCXImportOptions) -> CollectedTCXActivity {
        var result = CollectedTCXActivity(
            index: whole.index, line: whole.line,
            workout: WorkoutRecord(activityType: .other, start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 0)))
        let assembler = state.assembler
        result.skipped = assembler.allSkips.map { GPXSkip(line: $0.position, column: 0, reason: $0.reason) }
        guard let first = assembler.firstTime, let last = assembler.lastTime, assembler.points + assembler.samples > 0 else {
            result.notImported = whole.pointsWithoutTime > 0 && assembler.moments == 0
                ? "none of its \(whole.pointsWithoutTime) track points has a valid time"
                : assembler.moments == 0 && assembler.skipped.isEmpty ? "it has no track points"
                : "none of its track points has a valid time and a position or a value to keep"
            return result
        }
        // It begins at its first lap's StartTime when that is before the first point (by a day at most).
        let lapStart = state.lapStarts.first.flatMap { $0 }.flatMap { $0 <= first && first - $0 < ActivityAssembler.maximumGap ? $0 : nil }
        var start = min(first, lapStart ?? first), end = last
        // Our own export: the workout's times, which hold its points, and its laps among its events.
        let header = (state.header ?? WorkoutEnvelope.marks(in: whole.extensions).header).flatMap {
            $0.start.timeIntervalSince1970 <= first && $0.end.timeIntervalSince1970 >= last ? $0 : nil
        }
        if let header { (start, end) = (header.start.timeIntervalSince1970, header.end.timeIntervalSince1970) }
        // Lap i ends where lap i + 1 begins, ended as its TriggerMethod says.
        let lapEnds = header != nil ? [] : state.lapStarts.dropFirst().enumerated().compactMap { index, time -> (time: Double, trigger: WorkoutEvent.LapTrigger?)? in
            guard let time else { return nil }
            let trigger: WorkoutEvent.LapTrigger? = switch index < state.laps.count ? state.laps[index].triggerMethod : nil {
            case "Manual": .manual
            case "Distance": .distance
            case "Time": .time
            default: nil
            }
            return (time, trigger)
        }
        let assembled = state.assembler.assemble(start: start, end: end, lapEnds: lapEnds, samplesPrefix: "tcx-samples")
        result.events = assembled.events
        result.laps = assembled.laps
        result.isOurs = header != nil
        (result.pauses, result.stops) = (assembler.pauses, assembler.stops)
        result.rawElevationGain = assembled.rawElevationGain
        (result.points, result.duplicates, result.samples) = (assembler.points, assembler.duplicates, assembler.samples)
        result.segments = assembler.points > 0 ? assembler.segment + 1 : 0
        (result.heartRateAverage, result.heartRateMaximum) = (assembler.heartRate?.average, assembler.heartRate?.maximum)
        var device = DeviceTotals.sum(state.laps.map { lap in
            DeviceTotals(distance: lap.distance, timerTime: lap.totalTime, calories: lap.calories,
                         heartRateAverage: lap.averageHeartRate, heartRateMaximum: lap.maximumHeartRate)
        })
        // TCX's schema requires a lap's Calories, so a writer that knows none writes 0 (ours too):
        // laps that all say 0 say nothing of the energy.
        if device.calories == 0 { device.calories = nil }
        result.deviceTotals = device.isEmpty ? nil : device
        var values = ["file": (file as NSString).lastPathComponent, "tcx_activity": String(whole.index)]
        values["description"] = whole.notes
        values["sport"] = whole.sport
        values.merge(device.metadataValues) { ours, _ in ours }
        // Our own export: how its distance was counted, as the import counted it from its first
        // point, with a factor of 1 (as a FIT import's: the distances have it in them already).
        if let source = assembler.ownSource { values.merge(SensorDistance(source: source).metadataValues) { ours, _ in ours } }
        var totals = assembled.totals
        // Our own export says the workout's energy exactly (its laps hold whole kilocalories).
        totals.energy = header?.energy ?? device.calories
        // A workout without a route has its points' DistanceMeters (the time line's sum of them),
        // else its device's distance; our own export says it whole.
        if assembler.points < 2 { totals.distance = header?.distance ?? (assembler.distanceSamples > 0 ? totals.distance : device.distance) }
        result.workout = WorkoutRecord(
            id: header?.id ?? UUID(),
            activityType: options.activity ?? whole.sport.map(WorkoutActivityType.init(tcxSport:)) ?? .other,
            start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: end), totals: totals,
            // No position at all: done indoors (a treadmill, a trainer), as a FIT import says.
            metadata: WorkoutMetadata(
                isIndoor: header?.isIndoor ?? (assembler.points == 0 ? true : nil), sourceDevice: whole.creator, sourceApp: options.sourceApp,
                externalID: assembled.externalID, values: values))
        return result
    }

    private func flush() throws {
        guard !batch.locations.isEmpty || !batch.samples.isEmpty else { return }
        let full = batch
        batch.locations.removeAll(keepingCapacity: true)
        batch.lines.removeAll(keepingCapacity: true)
        batch.samples.removeAll(keepingCapacity: true)
        batch.newSegment = false
        try deliver(.points(full))
    }

    private func deliver(_ item: TCXImportItem) throws {
        if !send(item) {
            stopped = true
            throw Stopped()
        }
    }
}

extension WorkoutActivityType {
    /// The activity a TCX `Sport` names: `Running`, `Biking`; `Other` (and anything else) as a
    /// GPX `<type>` would be read (``init(gpxType:)``).
    public init(tcxSport sport: String) {
        self = switch sport {
        case "Running": .running
        case "Biking": .cycling
        default: WorkoutActivityType(gpxType: sport)
        }
    }

    /// The TCX `Sport` a TCX export writes: `Running`, `Biking`, or `Other`.
    public var tcxSport: String {
        switch self {
        case .running: "Running"
        case .cycling: "Biking"
        default: "Other"
        }
    }
}
