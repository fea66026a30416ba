import FIT
import Foundation

/// What our decoder reads in a file, in the shape `scripts/peers/fit_peers.py` gives the peers'.
struct FITReading {
    var records: [[Double?]] = []
    var laps: [[Double?]] = []
    var sessions: [[Double?]] = []
    var timerEvents: [[Double?]] = []
    var fileTypes: [Double?] = []
    var summary: FITReadSummary
    /// The error a read threw, if it did.
    var error: FITError?

    /// Reads `path` (leniently unless `strict`), keeping what was read before an error.
    static func read(_ path: String, strict: Bool = false) -> FITReading {
        var reading = FITReading(summary: FITReadSummary(file: path))
        do {
            reading.summary = try FITReader(options: FITReadOptions(strict: strict)).read(fileAt: path) { event in
                guard case let .message(message) = event else { return }
                reading.add(message)
            }
        } catch {
            reading.error = error
        }
        return reading
    }

    mutating func add(_ message: FITMessage) {
        switch message.globalNumber {
        case FITMessageNumber.record:
            let record = FITRecord(message)!
            let altitude = message.number(FITRecord.Field.enhancedAltitude, scale: 5, offset: 500)
                ?? message.number(FITRecord.Field.altitude, scale: 5, offset: 500)
            records.append([
                message.timestamp.map(Double.init), message.number(0), message.number(1), record.heartRate, record.cadence,
                record.power, altitude, record.speed, record.temperature,
            ])
        case FITMessageNumber.lap, FITMessageNumber.session:
            let totals = FITTotals(message)!
            // Raw times, as the peers give them (a time since power-up is not a date, but compares).
            let start = message.integer(2).map(Double.init)
            let last = totals.kind == .lap ? totals.lapTrigger.map(Double.init) : totals.sport.map(Double.init)
            let row = [start, message.timestamp.map(Double.init), totals.timerTime, totals.distance, last]
            if totals.kind == .lap { laps.append(row) } else { sessions.append(row) }
        case FITMessageNumber.event:
            let event = FITEventMessage(message)!
            if event.event == FITEventMessage.timer {
                timerEvents.append([message.timestamp.map(Double.init), event.eventType.map(Double.init), event.data.map(Double.init)])
            }
        case FITMessageNumber.fileID:
            fileTypes.append(FITFileID(message)!.type.map(Double.init))
        default:
            break
        }
    }
}
