import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// NMEA logs as real receivers and tools write them (`fixtures/nmea/`, small files of our own),
/// read as `locate replay`, `locate once --simulate` and `ReplayLocationSource(nmeaLog:)` read
/// them: through ``ReplayRecording``, which tells the format from the content.
@Suite("NMEA logs as real tools write them")
struct NMEARealWorldLogTests {
    /// The fixtures' positions: 51°28.67568'N 0°00.09270'W and on, 0.00032' north and 0.0003'
    /// west a second.
    static func position(_ second: Int) -> (latitude: Double, longitude: Double) {
        (51 + (28.67568 + 0.00032 * Double(second)) / 60, -(0.09270 + 0.0003 * Double(second)) / 60)
    }

    static func time(_ text: String) -> Date {
        RFC3339.parse(text)!.date
    }

    func recording(_ name: String) throws -> ReplayRecording {
        try ReplayRecording(contentsOf: Repository.fixture("nmea/\(name)"))
    }

    func fixes(_ name: String) throws -> [Location] {
        try recording(name).readTimeline().compactMap(\.event.location)
    }

    func skippedLines(_ name: String) throws -> Int {
        NMEADecoder().decode(try String(contentsOf: Repository.fixture("nmea/\(name)"), encoding: .utf8)).skippedLines
    }

    /// The fixes are the walk's seconds `seconds`, at 2024-05-01T10:00:0s, in 3D.
    func expectWalk(_ fixes: [Location], seconds: [Int], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(fixes.count == seconds.count, "\(fixes)", sourceLocation: sourceLocation)
        for (fix, second) in zip(fixes, seconds) {
            let want = Self.position(second)
            #expect(abs(fix.latitude - want.latitude) < 1e-9 && abs(fix.longitude - want.longitude) < 1e-9, "\(fix)", sourceLocation: sourceLocation)
            #expect(fix.time == Self.time("2024-05-01T10:00:0\(second)Z"), sourceLocation: sourceLocation)
            #expect(fix.mode == .fix3D, sourceLocation: sourceLocation)
            #expect(fix.altitude == 30, sourceLocation: sourceLocation)
        }
    }

    @Test func aLogBeginningWithCommentLinesIsAnNMEALog() throws {
        // gpsd's regression logs and gpsfake's logs begin with `# Name:`, `# Date:`...
        let recording = try recording("comments.nmea")
        #expect(recording.format == .nmea)
        expectWalk(try recording.readTimeline().compactMap(\.event.location), seconds: [0, 1, 2])
        #expect(try recording.readNMEA().epochs.count == 3)
        #expect(try recording.readNMEA().text.hasPrefix("$GPRMC,100000.00,"), "comments are not played to the serial device")
        #expect(try skippedLines("comments.nmea") == 5)
    }

    @Test func aFirstSentenceCutOffIsSkipped() throws {
        // The recording began mid-sentence; later a sentence was cut off by the next one, which
        // counts (gpsd starts again at each `$`).
        let recording = try recording("truncated-start.nmea")
        #expect(recording.format == .nmea)
        expectWalk(try recording.readTimeline().compactMap(\.event.location), seconds: [1, 2, 3])
        #expect(try skippedLines("truncated-start.nmea") == 1)
        #expect(try !recording.readNMEA().text.contains("$GPGSV,3,1,12,02,62,041,4$"), "the cut-off sentence is not played")
        #expect(try recording.readNMEA().text.contains("\r\n$GPRMC,100002.00,"))
    }

    @Test func theSerialDevicePlaysALogAtItsPace() throws {
        // What comes before the first time of day (here a GSA) is played with the first epoch,
        // not ten hours before it.
        let log = try recording("truncated-start.nmea").readNMEA()
        #expect(log.epochs.map(\.offset) == [.zero, .seconds(1), .seconds(2)])
        #expect(log.epochs.first?.sentences.first?.hasPrefix("$GPGSA,") == true)
        // A time a little before the last (a receiver's jitter) is played at once, not a day later.
        let rmc = { (time: String) in NMEAEncoder.sentence("GPRMC,\(time),A,5128.67568,N,00000.09270,W,1.2,90.0,010524,,,A") }
        let jittery = NMEALog(text: rmc("100001.00") + rmc("100000.90") + rmc("100002.00"))
        #expect(jittery.epochs.map(\.offset) == [.zero, .zero, .seconds(1)])
    }

    @Test func aFreeTextHeaderIsSkipped() throws {
        let recording = try recording("free-text-header.nmea")
        #expect(recording.format == .nmea)
        expectWalk(try recording.readTimeline().compactMap(\.event.location), seconds: [0, 1])
        #expect(try skippedLines("free-text-header.nmea") == 2)
    }

