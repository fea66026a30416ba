#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationFacade

/// Reads NMEA 0183 logs (RMC, GGA, GSA, VTG, GLL, any talker) into fixes, one per epoch, for the
/// in-process replay device. It is not gpsd: it takes what the sentences say and nothing more.
///
/// - Lines that are not NMEA sentences (comments, as gpsd's regression logs and gpsfake logs
///   begin; free text; binary noise; a first sentence cut off mid-line), and sentences whose
///   checksum is wrong, are skipped and counted. A sentence without a checksum is taken, as gpsd
///   takes it. Proprietary sentences (`$P...`) are ignored.
/// - An epoch is the sentences that share a time of day; its fix is emitted when the time changes.
/// - The mode comes from GSA when present, else from GGA's quality and altitude, else from RMC's
///   status. A 2D fix carries no altitude.
/// - NMEA gives dilutions of precision, not metres: `horizontalAccuracy` stays `nil`.
/// - The date comes from RMC; epochs before the first RMC have no `time`, and are paced by their
///   time of day.
public struct NMEADecoder: Sendable {
    /// What a log held.
    public struct Result: Sendable {
        /// Each epoch, in order, with its offset from the first one.
        public var timeline: [ReplayLocationSource.Entry]
        /// Lines that were not valid NMEA sentences.
        public var skippedLines: Int
    }

    public init() {}

    /// Decodes a whole NMEA log.
    public func decode(_ text: String, device: String? = nil) -> Result {
        var epochs = EpochBuilder(device: device)
        var skipped = 0
        for line in NMEASentence.lines(of: text) {
            guard let sentence = NMEASentence(line: line) else {
                if line.utf8.contains(where: { !NMEASentence.isSpace($0) }) { skipped += 1 }
                continue
            }
            guard sentence.text.first == "$", !sentence.isProprietary else { continue }
            epochs.take(sentence.fields)
        }
        epochs.finish()
        return Result(timeline: epochs.timeline, skippedLines: skipped)
    }

    /// `hhmmss(.ss)` as seconds of the day.
    static func timeOfDay(_ field: Substring) -> Double? {
        guard field.count >= 6, let hours = Double(field.prefix(2)), let minutes = Double(field.dropFirst(2).prefix(2)),
              let seconds = Double(field.dropFirst(4)) else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    }
}

/// Collects sentences into epochs and epochs into timeline entries.
private struct EpochBuilder {
    let device: String?
    var timeline: [ReplayLocationSource.Entry] = []

    private var epochTime: Double?           // seconds of the day
    private var current = Epoch()
    private var date: (year: Int, month: Int, day: Int)?
    private var firstInstant: Double?
    private var lastInstant: Double = 0
    private var dayOffset = 0.0               // for logs that run past midnight without RMC dates

    struct Epoch {
        var latitude: Double?
        var longitude: Double?
        var ggaQuality: Int?
        var altitude: Double?
        var separation: Double?
        var gsaMode: Int?
        var rmcValid: Bool?
        var speed: Double?
        var course: Double?
        var hasData = false
    }

    init(device: String?) {
        self.device = device
    }

    mutating func take(_ fields: [Substring]) {
        let kind = fields[0].suffix(3)
        switch kind {
        case "RMC":
            guard fields.count >= 10 else { return }
            startEpoch(at: fields[1])
            if let parsed = Self.date(fields[9]) { date = parsed }
            current.rmcValid = fields[2] == "A"
            position(fields[3], fields[4], fields[5], fields[6])
            if let knots = Double(fields[7]) { current.speed = knots * 1852 / 3600 }
            if let course = Double(fields[8]) { current.course = course }
        case "GGA":
            guard fields.count >= 12 else { return }
            startEpoch(at: fields[1])
            position(fields[2], fields[3], fields[4], fields[5])
            current.ggaQuality = Int(fields[6])
            current.altitude = Double(fields[9])
            current.separation = Double(fields[11])
        case "GSA":
            guard fields.count >= 3 else { return }
            current.gsaMode = Int(fields[2])
        case "VTG":
            guard fields.count >= 8 else { return }
            if let course = Double(fields[1]) { current.course = course }
            if let kmh = Double(fields[7]) { current.speed = kmh / 3.6 }
        case "GLL":
            guard fields.count >= 7 else { return }
            startEpoch(at: fields[5])
            position(fields[1], fields[2], fields[3], fields[4])
            if current.rmcValid == nil { current.rmcValid = fields[6] == "A" }
        default:
            return
        }
        current.hasData = true
    }

