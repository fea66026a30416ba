import FIT
import Foundation
import GPSCore
import LocationCore

/// What the FIT importer's reader thread sends to the task that saves.
typealias FITImportItem = ImportItem<CollectedActivity<FITSkip>, FITReadSummary, FITReadStop>

/// Why the FIT import's reader stopped.
enum FITReadStop: Sendable {
    /// Reading failed.
    case failed(FITError)
    /// Strict mode: a record the import would have skipped.
    case refused(FITSkip)
}

/// Turns the reader's events into route batches and a ``CollectedActivity`` per FIT file, on the
/// reader's thread, so that the task writing to the store only writes. ``FITImporter`` documents
/// what it keeps.
final class FITActivityCollector {
    private let file: String
    private let options: FITImportOptions
    private let outlet: ImportOutlet<FITImportItem>
    /// The activity being read, while ``inActivity``. Not an optional: reading a field of an
    /// optional value (`activity.isActivity`) copied the whole state, its assembler with it, for
    /// every message; and as a value (not a class) its methods change it without the runtime's
    /// exclusivity check on each of its fields.
    private var activity = FITActivityState(fileIndex: 0, offset: 0)
    private var inActivity = false
    private var batch = PointBatch()
    /// Bytes of developer-field XML in the batch.
    private var batchExtensionBytes = 0
    /// The most developer-field XML a batch holds before it is handed on, whatever its points.
    static let maximumBatchExtensionBytes = 1 << 20
    /// A record dated far ahead, held with the messages after it until the next record shows
    /// whether it is the odd one out.
    private var hold = OutlierHold<FITMessage>()
    /// Dates for messages in the device's system time, once the file anchors it.
    private var systemTime = FITSystemTime()
    /// Records, events, laps and sessions dated in system time before any anchor, in file order,
    /// waiting for one (``FITSystemTime``).
    private var undated: [FITMessage] = []
    private var undatedBytes = 0
    /// Set when the messages waiting for an anchor passed ``maximumUndatedBytes``: they went on
    /// undated (and were skipped), and no more wait.
    private var stoppedWaitingForAnchor = false
    /// The most bytes of messages held for an anchor: a file of system times and no anchor must
    /// not grow the import with its size.
    static let maximumUndatedBytes = 16 << 20
    /// In strict mode, the first record (or value) the import would have skipped: it stops the
    /// reader, and the import fails with it.
    private(set) var refusal: FITSkip?

    /// Thrown to stop the reader at the ``refusal``.
    struct Refused: Error {}

    init(file: String, options: FITImportOptions, outlet: ImportOutlet<FITImportItem>) {
        self.file = file
        self.options = options
        self.outlet = outlet
        batch.locations.reserveCapacity(options.batchSize)
    }

    func handle(_ event: FITEvent) throws {
        try outlet.checkOpen()
        switch event {
        case let .fileStart(header):
            try finish()
            activity = FITActivityState(fileIndex: header.index, offset: header.offset)
            inActivity = true
            systemTime = FITSystemTime()
            stoppedWaitingForAnchor = false
            batch.trackIndex = header.index
            batch.trackLine = header.offset
        case let .message(message):
            guard inActivity else { return }
            if systemTime.anchor(from: message) {
                try releaseUndated()
            } else if systemTime.offset == nil, !stoppedWaitingForAnchor, Self.dated.contains(message.globalNumber),
                      FITSystemTime.isSystemTime(message) {
                undated.append(message)
                undatedBytes += 64 + message.content.count
                if undatedBytes > Self.maximumUndatedBytes {
                    stoppedWaitingForAnchor = true
                    try releaseUndated()
                }
                return
            }
            try take(message)
            try refuseSkipsIfStrict()
        case .fileEnd:
            try finish()
        }
    }

    /// The messages whose time says when the activity happened: held while in system time
    /// without an anchor.
    private static let dated: Set<UInt16> = [FITMessageNumber.record, FITMessageNumber.event, FITMessageNumber.lap, FITMessageNumber.session]

    /// Takes the messages held for an anchor, in file order: dated by it if one came.
    private func releaseUndated() throws {
        let held = undated
        undated.removeAll()
        undatedBytes = 0
        for message in held {
            try take(message)
            try refuseSkipsIfStrict()
        }
    }

    /// The record a message holds, its time a date (a system time dated by the file's anchor).
    private func record(_ message: FITMessage) -> FITRecord? {
        guard var record = FITRecord(message) else { return nil }
        if record.time == nil { record.time = systemTime.date(message.timestamp) }
        return record
    }

    /// In strict mode, stops at the first record or value skipped (``refusal``).
    private func refuseSkipsIfStrict() throws {
        guard options.strict, inActivity, activity.skips.count > 0, let skip = activity.skips.last else { return }
        refusal = FITSkip(offset: skip.position, reason: skip.reason)
        throw Refused()
    }