    @Test func sentencesWithoutChecksumsAreTakenAndWrongChecksumsAreNot() throws {
        let recording = try recording("no-checksums.nmea")
        #expect(recording.format == .nmea)
        // The third second's RMC, with another position, has a wrong checksum: GGA's position counts.
        expectWalk(try recording.readTimeline().compactMap(\.event.location), seconds: [0, 1, 2])
        #expect(try skippedLines("no-checksums.nmea") == 1)
        #expect(try recording.readNMEA().text.hasPrefix("$GPRMC,100000.00,A,5128.67568,N,00000.09270,W,1.2,90.0,010524,,,A\r\n"), "played as written")
    }

    @Test func proprietarySentencesAreIgnored() throws {
        // Garmin's PGRMT, PGRME, PGRMM, and u-blox's PUBX,00 with a position of its own (51.5°N).
        let recording = try recording("proprietary.nmea")
        expectWalk(try recording.readTimeline().compactMap(\.event.location), seconds: [0, 1, 2])
        #expect(try skippedLines("proprietary.nmea") == 0, "they are NMEA sentences, of no use to a replay")
        #expect(try recording.readNMEA().text.contains("$PUBX,00,"), "the serial device plays them, as the receiver did")
    }

    @Test func everyTalkerGivesPositions() throws {
        // GN (GPS with GLONASS), GL (GLONASS), GA (Galileo), GB and BD (BeiDou), QZ (QZSS), GP (GPS).
        expectWalk(try fixes("talkers.nmea"), seconds: [0, 1, 2, 3, 4, 5, 6])
    }

    @Test func gllPositionsDatedByZDA() throws {
        let fixes = try fixes("gll-zda.nmea")
        #expect(fixes.map(\.time) == ["2023-12-31T23:59:57Z", "2023-12-31T23:59:58Z", "2023-12-31T23:59:59Z"].map(Self.time))
        for (second, fix) in fixes.enumerated() {
            #expect(abs(fix.latitude - Self.position(second).latitude) < 1e-9 && abs(fix.longitude - Self.position(0).longitude) < 1e-9)
            #expect(fix.mode == .fix2D, "GLL has no altitude")
            #expect(fix.altitude == nil)
        }
    }

    @Test func gnsPositionsDatedByZDAIntoANewYear() throws {
        let recording = try recording("gns-zda.nmea")
        let fixes = try recording.readTimeline().compactMap(\.event.location)
        let times = ["2023-12-31T23:59:58Z", "2023-12-31T23:59:59Z", "2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z"]
        #expect(fixes.map(\.time) == times.map(Self.time))
        #expect(try recording.readTimeline().map(\.offset) == [.zero, .seconds(1), .seconds(2), .seconds(3)], "paced across midnight")
        for (second, fix) in fixes.enumerated() {
            #expect(abs(fix.latitude - Self.position(second).latitude) < 1e-9 && abs(fix.longitude - Self.position(0).longitude) < 1e-9)
            #expect(fix.mode == .fix3D)
            #expect(fix.altitude == 30)
            #expect(abs((fix.ellipsoidalAltitude ?? 0) - 75.6) < 1e-9, "30 m above the geoid, which is 45.6 m above the ellipsoid")
        }
    }

    @Test func timesOfDayCountOnceADateIsKnown() {
        // GGA carries no date: its fixes have no time until an RMC or a ZDA gives one.
        let gga = { (time: String) in NMEAEncoder.sentence("GPGGA,\(time),5128.67568,N,00000.09270,W,1,08,0.9,30.0,M,45.6,M,,") }
        let text = gga("100000.00") + NMEAEncoder.sentence("GPZDA,100001.00,01,05,2024,00,00") + gga("100001.00") + gga("100002.00")
        let fixes = NMEADecoder().decode(text).timeline.compactMap(\.event.location)
        #expect(fixes.map(\.time) == [nil, Self.time("2024-05-01T10:00:01Z"), Self.time("2024-05-01T10:00:02Z")])
    }

    @Test func aFileWithoutSentencesIsRefused() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-nmea-\(UUID()).log")
        defer { try? FileManager.default.removeItem(at: file) }
        try "# A comment\nSome text, $5 a month\n$GPRMC,100000.00,A*00\n".write(to: file, atomically: true, encoding: .utf8)
        #expect {
            try ReplayRecording(contentsOf: file)
        } throws: { error in
            (error as? ReplayRecording.ReadError)?.reason == "not a gpsd JSON log, an NMEA log or a GPX file"
        }
    }

    @Test func gpsdLogsAndGPXAreStillToldApart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("formats-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("log.json"), gpx = folder.appendingPathComponent("track.gpx")
        let log = try String(contentsOf: Repository.fixture("gpsd/greenwich-walk.json"), encoding: .utf8)
        try ("\n" + log).write(to: json, atomically: true, encoding: .utf8)
        try Fixtures.greenwichWalkGPX().write(to: gpx, atomically: true, encoding: .utf8)
        #expect(try ReplayRecording(contentsOf: json).format == .gpsdJSON)
        #expect(try ReplayRecording(contentsOf: gpx).format == .gpx)
    }
}
