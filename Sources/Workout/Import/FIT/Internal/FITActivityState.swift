import FIT
import Foundation
import GPSCore
import LocationCore

/// One FIT file's activity as it is read: its records handed to an ``ActivityAssembler``, its
/// timer's stops and starts turned into pauses, its laps and sessions kept, and at its end the
/// workout it makes, or why it makes none.
struct FITActivityState {
    /// What a record became: the assembler's, with the developer fields no profile field claims
    /// as XML for the point's extensions.
    struct Admitted {
        var moment: ActivityAssembler.Admitted
        var extensionXML: String?
    }

    /// A stop of the timer: when, whether the device stopped it (auto-pause), and whether it is
    /// an event yet (a record came after it).
    struct Stop {
        var since: Double
        var automatic: Bool
        var emitted: Bool
    }

    /// The timer, as its events leave it.
    enum Timer {
        case running
        /// Stopped.
        case stopped(Stop)
        /// Started again at `at` after `stop`, with no record since: the resume becomes an event
        /// when a record comes (a start after the last record makes none: the workout ends paused).
        case restarted(Stop, at: Double)
    }

    static let maximumSummaries = 10_000

    let fileIndex: Int
    let offset: Int
    var fileID: FITFileID?
    var creator: String?
    var sport: FITSportMessage?
    var utcOffset: Int?
    /// Records of a file that is not an activity (a course's points), counted to say what it holds.
    var recordsNotTaken = 0
    private(set) var sessions: [FITTotals] = []
    private(set) var laps: [FITTotals] = []
    var assembler = ActivityAssembler(moment: "record")
    private var timer = Timer.running
    /// The last time the timer stopped after a record: the end, when it is the last thing that happened.
    private var lastStop: Double?
    /// Our developer data index, when the file is our own export (``FITWorkoutFields``): its
    /// events are then read from our fields, and its timer events and laps infer nothing.
    var ourIndex: UInt8?
    /// Our own export's header, from its session (with what its first timer start says).
    var header: WorkoutEnvelope.Header?
    /// How our own export's distance was counted, and whether indoors: its first timer start's
    /// fields, which come before the records.
    var counting: WorkoutEnvelope.DistanceCounting?
    var isIndoor: Bool?
    /// Beat-to-beat intervals read, waiting to lie within the workout (``FITActivityState+Beats``).
    var beats = PendingBeats()

    init(fileIndex: Int, offset: Int) {
        self.fileIndex = fileIndex
        self.offset = offset
    }

    /// Whether the file is an activity (or does not say what it is).
    var isActivity: Bool {
        fileID?.type.map { $0 == FITFileType.activity.rawValue } ?? true
    }

    mutating func keep(_ totals: FITTotals) {
        if totals.kind == .lap {
            if laps.count < Self.maximumSummaries { laps.append(totals) }
        } else if sessions.count < Self.maximumSummaries {
            sessions.append(totals)
        }
    }

    // MARK: - Pauses

    /// Takes a timer event: a stop becomes a pause (by the user, or auto-pause when the device
    /// says so) once a record comes after it, and a start after it the matching resume once a
    /// record comes after that. Stops and starts with no record between them make one pause; those
    /// before the first record make none, and a start after the last record no resume (an event
    /// after the workout's end would refuse the whole save).
    mutating func timer(_ event: FITEventMessage) {
        guard ourIndex == nil, let starts = event.startsTimer, let time = event.time else { return }
        if starts, beats.base == nil { beats.base = time }
        switch (starts, timer) {
        case let (true, .stopped(stop)):
            timer = assembler.moments > 0 ? .restarted(stop, at: max(time, stop.since)) : .running
        case (false, .running):
            if assembler.moments > 0 { lastStop = time }
            timer = .stopped(Stop(since: time, automatic: event.isAutomatic, emitted: false))
        case let (false, .restarted(stop, at)) where stop.automatic != event.isAutomatic:
            // A stop of the other kind soon after a start no record followed (the user pausing
            // just after auto-pause ended, as a Wahoo ELEMNT writes it): the earlier pause ends,
            // and this one begins, each of its own kind.
            if !stop.emitted { assembler.pause(at: stop.since, automatic: stop.automatic) }
            assembler.resume(at: max(stop.since, at), automatic: stop.automatic)
            lastStop = time
            timer = .stopped(Stop(since: max(stop.since, time), automatic: event.isAutomatic, emitted: false))
        case let (false, .restarted(stop, _)):
            // A stop soon after a start no record followed: the earlier pause goes on.
            if assembler.moments > 0 { lastStop = time }
            timer = .stopped(stop)
        default:
            break
        }
    }