    mutating func finish() {
        emit()
    }

    private mutating func startEpoch(at field: Substring) {
        guard let seconds = NMEADecoder.timeOfDay(field) else { return }
        if let epochTime, epochTime != seconds {
            emit()
            if seconds < epochTime && date == nil { dayOffset += 86_400 }
        }
        epochTime = seconds
    }

    private mutating func position(_ latitude: Substring, _ north: Substring, _ longitude: Substring, _ east: Substring) {
        if let value = Self.coordinate(latitude, degreeDigits: 2) { current.latitude = north == "S" ? -value : value }
        if let value = Self.coordinate(longitude, degreeDigits: 3) { current.longitude = east == "W" ? -value : value }
    }

    private mutating func emit() {
        defer { current = Epoch() }
        guard current.hasData, let seconds = epochTime else { return }
        let instant: Double
        var time: Date?
        if let date {
            let days = Double(RFC3339.daysFromCivil(year: date.year, month: date.month, day: date.day))
            instant = days * 86_400 + seconds
            time = Date(timeIntervalSince1970: instant)
        } else {
            instant = dayOffset + seconds
        }
        let first = firstInstant ?? instant
        firstInstant = first
        lastInstant = max(lastInstant, instant - first)
        let offset = GPSDScript.duration(lastInstant)
        let mode = self.mode()
        guard mode >= .fix2D, let latitude = current.latitude, let longitude = current.longitude else {
            timeline.append(.init(offset: offset, event: .noFix(device: device, time: time)))
            return
        }
        let is3D = mode == .fix3D
        let location = Location(
            latitude: latitude, longitude: longitude,
            altitude: is3D ? current.altitude : nil,
            ellipsoidalAltitude: is3D ? current.altitude.map { $0 + (current.separation ?? 0) } : nil,
            speed: current.speed, course: current.course,
            time: time, receivedAt: time ?? Date(timeIntervalSince1970: instant),
            mode: mode, device: device, isSimulated: true)
        timeline.append(.init(offset: offset, event: .location(location)))
    }

    private func mode() -> FixMode {
        if current.rmcValid == false { return .noFix }
        if let gsa = current.gsaMode { return FixMode(gpsdMode: gsa) }
        if let quality = current.ggaQuality {
            guard quality > 0 else { return .noFix }
            return current.altitude == nil ? .fix2D : .fix3D
        }
        return current.rmcValid == true ? .fix2D : .noFix
    }

    /// `ddmmyy`; two-digit years 80–99 are 1980–1999, the rest 2000–2079.
    private static func date(_ field: Substring) -> (year: Int, month: Int, day: Int)? {
        guard field.count == 6, let day = Int(field.prefix(2)), let month = Int(field.dropFirst(2).prefix(2)),
              let year = Int(field.suffix(2)), (1...12).contains(month), (1...31).contains(day) else { return nil }
        return (year >= 80 ? 1900 + year : 2000 + year, month, day)
    }

    /// `dddmm.mmmm` as degrees.
    private static func coordinate(_ field: Substring, degreeDigits: Int) -> Double? {
        guard field.count > degreeDigits, let degrees = Double(field.prefix(degreeDigits)),
              let minutes = Double(field.dropFirst(degreeDigits)) else { return nil }
        return degrees + minutes / 60
    }
}
