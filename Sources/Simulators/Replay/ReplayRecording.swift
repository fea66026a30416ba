#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocationFacade
import GPX

/// A recording to replay, read from a file of any kind the simulators play: a gpsd JSON log (as
/// `gpspipe -w` or `locate record` writes it), an NMEA 0183 log, or a GPX track. It gives the
/// same recording in the three forms the simulators take:
///
/// - ``timeline`` for the in-process ``ReplayLocationSource`` (``device(speed:loop:startOffset:clock:)``),
/// - ``script`` for the ``FakeGPSDServer``,
/// - ``nmea`` for the ``FakeSerialDevice`` that real gpsd reads.
///
/// ```swift
/// let recording = try ReplayRecording(contentsOf: URL(fileURLWithPath: "ride.gpx"))
/// let manager = LocationManager(source: recording.device(speed: 10))
/// ```
public struct ReplayRecording: Sendable {
    /// What kind of file it came from.
    public enum Format: String, Sendable, Hashable {
        case gpsdJSON = "gpsd JSON"
        case nmea = "NMEA"
        case gpx = "GPX"
    }

    /// Why a file could not be read as a recording: naming the file and, where there is one, the line.
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        public var file: String
        public var line: Int?
        public var reason: String

        public init(file: String, line: Int? = nil, reason: String) {
            self.file = file
            self.line = line
            self.reason = reason
        }

        public var description: String {
            line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)"
        }
    }

    public var format: Format
    /// The events in order, with their offsets from the first.
    public var timeline: [ReplayLocationSource.Entry]
    /// The reports as a gpsd would send them: the recorded lines for a gpsd log, else TPVs
    /// written from the timeline.
    public var script: GPSDScript
    /// The sentences a receiver would write: the recorded ones for an NMEA log, else generated from
    /// the timeline by ``NMEAEncoder``.
    public var nmea: NMEALog

    /// Reads `url`, telling its format from its content (gzip-compressed GPX included).
    ///
    /// - Throws: ``ReadError`` naming the file (and line) that could not be read.
    public init(contentsOf url: URL) throws(ReadError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ReadError(file: url.path, reason: "cannot read the file (\(error))")
        }
        switch Self.format(of: data) {
        case .gpsdJSON?:
            do {
                let script = try GPSDScript(recordedLog: String(decoding: data, as: UTF8.self), source: url.path)
                self.init(format: .gpsdJSON, timeline: ReplayLocationSource(script: script).timeline, script: script)
            } catch {
                throw ReadError(file: error.source, line: error.line, reason: error.reason)
            }
        case .nmea?:
            let text = String(decoding: data, as: UTF8.self)
            let log = NMEALog(text: text)
            guard !log.epochs.isEmpty else { throw ReadError(file: url.path, reason: "no NMEA sentence (or none with a right checksum)") }
            let timeline = NMEADecoder().decode(text, device: url.lastPathComponent).timeline
            self.init(format: .nmea, timeline: timeline, script: GPSDScript(timeline: timeline), nmea: log)
        case .gpx?:
            let timeline = try GPXTrackReading.timeline(of: url)
            self.init(format: .gpx, timeline: timeline, script: GPSDScript(timeline: timeline))
        case nil:
            throw ReadError(file: url.path, reason: "not a gpsd JSON log, an NMEA log or a GPX file")
        }
    }

    /// A recording of `timeline`; the script and NMEA are written from it unless given.
    public init(format: Format, timeline: [ReplayLocationSource.Entry], script: GPSDScript? = nil, nmea: NMEALog? = nil) {
        self.format = format
        self.timeline = timeline
        self.script = script ?? GPSDScript(timeline: timeline)
        self.nmea = nmea ?? NMEALog(timeline: timeline)
    }

    /// How many fixes it holds.
    public var fixCount: Int {
        timeline.reduce(0) { count, entry in
            if case .location = entry.event { count + 1 } else { count }
        }
    }

    /// An in-process device playing it; see ``ReplayLocationSource``.
    public func device(
        speed: Double = 1, loop: Bool = false, startOffset: Duration = .zero, clock: some Clock<Duration> = ContinuousClock()
    ) -> ReplayLocationSource {
        ReplayLocationSource(timeline: timeline, speed: speed, loop: loop, startOffset: startOffset, clock: clock)
    }

    /// The format of a file from its first lines that say: `{` a gpsd log, `<` GPX, an NMEA
    /// sentence NMEA; or the gzip magic number, GPX. Blank lines, comments (`#`, as gpsd's
    /// regression logs and gpsfake logs begin) and anything else (a free-text header, a sentence
    /// cut off when the recording began, noise) are passed over, in the first 64 KiB.
    static func format(of data: Data) -> Format? {
        if data.starts(with: [0x1F, 0x8B]) { return .gpx }
        var bytes = data.prefix(65_536)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        for line in bytes.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            switch line.first(where: { $0 != 0x20 && $0 != 0x09 }) {
            case UInt8(ascii: "{"): return .gpsdJSON
            case UInt8(ascii: "<"): return .gpx
            case nil, UInt8(ascii: "#"): continue
            default: if NMEASentence(line: String(decoding: line, as: UTF8.self)[...]) != nil { return .nmea }
            }
        }
        return nil
    }
}