    /// Makes the pause and resume a record at `time` settles: a stop before it, and a start
    /// between them (dated no later than the record, which begins the new stretch).
    private mutating func settlePauses(before time: Double) {
        if assembler.moments == 0 {
            timer = .running  // a timer stopped before anything was recorded pauses nothing
            return
        }
        switch timer {
        case var .stopped(stop) where !stop.emitted && time > stop.since:
            assembler.pause(at: stop.since, automatic: stop.automatic)
            stop.emitted = true
            timer = .stopped(stop)
        case let .restarted(stop, at) where stop.emitted || time > stop.since:
            if !stop.emitted { assembler.pause(at: stop.since, automatic: stop.automatic) }
            assembler.resume(at: max(stop.since, min(at, time)), automatic: stop.automatic)
            timer = .running
        default:
            break
        }
    }

    // MARK: - Records

    /// The time of a record at `time` if the activity can take it (see ``ActivityAssembler/admissible(_:)``).
    func admissibleTime(_ time: Double?) -> Double? {
        assembler.admissible(time)
    }

    /// The time of the last record admitted.
    var lastTime: Double? { assembler.lastTime }

    /// How many records and values were skipped so far, and the last: a strict import refuses it.
    var skips: (count: Int, last: ActivityAssembler.Skip?) { (assembler.skipCount, assembler.lastSkip) }

    /// Reports a record skipped for a reason found outside ``admit(_:)`` (the odd one out).
    mutating func skip(_ offset: Int, _ reason: String) {
        assembler.skip(offset, reason)
    }

    /// Takes the next record: what it becomes, or `nil` when it is skipped (and reported). A
    /// developer field that says which record field it is (a power pod's "Power") stands in for
    /// that field when the record lacks it.
    mutating func admit(_ record: FITRecord) -> Admitted? {
        guard let time = assembler.check(time: record.time, at: record.offset) else { return nil }
        if ourIndex == nil { settlePauses(before: time) }
        if beats.base == nil { beats.base = time }
        var values = InstantValues(
            heartRate: record.heartRate, cadence: record.cadence, power: record.power, temperature: record.temperature, speed: record.speed,
            distance: record.distance)
        var altitude = record.altitude
        var unclaimed: [FITDeveloperValue] = []
        for developer in record.developerValues where developer.field.developerIndex != ourIndex {
            guard let description = developer.field.description, description.nativeMessage == FITMessageNumber.record,
                  let value = developer.scaledNumber else {
                unclaimed.append(developer)
                continue
            }
            switch description.nativeField {
            case FITRecord.Field.heartRate: values.heartRate = values.heartRate ?? value
            case FITRecord.Field.cadence: values.cadence = values.cadence ?? value
            case FITRecord.Field.power: values.power = values.power ?? value
            case FITRecord.Field.temperature: values.temperature = values.temperature ?? value
            case FITRecord.Field.speed, FITRecord.Field.enhancedSpeed: values.speed = values.speed ?? value
            case FITRecord.Field.altitude, FITRecord.Field.enhancedAltitude: altitude = altitude ?? value
            default: unclaimed.append(developer)
            }
        }
        if record.positionOutOfRange {
            assembler.skip(record.offset, "its position is outside ±90° latitude or ±180° longitude; its other values were kept")
        }
        guard let moment = assembler.add(
            time: time, at: record.offset, latitude: record.latitude, longitude: record.longitude, altitude: altitude,
            accuracy: record.gpsAccuracy, values: values)
        else { return nil }
        guard moment.location != nil else { return Admitted(moment: moment) }
        let (xml, dropped) = FITDeveloperXML.fragment(unclaimed)
        if dropped > 0 {
            assembler.skip(record.offset, "\(dropped) of its developer fields were dropped: a point keeps at most \(FITDeveloperXML.maximumBytes / 1024) KB of them as XML")
        }
        return Admitted(moment: moment, extensionXML: xml)
    }

