import Foundation
import Simulators
import Testing
@testable import LocationFacade

/// Unit tier: gpsd JSON lines through libgps's own parser (`gps_unpack`) and our mapping.
@Suite("Mapping gpsd reports into Swift")
struct GPSDMappingTests {
    let decoder = LibGPSDecoder()
    let received = Date(timeIntervalSince1970: 1_700_000_000)

    func fix(_ line: String) throws -> Location {
        let message = decoder.decode(line, receivedAt: received)
        guard case let .fix(location) = message else {
            Issue.record("expected a fix, got \(message)")
            throw CancellationError()
        }
        return location
    }

    @Test func fullThreeDimensionalFix() throws {
        let location = try fix(#"""
            {"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2024-05-01T10:00:00.250Z","ept":0.005,"lat":51.500729,"lon":-0.124625,"altHAE":57.1,"altMSL":11.3,"alt":11.3,"epx":3.1,"epy":4.2,"epv":7.5,"track":92.25,"magtrack":91.0,"speed":1.5,"climb":-0.25,"eps":0.8,"epc":1.1,"epd":12.5,"eph":5.5,"sep":9.9,"geoidSep":45.8}
            """#)
        #expect(location.latitude == 51.500729)
        #expect(location.longitude == -0.124625)
        #expect(location.altitude == 11.3)
        #expect(location.ellipsoidalAltitude == 57.1)
        #expect(location.horizontalAccuracy == 5.5)
        #expect(location.verticalAccuracy == 7.5)
        #expect(location.speed == 1.5)
        #expect(location.speedAccuracy == 0.8)
        #expect(location.course == 92.25)
        #expect(location.courseAccuracy == 12.5)
        #expect(location.climb == -0.25)
        #expect(location.time == RFC3339.parse("2024-05-01T10:00:00.250Z")?.date)
        #expect(location.receivedAt == received)
        #expect(location.mode == .fix3D)
        #expect(location.status == nil)
        #expect(location.device == "/dev/ttyUSB0")
        #expect(location.isSimulated == false)
    }

    @Test func absentFieldsAreNilNeverNaN() throws {
        let location = try fix(#"{"class":"TPV","mode":3,"lat":10.5,"lon":20.25}"#)
        #expect(location.altitude == nil)
        #expect(location.ellipsoidalAltitude == nil)
        #expect(location.horizontalAccuracy == nil)
        #expect(location.verticalAccuracy == nil)
        #expect(location.speed == nil)
        #expect(location.course == nil)
        #expect(location.climb == nil)
        #expect(location.time == nil)
        #expect(location.device == nil)
        #expect(!location.jsonLine.contains("nan"))
        #expect(!location.jsonLine.contains("NaN"))
    }

    @Test func fieldsOfThePreviousReportDoNotLeakIntoTheNext() throws {
        _ = try fix(#"{"class":"TPV","device":"/dev/a","mode":3,"lat":1,"lon":2,"altMSL":100,"speed":3,"eph":4}"#)
        let second = try fix(#"{"class":"TPV","mode":3,"lat":5,"lon":6}"#)
        #expect(second.altitude == nil)
        #expect(second.speed == nil)
        #expect(second.horizontalAccuracy == nil)
        #expect(second.device == nil)
    }

    @Test func modeOneAfterAFixIsNoFixNotTheOldPosition() throws {
        _ = try fix(#"{"class":"TPV","mode":3,"lat":1,"lon":2,"altMSL":100}"#)
        let message = decoder.decode(#"{"class":"TPV","device":"/dev/a","mode":1,"time":"2024-05-01T10:00:01.000Z"}"#)
        #expect(message == .noFix(device: "/dev/a", time: RFC3339.parse("2024-05-01T10:00:01Z")?.date))
    }

    @Test func modeZeroOrMissingIsNoFix() {
        #expect(decoder.decode(#"{"class":"TPV","mode":0}"#) == .noFix(device: nil, time: nil))
        #expect(decoder.decode(#"{"class":"TPV","lat":1.0,"lon":2.0}"#) == .noFix(device: nil, time: nil))
    }

    @Test func aFixWithoutCoordinatesIsNoFix() {
        #expect(decoder.decode(#"{"class":"TPV","mode":3,"lat":1.0}"#) == .noFix(device: nil, time: nil))
    }

    @Test func twoDimensionalFixDropsVerticalFields() throws {
        _ = try fix(#"{"class":"TPV","mode":3,"lat":1,"lon":2,"altMSL":100,"climb":1.0,"epv":3}"#)
        let location = try fix(#"{"class":"TPV","mode":2,"lat":1,"lon":2,"altHAE":140.0,"altMSL":100.0,"climb":0.5,"epv":9.0,"speed":2}"#)
        #expect(location.mode == .fix2D)
        #expect(location.altitude == nil)
        #expect(location.ellipsoidalAltitude == nil)
        #expect(location.climb == nil)
        #expect(location.verticalAccuracy == nil)
        #expect(location.speed == 2)
    }

    @Test func statusMapsAndSimulatedIsFlagged() throws {
        #expect(try fix(#"{"class":"TPV","mode":3,"status":2,"lat":1,"lon":2}"#).status == .dgps)
        #expect(try fix(#"{"class":"TPV","mode":3,"status":3,"lat":1,"lon":2}"#).status == .rtkFixed)
        let simulated = try fix(#"{"class":"TPV","mode":3,"status":8,"lat":1,"lon":2}"#)
        #expect(simulated.status == .simulated)
        #expect(simulated.isSimulated)
        #expect(try fix(#"{"class":"TPV","mode":3,"status":42,"lat":1,"lon":2}"#).status == nil)
    }

    @Test func altitudeFallbacks() throws {
        // gpsd before 3.20 sent only "alt", meaning MSL.
        #expect(try fix(#"{"class":"TPV","mode":3,"lat":1,"lon":2,"alt":12.5}"#).altitude == 12.5)
        // HAE and geoid separation give MSL.
        #expect(try fix(#"{"class":"TPV","mode":3,"lat":1,"lon":2,"altHAE":60.0,"geoidSep":45.5}"#).altitude == 14.5)
        // 3.22 copies altHAE into "alt" when it has no MSL: that is not MSL.
        let haeOnly = try fix(#"{"class":"TPV","mode":3,"lat":1,"lon":2,"altHAE":60.0,"alt":60.0}"#)
        #expect(haeOnly.altitude == nil)
        #expect(haeOnly.ellipsoidalAltitude == 60)
    }

    @Test func horizontalAccuracyFromEpxEpyWhenNoEph() throws {
        let location = try fix(#"{"class":"TPV","mode":2,"lat":1,"lon":2,"epx":3.0,"epy":4.0}"#)
        #expect(location.horizontalAccuracy == 5.0)
    }

    @Test func satelliteReport() {
        let message = decoder.decode(#"""
            {"class":"SKY","device":"/dev/ttyUSB0","time":"2024-05-01T10:00:00.000Z","xdop":0.7,"ydop":0.9,"vdop":1.4,"tdop":0.8,"hdop":1.1,"gdop":2.0,"pdop":1.8,"satellites":[{"PRN":5,"el":45.0,"az":120.0,"ss":38.0,"used":true},{"PRN":12,"el":10.0,"az":300.0,"ss":0.0,"used":false},{"PRN":29,"used":false}]}
            """#)
        guard case let .sky(report) = message else {
            Issue.record("expected SKY, got \(message)")
            return
        }
        #expect(report.device == "/dev/ttyUSB0")
        #expect(report.visibleCount == 3)
        #expect(report.usedCount == 1)
        #expect(report.hdop == 1.1)
        #expect(report.pdop == 1.8)
        #expect(report.satellites.map(\.prn) == [5, 12, 29])
        #expect(report.satellites[2].elevation == nil)
        #expect(report.satellites[0].signalStrength == 38)
    }

    @Test func satelliteReportWithoutListHasNoCounts() {
        let message = decoder.decode(#"{"class":"SKY","hdop":1.5}"#)
        guard case let .sky(report) = message else {
            Issue.record("expected SKY, got \(message)")
            return
        }
        #expect(report.visibleCount == nil)
        #expect(report.usedCount == nil)
        #expect(report.hdop == 1.5)
        #expect(report.vdop == nil)
    }

    @Test func devicesAndDeviceReports() {
        let devices = decoder.decode(#"""
            {"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0","driver":"u-blox","activated":"2024-05-01T09:00:00.000Z","flags":1,"native":1,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00},{"class":"DEVICE","path":"/dev/ttyACM0","flags":1}]}
            """#)
        #expect(devices == .devices([
            GPSDevice(path: "/dev/ttyUSB0", driver: "u-blox", activated: RFC3339.parse("2024-05-01T09:00:00Z")?.date, baudRate: 9600),
            // Inside the DEVICES array libgps applies no defaults: an absent bps stays 0, which is nil.
            GPSDevice(path: "/dev/ttyACM0", driver: nil, activated: nil, baudRate: nil),
        ]))
        let gone = decoder.decode(#"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":0}"#)
        guard case let .device(device) = gone else {
            Issue.record("expected DEVICE, got \(gone)")
            return
        }
        #expect(device.path == "/dev/ttyUSB0")
        #expect(!device.isActive)
    }

    @Test func versionWatchAndError() {
        #expect(decoder.decode(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#)
            == .version(release: "3.22"))
        #expect(decoder.decode(#"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false}"#)
            == .watch(enabled: true))
        #expect(decoder.decode(#"{"class":"WATCH","enable":false}"#) == .watch(enabled: false))
        #expect(decoder.decode(#"{"class":"ERROR","message":"Unrecognized request '?FOO'"}"#)
            == .error(message: "Unrecognized request '?FOO'"))
        #expect(decoder.decode(#"{"class":"GST","device":"/dev/x","rms":1.0}"#) == .ignored(className: "GST"))
    }

    @Test func pollAnswerCarriesTheCachedFixes() {
        let message = decoder.decode(#"""
            {"class":"POLL","time":"2024-05-01T10:00:05.000Z","active":2,"tpv":[{"class":"TPV","device":"/dev/a","mode":3,"time":"2024-05-01T10:00:04.000Z","lat":1.5,"lon":2.5,"altMSL":3.0},{"class":"TPV","device":"/dev/b","mode":1}],"gst":[],"sky":[{"class":"SKY","device":"/dev/a","hdop":1.0}]}
            """#, receivedAt: received)
        guard case let .poll(fixes, answeredAt) = message else {
            Issue.record("expected POLL, got \(message)")
            return
        }
        #expect(answeredAt == RFC3339.parse("2024-05-01T10:00:05.000Z")?.date, "gpsd's clock when it answered, not a TPV's time")
        #expect(fixes.count == 1)
        #expect(fixes.first?.device == "/dev/a")
        #expect(fixes.first?.latitude == 1.5)
        #expect(fixes.first?.altitude == 3.0)
        #expect(fixes.first?.receivedAt == received)
        #expect(decoder.decode(#"{"class":"POLL","time":"2024-05-01T10:00:05.000Z","active":0,"tpv":[],"gst":[],"sky":[]}"#)
            == .poll(fixes: [], time: RFC3339.parse("2024-05-01T10:00:05.000Z")?.date))
        // The answer's own time only: a POLL without one has none, whatever its fixes say.
        #expect(decoder.decode(#"{"class":"POLL","active":1,"tpv":[{"class":"TPV","device":"/dev/a","mode":3,"time":"2024-05-01T10:00:04.000Z","lat":1.5,"lon":2.5}]}"#)
            == .poll(fixes: [Location(latitude: 1.5, longitude: 2.5, time: RFC3339.parse("2024-05-01T10:00:04.000Z")?.date,
                                      receivedAt: Date(timeIntervalSince1970: 0), mode: .fix3D, device: "/dev/a")], time: nil))
    }

    @Test(arguments: [
        ("garbage", "not a JSON object"),
        (#"{"class":"TPV","mode":3,"lat":51.5"#, "a truncated object"),
        (#"{"class":"TPV","device":"/dev/x}"#, "an unterminated string"),
        (#"{"mode":3,"lat":1,"lon":2}"#, #"a JSON object without a "class""#),
        (#"{"class":"TPV"}{"class":"TPV"}"#, "text after the end of the object"),
        ("", "an empty line"),
    ])
    func malformedLines(line: String, reason: String) {
        #expect(decoder.decode(line) == .malformed(reason: reason))
    }

    /// libgps recognises a report only by gpsd's compact start (`{"class":"TPV"`): one written with
    /// white space, before, inside or after the object, decodes as the compact one does.
    @Test(arguments: [
        #" {"class":"TPV","device":"/dev/a","mode":3,"lat":51.5,"lon":-0.12,"altMSL":11.5,"speed":1.25}"#,
        #"{"class" : "TPV","device":"/dev/a","mode":3,"lat":51.5,"lon":-0.12,"altMSL":11.5,"speed":1.25}"#,
        #"{"class":"TPV","device":"/dev/a","mode":3,"lat":51.5,"lon":-0.12,"altMSL" : 11.5 , "speed":1.25}  "#,
        "{\"class\":\t\"TPV\",\"device\":\"/dev/a\",\"mode\":3,\n\"lat\":51.5,\"lon\":-0.12,\"altMSL\":11.5,\"speed\":1.25}",
    ])
    func whiteSpaceAnywhereDecodesAsTheCompactReport(line: String) throws {
        let compact = try fix(#"{"class":"TPV","device":"/dev/a","mode":3,"lat":51.5,"lon":-0.12,"altMSL":11.5,"speed":1.25}"#)
        _ = try fix(#"{"class":"TPV","device":"/dev/b","mode":3,"lat":1,"lon":2,"altMSL":3,"speed":4}"#)
        #expect(try fix(line) == compact)
    }

    @Test func whatTheFakesWriteLibgpsReadsBack() throws {
        for original in SyntheticTrack.generate(count: 50, seed: 9, device: "/dev/sim") {
            var twoD = original
            twoD.mode = .fix2D
            for expected in [original, twoD] {
                let line = GPSDReportWriter.tpv(expected, device: expected.device)
                let decoded = try fix(line)
                #expect(decoded.latitude == expected.latitude && decoded.longitude == expected.longitude)
                #expect(decoded.time == expected.time && decoded.mode == expected.mode)
                #expect(decoded.speed == expected.speed && decoded.course == expected.course)
                #expect(decoded.horizontalAccuracy == expected.horizontalAccuracy)
                #expect(decoded.altitude == (expected.mode == .fix3D ? expected.altitude : nil))
                #expect(decoded.isSimulated && decoded.status == .simulated && decoded.device == "/dev/sim")
            }
        }
    }
}