extension GPSDScript {
    /// The fixes and no-fix reports of a replay timeline as TPV reports at its offsets, each on
    /// its fix's device (``defaultDevice`` when it has none), marked simulated.
    public init(timeline: [ReplayLocationSource.Entry]) {
        var entries: [Entry] = []
        for entry in timeline {
            switch entry.event {
            case var .location(location):
                location.isSimulated = true
                let device = location.device ?? Self.defaultDevice
                entries.append(Entry(
                    offset: entry.offset, device: device, className: "TPV", line: GPSDReportWriter.tpv(location, device: device)))
            case let .noFix(device, time):
                let device = device ?? Self.defaultDevice
                entries.append(Entry(
                    offset: entry.offset, device: device, className: "TPV", line: GPSDReportWriter.noFix(device: device, time: time)))
            default:
                continue
            }
        }
        self.init(entries: entries)
    }
}

/// A GPX file's points as a replay timeline, paced by their times as Xcode paces a GPX location
/// simulation: a track's points (every track, in order), or a route's when there is no track, or
/// the waypoints when there is neither. A point without a time comes a second after the one
/// before it; times that go backwards (a second track recorded earlier) are played at once.
enum GPXTrackReading {
    static func timeline(of url: URL) throws(ReplayRecording.ReadError) -> [ReplayLocationSource.Entry] {
        var tracks: [GPXPoint] = [], routes: [GPXPoint] = [], waypoints: [GPXPoint] = []
        do {
            _ = try GPXReader().read(fileAt: url.path) { event in
                switch event {
                case let .trackPoint(point): tracks.append(point)
                case let .routePoint(point): routes.append(point)
                case let .waypoint(point): waypoints.append(point)
                default: break
                }
            }
        } catch {
            throw ReplayRecording.ReadError(file: url.path, reason: "\(error)")
        }
        let points = !tracks.isEmpty ? tracks : !routes.isEmpty ? routes : waypoints
        guard !points.isEmpty else { throw ReplayRecording.ReadError(file: url.path, reason: "no track, route or waypoint to replay") }
        let device = url.lastPathComponent
        let start = points.lazy.compactMap(\.time).first?.date
        var timeline: [ReplayLocationSource.Entry] = []
        timeline.reserveCapacity(points.count)
        for point in points {
            var offset = (timeline.last?.offset).map { $0 + .seconds(1) } ?? .zero
            if let time = point.time?.date, let start {
                offset = max(GPSDScript.duration(time.timeIntervalSince(start)), timeline.last?.offset ?? .zero)
            }
            let location = Location(
                latitude: point.latitude, longitude: point.longitude,
                altitude: point.elevation,
                speed: point.speed, course: point.course,
                time: point.time?.date, receivedAt: point.time?.date ?? Date(timeIntervalSince1970: 0) + GPSDScript.seconds(offset),
                mode: point.elevation == nil ? .fix2D : .fix3D,
                device: device, isSimulated: true)
            timeline.append(.init(offset: offset, event: .location(location)))
        }
        return timeline
    }
}
