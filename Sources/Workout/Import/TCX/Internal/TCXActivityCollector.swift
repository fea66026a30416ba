import Foundation
import GPSCore
import GPX
import LocationCore
import TCX

/// What the TCX importer's reader thread sends to the task that saves.
typealias TCXImportItem = ImportItem<TCXCollected, TCXReadSummary, TCXError>

/// What a TCX file holds, once read to its end tag.
enum TCXCollected: Sendable {
    /// An activity: a workout, or why it makes none.
    case activity(CollectedActivity<GPXSkip>)
    /// A course: not a workout.
    case course(TCXCourse)
}

/// Turns the TCX reader's events into route batches and a ``CollectedActivity`` per activity,
/// on the reader's thread. ``TCXImporter`` documents what it keeps.
final class TCXActivityCollector {
    private let file: String
    private let options: TCXImportOptions
    private let outlet: ImportOutlet<TCXImportItem>
    private var activity: State?
    private var batch = PointBatch()
    /// A point dated far ahead, held with the events after it until the next point shows whether
    /// it is the odd one out.
    private var hold = OutlierHold<TCXEvent>()
    /// In strict mode, the first point (or value) the import would have skipped: it stops the
    /// reader, and the import fails with it as an invalid value.
    private(set) var refusal: GPXSkip?

    /// Thrown to stop the reader at the ``refusal``.
    struct Refused: Error {}

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

        /// A lap begins: kept among the first ``maximumLaps``.
        mutating func startLap(_ lap: TCXLapStart) {
            lapKept = lapStarts.count < TCXActivityCollector.maximumLaps
            if lapKept { lapStarts.append(lap.startTime?.date.timeIntervalSince1970) }
            tracksInLap = 0
        }

        /// A `<Track>` begins: a second one in a lap is a pause.
        mutating func startTrack() {
            if tracksInLap > 0, assembler.points > 0 { trackBreak = true }
            tracksInLap += 1
        }

        /// A lap ends: its totals kept among the first ``maximumLaps``.
        mutating func endLap(_ lap: TCXLap) {
            if laps.count < TCXActivityCollector.maximumLaps { laps.append(lap) }
        }

        /// Takes a point into the activity: what the assembler admitted of it (`nil`: skipped),
        /// with our own export's events and segments around it.
        mutating func admit(_ point: TCXTrackpoint) -> ActivityAssembler.Admitted? {
            let marks = point.extensions.isEmpty ? WorkoutEnvelope.Marks() : WorkoutEnvelope.marks(in: point.extensions)
            if header == nil, assembler.moments == 0, let header = marks.header {
                // Our own export: the time line begins at the workout's start, which its first point
                // may come after, and counts the distance as the workout did.
                self.header = header
                if let counting = header.counting { assembler.countDistance(as: counting.source) }
                assembler.begin(at: header.start.timeIntervalSince1970)
            }
            guard let time = assembler.check(time: point.time.date.timeIntervalSince1970, at: point.line) else {
                for event in marks.events { assembler.event(event) }
                return nil
            }
            if header != nil {
                // Our own file: its events as written (those before the point before it), its segments where it says.
                for event in marks.events where event.time.timeIntervalSince1970 < time { assembler.event(event) }
                if marks.segmentStart { assembler.startSegment() }
            } else if trackBreak, let last = assembler.lastTime, time > last {
                assembler.pause(at: last, automatic: false)
                assembler.resume(at: time, automatic: false)
            }
            trackBreak = false
            defer {
                if header != nil {
                    for event in marks.events where event.time.timeIntervalSince1970 >= time { assembler.event(event) }
                }
            }
            if lapKept, let index = lapStarts.indices.last, lapStarts[index] == nil { lapStarts[index] = time }
            let values = InstantValues(heartRate: point.heartRate, cadence: point.cadence, power: point.power, speed: point.speed, distance: point.distance)
            return assembler.add(
                time: time, at: point.line, latitude: point.latitude, longitude: point.longitude, altitude: point.altitude,
                accuracy: nil, values: values)
        }
    }

    /// The most laps an activity keeps (their starts, their totals): a file of a million laps must
    /// not grow the import with the input.
    static let maximumLaps = 10_000

    init(file: String, options: TCXImportOptions, outlet: ImportOutlet<TCXImportItem>) {
        self.file = file
        self.options = options
        self.outlet = outlet
    }

    func handle(_ event: TCXEvent) throws {
        try outlet.checkOpen()
        try take(event)
        try refuseSkipsIfStrict()
    }

    /// In strict mode, stops at the first point or value skipped (``refusal``).
    private func refuseSkipsIfStrict() throws {
        guard options.strict, let assembler = activity?.assembler, assembler.skipCount > 0, let skip = assembler.lastSkip else { return }
        refusal = GPXSkip(line: skip.position, column: 0, reason: skip.reason)
        throw Refused()
    }

    /// Takes an event through the ``OutlierHold``: a point dated far ahead waits for the next
    /// point the activity can take, and the events between them wait with it.
    private func take(_ event: TCXEvent) throws {
        if case let .trackpoint(point) = event,
           let time = activity?.assembler.admissible(point.time.date.timeIntervalSince1970) {
            if hold.isHolding {
                switch hold.judge(next: time) {
                case let .odd(held):
                    activity?.assembler.skip(held.position, OutlierHold<TCXEvent>.reason(held, next: time, moment: "point"))
                    for later in held.after { try take(later) }
                case let .stands(held):
                    try pass(held)
                }
                return try take(event)
            }
            if OutlierHold<TCXEvent>.mustWait(time, after: activity?.assembler.lastTime) {
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
            activity?.startLap(lap)
        case .trackStart:
            activity?.startTrack()
        case let .trackpoint(point):
            try add(point)
        case .trackEnd:
            break
        case let .lapEnd(lap):
            activity?.endLap(lap)
        case let .activityEnd(whole):
            try refuseSkipsIfStrict()
            guard var state = activity else { return }
            activity = nil
            batch.samples += state.assembler.releaseDistances()
            try flush()
            try outlet.deliver(.finished(.activity(Self.collected(&state, whole, file: file, options: options))))
        case let .course(course):
            try outlet.deliver(.finished(.course(course)))
        }
    }

    private func add(_ point: TCXTrackpoint) throws {
        guard let admitted = activity?.admit(point) else { return }
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
    private static func collected(_ state: inout State, _ whole: TCXActivity, file: String, options: TCXImportOptions) -> CollectedActivity<GPXSkip> {
        var result = CollectedActivity<GPXSkip>(
            index: whole.index, place: whole.line,
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
        if let full = batch.take() { try outlet.deliver(.points(full)) }
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
