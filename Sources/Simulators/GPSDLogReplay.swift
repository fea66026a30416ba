#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationFacade
import SimulatorsCore

extension GPSDReportReading {
    /// libgps's reading of gpsd's reports (`gps_unpack(3)` and `GPSDClient`'s mapping): a replay of
    /// a gpsd log reports what a `GPSDClient` reading the same reports from gpsd would.
    static let libgps = GPSDReportReading {
        let decoder = GPSDReportDecoder()
        return { line, receivedAt in decoder.event(for: line, receivedAt: receivedAt) }
    }
}

extension ReplayRecording {
    /// Opens `url`, telling its format from its content: a gpsd JSON log (as `gpspipe -w` or
    /// `locate record` writes it), whose reports are read with libgps as a `GPSDClient` reads
    /// gpsd's; an NMEA 0183 log; or a GPX track, plain or gzip-compressed. Checks that its first
    /// events (a few hundred) can be read; the rest is read as it plays.
    ///
    /// ```swift
    /// let recording = try ReplayRecording(contentsOf: URL(fileURLWithPath: "ride.gpx"))
    /// let manager = LocationManager(source: recording.device(speed: 10))
    /// ```
    ///
    /// - Throws: `ReplayRecording.ReadError` naming the file (and line) that could not be read: a
    ///   folder, a file that is none of the three formats, or one whose beginning is not valid.
    public init(contentsOf url: URL) throws(ReadError) {
        try self.init(opening: url, gpsdReports: .libgps)
    }
}

extension ReplayLocationSource {
    /// A device playing the fixes, no-fix reports and satellite reports of `script`, read by
    /// libgps as a `GPSDClient` reads them from gpsd.
    public convenience init(
        script: GPSDScript, speed: Double = 1, loop: Bool = false, startOffset: Duration = .zero,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        let read = GPSDReportReading.libgps.makeReader()
        let entries = script.entries.compactMap { Entry.decoding($0, with: read) }
        self.init(
            recording: .entries(entries.sorted { $0.offset < $1.offset }), speed: speed, loop: loop, startOffset: startOffset,
            reportsEpochsInParts: true, clock: clock)
    }

    /// A device playing a recorded gpsd JSON log (as `gpspipe -w` or `locate record` writes it),
    /// read by libgps as a `GPSDClient` reads gpsd's reports.
    ///
    /// ```swift
    /// let device = try ReplayLocationSource(gpsdLog: URL(fileURLWithPath: "fixtures/gpsd/greenwich-walk.json"))
    /// let manager = LocationManager(source: device)
    /// let fix = try await manager.requestLocation(timeout: .seconds(5))
    /// ```
    ///
    /// - Throws: `GPSDScript.ReadError` naming the first bad line, or the error reading the file.
    public convenience init(
        gpsdLog url: URL, speed: Double = 1, loop: Bool = false, startOffset: Duration = .zero,
        clock: some Clock<Duration> = ContinuousClock()
    ) throws {
        let script = try GPSDScript(contentsOf: url, markingSimulated: false)
        self.init(script: script, speed: speed, loop: loop, startOffset: startOffset, clock: clock)
    }
}