    /// Takes a message through the ``OutlierHold``: a record dated far ahead waits for the next
    /// record the activity can take, and the messages between them wait with it.
    private func take(_ message: FITMessage) throws {
        if message.globalNumber == FITMessageNumber.record, activity.isActivity, let record = record(message),
           let time = activity.admissibleTime(record.time) {
            if hold.isHolding {
                switch hold.judge(next: time) {
                case let .odd(held):
                    activity.skip(held.position, OutlierHold<FITMessage>.reason(held, next: time, moment: "record"))
                    try replay(held.after)
                case let .stands(held):
                    try pass(held)
                }
                return try take(message)
            }
            if OutlierHold<FITMessage>.mustWait(time, after: activity.lastTime) {
                return hold.hold(message, time: time, position: record.offset)
            }
        } else if hold.isHolding {
            if let released = hold.queue(message, bytes: 64 + message.content.count) { try pass(released) }
            return
        }
        try apply(message)
    }

    /// Takes the messages that waited behind a record held, in file order.
    private func replay(_ messages: [FITMessage]) throws {
        for message in messages { try take(message) }
    }

    /// Lets a record held (and what waited behind it) through.
    private func pass(_ held: OutlierHold<FITMessage>.Held) throws {
        try apply(held.moment)
        try replay(held.after)
    }

    private func apply(_ message: FITMessage) throws {
        switch message.globalNumber {
        case FITMessageNumber.record:
            if let record = record(message) { try add(record) }
        case FITMessageNumber.event:
            if var event = FITEventMessage(message) {
                if event.time == nil { event.time = systemTime.date(message.timestamp) }
                if !activity.ourEvent(message, time: event.time) { activity.timer(event) }
            }
        case FITMessageNumber.lap, FITMessageNumber.session:
            if var totals = FITTotals(message) {
                if totals.end == nil, let end = systemTime.date(message.timestamp) {
                    totals.end = end
                    totals.start = message.integer(2).flatMap { systemTime.date(UInt32(truncatingIfNeeded: $0)) }
                        ?? totals.elapsedTime.map { end - $0 }
                }
                activity.keep(totals)
                if totals.kind == .session { activity.ourSession(message, start: totals.start, end: totals.end) }
            }
        case FITMessageNumber.developerDataID:
            activity.developer(message)
        case FITWorkoutFields.hrvMessage:
            activity.hrv(message, offset: message.offset)
        case FITMessageNumber.fileID:
            activity.fileID = FITFileID(message)
        case FITMessageNumber.deviceInfo:
            if let device = FITDeviceInfo(message), device.deviceIndex ?? 0 == 0, activity.creator == nil {
                activity.creator = device.deviceName
            }
        case FITMessageNumber.sport:
            activity.sport = FITSportMessage(message)
        case FITMessageNumber.activity:
            activity.utcOffset = FITActivityMessage(message)?.utcOffset
        default:
            break
        }
    }

    private func add(_ record: FITRecord) throws {
        guard activity.isActivity else {
            activity.recordsNotTaken += 1
            return
        }
        if activity.beginsSegment(record) { activity.assembler.startSegment() }
        guard let admitted = activity.admit(record) else { return }
        var point = admitted.moment
        if let time = activity.lastTime { point.samples += activity.releaseBeats(until: time) }
        if point.startsSegment { try flush() }
        if let location = point.location {
            if batch.locations.isEmpty { batch.newSegment = point.startsSegment }
            batch.locations.append(location)
            batch.lines.append(record.offset)
            if let xml = admitted.extensionXML {
                batch.extensions.append((batch.locations.count - 1, xml))
                batchExtensionBytes += xml.utf8.count
            }
        }
        batch.samples += point.samples
        if batch.locations.count >= options.batchSize || batch.samples.count >= 4 * options.batchSize
            || batchExtensionBytes >= Self.maximumBatchExtensionBytes {
            try flush()
        }
    }

    /// Ends the activity being read, if any: after its file's CRC, at the next file's header, or
    /// when the read ends (a file cut off partway ends with what it had).
    func finish() throws {
        guard inActivity else { return }
        // Held for an anchor that never came: they go on undated, and are skipped as such.
        stoppedWaitingForAnchor = true
        try releaseUndated()
        while let held = hold.release() { try pass(held) }
        try refuseSkipsIfStrict()
        guard inActivity else { return }
        var state = activity
        inActivity = false
        activity = FITActivityState(fileIndex: 0, offset: 0)
        if let first = state.assembler.firstTime, let last = state.assembler.lastTime {
            let (start, end) = state.bounds(first: first, last: last)
            batch.samples += state.releaseBeats(until: end, start: start, ending: true)
        }
        batch.samples += state.assembler.releaseDistances()
        try flush()
        let collected = state.collected(file: file, options: options)
        try outlet.deliver(.finished(collected))
    }

    private func flush() throws {
        guard var full = batch.take() else { return }
        full.samples = PointBatch.groupedByType(full.samples)
        batchExtensionBytes = 0
        try outlet.deliver(.points(full))
    }
}