    // MARK: - The end

    /// What the file's activity makes: a workout, or the reason it makes none.
    mutating func collected(file: String, options: FITImportOptions) -> CollectedActivity<FITSkip> {
        var result = CollectedActivity<FITSkip>(
            index: fileIndex, place: offset,
            workout: WorkoutRecord(activityType: .other, start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 0)))
        result.skipped = assembler.allSkips.map { FITSkip(offset: $0.position, reason: $0.reason) }
        if !isActivity {
            let type = fileID?.fileType.map { "a \($0) file" } ?? "a file of FIT type \(fileID?.type.map(String.init) ?? "?")"
            let records = recordsNotTaken == 1 ? "1 record" : "\(recordsNotTaken) records"
            result.notImported = fileID?.fileType == .course
                ? "it is a course (a route to follow, \(records)), not a recorded workout"
                : "it is \(type)\(recordsNotTaken > 0 ? " of \(records)" : ""), not a recorded activity"
            return result
        }
        guard let first = assembler.firstTime, let last = assembler.lastTime, assembler.points + assembler.samples > 0 else {
            result.notImported = assembler.moments == 0 && assembler.skipped.isEmpty
                ? (fileID == nil ? "it holds no records (nor a file_id saying what it is)" : "it has no records: nothing was recorded")
                : "none of its records has a date and a position or a value to keep"
            return result
        }
        let (start, end) = bounds(first: first, last: last)
        let assembled = assembler.assemble(start: start, end: end, lapEnds: isOurs ? [] : lapEnds(), samplesPrefix: "fit-samples")
        result.events = assembled.events.filter { $0.time.timeIntervalSince1970 >= start && $0.time.timeIntervalSince1970 <= end }
        result.isOurs = isOurs
        result.laps = assembled.laps
        (result.pauses, result.stops) = (assembler.pauses, assembler.stops)
        (result.points, result.duplicates, result.samples) = (assembler.points, assembler.duplicates, assembler.samples)
        result.segments = assembler.points > 0 ? assembler.segment + 1 : 0
        (result.heartRateAverage, result.heartRateMaximum) = (assembler.heartRate?.average, assembler.heartRate?.maximum)
        let device = DeviceTotals.sum(sessions.map(Self.deviceTotals))
        result.deviceTotals = device.isEmpty ? nil : device
        result.workout = workout(start: start, end: end, assembled: assembled, device: device, file: file, options: options)
        return result
    }

    /// Whether the file is our own export, whose header its session gave.
    var isOurs: Bool { ourIndex != nil && header != nil }

    /// When the workout begins and ends, its first and last records at `first` and `last`: ours
    /// from its header (to the millisecond; a record, whole seconds, may lie up to a second
    /// before), another's at the session's start (the timer's first start) when it is before the
    /// first record (by a day at most), and at the last record or the timer's last stop after it
    /// (not at the session message's time, which some devices write when the activity is saved,
    /// long after: the device's elapsed time keeps that span).
    func bounds(first: Double, last: Double) -> (start: Double, end: Double) {
        if isOurs, let header {
            return (min(first, header.start.timeIntervalSince1970), max(last, header.end.timeIntervalSince1970))
        }
        let sessionStarts = sessions.compactMap(\.start).filter { $0 <= first && first - $0 < ActivityAssembler.maximumGap }
        let start = min(first, sessionStarts.min() ?? first)
        let end = max(last, lastStop.map { $0 - last < ActivityAssembler.maximumGap ? $0 : last } ?? last)
        return (start, end)
    }

    /// The end of each lap but the last, with what ended it.
    private func lapEnds() -> [(time: Double, trigger: WorkoutEvent.LapTrigger?)] {
        let ends = laps.compactMap { lap -> (time: Double, trigger: WorkoutEvent.LapTrigger?)? in
            guard let end = lap.end ?? lap.start.flatMap({ start in lap.elapsedTime.map { start + $0 } }) else { return nil }
            let trigger: WorkoutEvent.LapTrigger? = switch lap.lapTrigger {
            case 0: .manual
            case 1: .time
            case 2: .distance
            default: nil
            }
            return (end, trigger)
        }.sorted { $0.time < $1.time }
        return Array(ends.dropLast())
    }

    private static func deviceTotals(_ session: FITTotals) -> DeviceTotals {
        DeviceTotals(
            distance: session.distance, timerTime: session.timerTime, elapsedTime: session.elapsedTime, ascent: session.ascent,
            descent: session.descent, calories: session.calories, heartRateAverage: session.averageHeartRate,
            heartRateMaximum: session.maximumHeartRate, powerAverage: session.averagePower, powerMaximum: session.maximumPower,
            normalizedPower: session.normalizedPower, trainingStressScore: session.trainingStressScore,
            intensityFactor: session.intensityFactor, work: session.work.map { $0 / 1000 }, thresholdPower: session.thresholdPower)
    }

    private func workout(
        start: Double, end: Double, assembled: ActivityAssembler.Assembled, device: DeviceTotals, file: String, options: FITImportOptions
    ) -> WorkoutRecord {
        let sports = sessions.compactMap(\.sport).reduce(into: [UInt8]()) { if !$0.contains($1) { $0.append($1) } }
        let sportValue = sports.count == 1 ? sports[0] : sports.isEmpty ? (sport?.sport ?? laps.compactMap(\.sport).first) : nil
        var values = ["file": (file as NSString).lastPathComponent, "fit_file": String(fileIndex)]
        values["sport"] = sports.isEmpty ? sportValue.map(FITSport.name(of:)) : sports.map(FITSport.name(of:)).joined(separator: ", ")
        values["name"] = sport?.name
        values["utc_offset_s"] = utcOffset.map(String.init)
        // Indoors: a sub sport that says so (a trainer, a treadmill, a virtual course), or no position at all.
        let subSport = sessions.lazy.compactMap(\.subSport).first ?? sport?.subSport
        values[WorkoutMetadata.subSportKey] = subSport.map(FITSubSport.name(of:))
        if subSport == FITSubSport.virtualActivity.rawValue { values[WorkoutMetadata.virtualKey] = "true" }
        let indoor = subSport.flatMap(FITSubSport.init(rawValue:))?.isIndoor == true || assembler.points == 0
        values.merge(device.metadataValues) { ours, _ in ours }
        // Our own export: how its distance was counted, as the import counted it (the store then
        // counts it so again), with a factor of 1: the records' distances, turned into samples
        // where they were the sensor's, have the factor in them already.
        if let source = assembler.ownSource { values.merge(SensorDistance(source: source).metadataValues) { ours, _ in ours } }
        // The FTP the device measured against is the athlete's, the workout's training profile
        // (our export writes the profile's there).
        values["ftp_w"] = device.thresholdPower.flatMap { $0 > 0 ? TrainingProfile.number($0) : nil }
        var totals = assembled.totals
        totals.energy = device.calories
        // Without a route, the records' distances (the time line's sum of them), else the session's.
        if assembler.points < 2, assembler.distanceSamples == 0 { totals.distance = device.distance }
        return WorkoutRecord(
            id: (isOurs ? header?.id : nil) ?? UUID(),
            activityType: options.activity ?? sportValue.map(WorkoutActivityType.init(fitSport:)) ?? .other,
            start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: end), totals: totals,
            metadata: WorkoutMetadata(
                isIndoor: (isOurs ? header?.isIndoor : nil) ?? (indoor ? true : nil), sourceDevice: creator ?? fileID?.deviceName,
                sourceApp: options.sourceApp,
                externalID: assembled.externalID, values: values))
    }
}
