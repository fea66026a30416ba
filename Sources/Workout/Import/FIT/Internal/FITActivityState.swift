import FIT
import Foundation
import GPSCore
import LocationFacade

/// One FIT file's activity as it is read: its records admitted in time order, its timer's pauses
/// turned into events, its laps and sessions kept, and its figures worked out by the session
/// engine's time line as the store will work them out again.
struct FITActivityState {
    /// What a record became.
    struct Admitted {
        /// The route point, when the record has a position.
        var location: Location?
        /// Its samples.
        var samples: [QuantitySample]
        /// The point starts a new route segment (the first after a pause).
        var startsSegment = false
        /// Its developer fields that no profile field claims, as XML for the point's extensions.
        var extensionXML: String?
    }

    /// The timer, as its events leave it.
    enum Timer {
        case running
        /// Stopped at `since`; `emitted` once the pause is an event (a record came while stopped).
        case stopped(since: Double, automatic: Bool, emitted: Bool)
    }

    static let maximumSkipsListed = 1_000
    static let maximumSummaries = 10_000
    static let maximumEvents = 100_000
    /// The longest gap between two records of one activity that is not taken for damage (a day).
    static let maximumGap = 86_400.0

    let fileIndex: Int
    let offset: Int
    var fileID: FITFileID?
    var creator: String?
    var sport: FITSportMessage?
    var utcOffset: Int?
    private(set) var sessions: [FITTotals] = []
    private(set) var laps: [FITTotals] = []

    private var records = 0
    private var points = 0
    private var duplicates = 0
    private var samples = 0
    private var segment = 0
    private var firstTime: Double?
    private var lastTime: Double?
    private var lastPoint: (time: Double, latitude: Double, longitude: Double, altitude: Double?)?
    private var lastSample: [QuantityType: (time: Double, value: Double)] = [:]
    private var heartRate: SampleFigures?
    private var skipped: [FITSkip] = []
    private var skippedNotListed = 0
    private var fingerprint = TrackFingerprint()
    private var sampleFingerprint = TrackFingerprint()

    private var timer = Timer.running
    /// The last time the timer stopped after a record: the end, when it is the last thing that happened.
    private var lastStop: Double?
    private var pending: (pause: (time: Double, automatic: Bool), resume: Double)?
    private var segmentPending = false
    private var events: [WorkoutEvent] = []
    private var pauses = 0
    private var feed = TimelineFeed(options: .asStored, events: [])

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

    private mutating func skip(_ offset: Int, _ reason: String) {
        if skipped.count < Self.maximumSkipsListed { skipped.append(FITSkip(offset: offset, reason: reason)) } else { skippedNotListed += 1 }
    }

    // MARK: - Pauses

    /// Takes a timer event: a stop becomes a pause (by the user, or auto-pause when the device
    /// says so) once a record comes after it, and a start after it the matching resume. Stops and
    /// starts with no record between them make one pause; those before the first record or after
    /// the last make none.
    mutating func timer(_ event: FITEventMessage) {
        guard let starts = event.startsTimer, let time = event.time else { return }
        switch (starts, timer) {
        case let (true, .stopped(since, automatic, emitted)):
            timer = .running
            guard records > 0 else { return }
            if emitted {
                emit(WorkoutEvent(automatic ? .motionResumed : .resume, at: Date(timeIntervalSince1970: max(time, since))))
                segmentPending = true
            } else {
                pending = ((since, automatic), max(time, since))
            }
        case (false, .running):
            if records > 0 { lastStop = time }
            // A stop soon after a start no record followed: the earlier pause goes on.
            if let (pause, _) = pending {
                timer = .stopped(since: pause.time, automatic: pause.automatic, emitted: false)
                pending = nil
            } else {
                timer = .stopped(since: time, automatic: event.isAutomatic, emitted: false)
            }
        default:
            break
        }
    }

    private mutating func emit(_ event: WorkoutEvent) {
        guard events.count < Self.maximumEvents else { return }
        events.append(event)
        feed.append(event)
        if event.kind == .pause || event.kind == .motionPaused { pauses += 1 }
    }

    /// Makes the pauses a record at `time` settles: one held back until a record came after it.
    private mutating func settlePauses(before time: Double) {
        if records == 0 {
            timer = .running  // a timer stopped before anything was recorded pauses nothing
            pending = nil
            return
        }
        if case let .stopped(since, automatic, false) = timer, time > since {
            emit(WorkoutEvent(automatic ? .motionPaused : .pause, at: Date(timeIntervalSince1970: since)))
            timer = .stopped(since: since, automatic: automatic, emitted: true)
        } else if let (pause, resume) = pending {
            pending = nil
            emit(WorkoutEvent(pause.automatic ? .motionPaused : .pause, at: Date(timeIntervalSince1970: pause.time)))
            emit(WorkoutEvent(pause.automatic ? .motionResumed : .resume, at: Date(timeIntervalSince1970: resume)))
            segmentPending = true
        }
    }

    // MARK: - Records

    /// Takes the next record: what it becomes, or `nil` when it is skipped (and reported).
    mutating func admit(_ record: FITRecord) -> Admitted? {
        guard let time = record.time else {
            skip(record.offset, "the record has no time, or a time since the device started rather than a date")
            return nil
        }
        if let lastTime, time < lastTime {
            skip(record.offset, "its time \(RFC3339.string(from: Date(timeIntervalSince1970: time))) is earlier than the record before it (\(RFC3339.string(from: Date(timeIntervalSince1970: lastTime))))")
            return nil
        }
        if let lastTime, time - lastTime > Self.maximumGap {
            skip(record.offset, "its time \(RFC3339.string(from: Date(timeIntervalSince1970: time))) is more than a day after the record before it (\(RFC3339.string(from: Date(timeIntervalSince1970: lastTime)))): taken for damage")
            return nil
        }
        settlePauses(before: time)
        records += 1
        firstTime = firstTime ?? time
        lastTime = time
        let date = Date(timeIntervalSince1970: time)
        var admitted = Admitted(samples: [])
        var values = (heartRate: record.heartRate, cadence: record.cadence, power: record.power, temperature: record.temperature,
                      speed: record.speed, altitude: record.altitude)
        var unclaimed: [FITDeveloperValue] = []
        for developer in record.developerValues {
            // A developer field that says which profile field it is stands in for that field when absent.
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
            case FITRecord.Field.altitude, FITRecord.Field.enhancedAltitude: values.altitude = values.altitude ?? value
            default: unclaimed.append(developer)
            }
        }
        if record.positionOutOfRange {
            skip(record.offset, "its position is outside ±90° latitude or ±180° longitude; its other values were kept")
        }
        for (type, value) in [(QuantityType.heartRate, values.heartRate), (.cadence, values.cadence), (.power, values.power),
                              (.temperature, values.temperature)] {
            if let value, let sample = sample(type, value, at: time, offset: record.offset) { admitted.samples.append(sample) }
        }
        if let heartRate = admitted.samples.first(where: { $0.type == .heartRate })?.value {
            if self.heartRate == nil { self.heartRate = SampleFigures(heartRate) } else { self.heartRate!.add(heartRate) }
        }
        guard let latitude = record.latitude, let longitude = record.longitude else {
            // No position: the record's values are samples, its speed among them.
            if let speed = values.speed, let sample = sample(.speed, speed, at: time, offset: record.offset) { admitted.samples.append(sample) }
            noteSamples(admitted.samples, at: time)
            return admitted.samples.isEmpty ? nil : admitted
        }
        noteSamples(admitted.samples, at: time)
        if let last = lastPoint, last.time == time, last.latitude == latitude, last.longitude == longitude, last.altitude == values.altitude {
            duplicates += 1
            return admitted.samples.isEmpty ? nil : admitted
        }
        lastPoint = (time, latitude, longitude, values.altitude)
        if segmentPending, points > 0 {
            segment += 1
            admitted.startsSegment = true
        }
        segmentPending = false
        admitted.location = Location(
            latitude: latitude, longitude: longitude, altitude: values.altitude, horizontalAccuracy: record.gpsAccuracy,
            speed: values.speed, time: date, receivedAt: date, mode: values.altitude == nil ? .fix2D : .fix3D)
        feed.add(TimelinePoint(
            ordinal: points, segment: segment, time: time, latitude: latitude, longitude: longitude, altitude: values.altitude,
            speed: values.speed, horizontalAccuracy: record.gpsAccuracy))
        fingerprint.add(time: time, latitude: latitude, longitude: longitude)
        points += 1
        admitted.extensionXML = FITDeveloperXML.fragment(unclaimed)
        return admitted
    }

    /// `value` as a sample of `type`, or `nil` when impossible or a repeat at the same time (reported when it differs).
    private mutating func sample(_ type: QuantityType, _ value: Double, at time: Double, offset: Int) -> QuantitySample? {
        guard value.isFinite, value >= 0 || type.allowsNegativeValues else {
            skip(offset, "a \(type) of \(value) \(type.unit) is not possible; the value was dropped")
            return nil
        }
        if let last = lastSample[type], last.time == time {
            if last.value != value {
                skip(offset, "its \(type) \(value) was dropped: the record before it has the same time and a \(type) of \(last.value)")
            }
            return nil
        }
        lastSample[type] = (time, value)
        samples += 1
        return QuantitySample(type: type, value: value, at: Date(timeIntervalSince1970: time))
    }

    /// Feeds the identity of a workout without a route: its samples' times and values.
    private mutating func noteSamples(_ samples: [QuantitySample], at time: Double) {
        for sample in samples { sampleFingerprint.add(time: time, latitude: sample.value, longitude: Double(sample.type.hashKey)) }
    }

    // MARK: - The end

    /// What the file's activity makes: a workout, or the reason it makes none.
    mutating func collected(file: String, options: FITImportOptions) -> CollectedActivity {
        var result = CollectedActivity(
            fileIndex: fileIndex, offset: offset,
            workout: WorkoutRecord(activityType: .other, start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 0)))
        result.skipped = skipped
        if skippedNotListed > 0 {
            result.skipped.append(FITSkip(offset: skipped.last?.offset ?? offset, reason: "and \(skippedNotListed) more records or values skipped, for the reasons above"))
        }
        if !isActivity {
            let type = fileID?.fileType.map { "a \($0) file" } ?? "a file of FIT type \(fileID?.type.map(String.init) ?? "?")"
            result.notImported = fileID?.fileType == .course
                ? "it is a course (a route to follow), not a recorded workout"
                : "it is \(type), not a recorded activity"
            return result
        }
        guard let first = firstTime, let last = lastTime, points + samples > 0 else {
            result.notImported = records == 0 && skipped.isEmpty
                ? (fileID == nil ? "it holds no records (nor a file_id saying what it is)" : "it has no records: nothing was recorded")
                : "none of its records has a date and a position or a value to keep"
            return result
        }
        // The workout begins at the session's start (the timer's first start) when it is before
        // the first record (by a day at most), and ends at the last record or the timer's last
        // stop after it: not at the session message's time, which some devices write when the
        // activity is saved, long after (the device's elapsed time keeps that span).
        let sessionStarts = sessions.compactMap(\.start).filter { $0 <= first && first - $0 < Self.maximumGap }
        let start = min(first, sessionStarts.min() ?? first)
        let end = max(last, lastStop.map { $0 - last < Self.maximumGap ? $0 : last } ?? last)
        let timeline = feed.finish(at: end)

        let laps = lapEvents(within: start...end)
        var events = self.events
        if !laps.isEmpty { events = (events + laps).enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element) }
        result.events = events
        result.laps = laps.count + 1
        result.pauses = pauses
        (result.points, result.duplicates, result.segments, result.samples) = (points, duplicates, points > 0 ? segment + 1 : 0, samples)
        (result.heartRateAverage, result.heartRateMaximum) = (heartRate?.average, heartRate?.maximum)
        let device = DeviceTotals.sum(sessions.map(Self.deviceTotals))
        result.deviceTotals = device.isEmpty ? nil : device
        result.workout = workout(start: start, end: end, timeline: timeline, device: device, file: file, options: options)
        return result
    }

    /// A lap event at the end of each lap but the last, with what ended it.
    private func lapEvents(within bounds: ClosedRange<Double>) -> [WorkoutEvent] {
        let ends = laps.compactMap { lap -> (Double, WorkoutEvent.LapTrigger?)? in
            guard let end = lap.end ?? lap.start.flatMap({ start in lap.elapsedTime.map { start + $0 } }) else { return nil }
            let trigger: WorkoutEvent.LapTrigger? = switch lap.lapTrigger {
            case 0: .manual
            case 1: .time
            case 2: .distance
            default: nil
            }
            return (end, trigger)
        }.sorted { $0.0 < $1.0 }
        return ends.dropLast().filter { bounds.contains($0.0) && $0.0 > bounds.lowerBound }
            .map { WorkoutEvent(.lap, at: Date(timeIntervalSince1970: $0.0), trigger: $0.1) }
    }

    private static func deviceTotals(_ session: FITTotals) -> DeviceTotals {
        DeviceTotals(
            distance: session.distance, timerTime: session.timerTime, elapsedTime: session.elapsedTime, ascent: session.ascent,
            descent: session.descent, calories: session.calories, heartRateAverage: session.averageHeartRate,
            heartRateMaximum: session.maximumHeartRate)
    }

    private func workout(
        start: Double, end: Double, timeline: SessionTimeline, device: DeviceTotals, file: String, options: FITImportOptions
    ) -> WorkoutRecord {
        let sports = sessions.compactMap(\.sport).reduce(into: [UInt8]()) { if !$0.contains($1) { $0.append($1) } }
        let sportValue = sports.count == 1 ? sports[0] : sports.isEmpty ? (sport?.sport ?? laps.compactMap(\.sport).first) : nil
        var values = ["file": (file as NSString).lastPathComponent, "fit_file": String(fileIndex)]
        values["sport"] = sports.isEmpty ? sportValue.map(FITSport.name(of:)) : sports.map(FITSport.name(of:)).joined(separator: ", ")
        values["name"] = sport?.name
        values["utc_offset_s"] = utcOffset.map(String.init)
        values.merge(device.metadataValues) { ours, _ in ours }
        // As a recorded session's: the moving time is the active time (the timer running).
        var totals = WorkoutTotals(energy: device.calories)
        if points > 1 {
            let figures = timeline.figures
            totals.distance = figures.distance
            if figures.elevationCount > 1 {
                (totals.elevationGain, totals.elevationLoss) = (figures.smoothedElevationGain, figures.smoothedElevationLoss)
            }
        } else {
            totals.distance = device.distance
        }
        totals.movingTime = min(points > 0 ? timeline.activeTime() : activeTime(start: start, end: end), end - start)
        let externalID = points > 0 ? fingerprint.externalID : sampleFingerprint.externalID(prefix: "fit-samples")
        return WorkoutRecord(
            activityType: options.activity ?? sportValue.map(WorkoutActivityType.init(fitSport:)) ?? .other,
            start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: end), totals: totals,
            metadata: WorkoutMetadata(
                sourceDevice: creator ?? fileID?.deviceName, sourceApp: options.sourceApp, externalID: externalID, values: values))
    }

    /// The time not paused from `start` to `end`, by the pause and resume events alone (a workout without a route).
    private func activeTime(start: Double, end: Double) -> Double {
        var paused = 0.0
        var since: Double?
        for event in events {
            let time = event.time.timeIntervalSince1970
            switch event.kind {
            case .pause, .motionPaused: since = since ?? time
            case .resume, .motionResumed:
                if let began = since { paused += time - began }
                since = nil
            default: break
            }
        }
        if let since { paused += end - since }
        return max(0, end - start - paused)
    }
}

extension QuantityType {
    /// A small stable number per type, for fingerprints.
    var hashKey: Int {
        QuantityType.allCases.firstIndex(of: self) ?? 0
    }
}
