import Foundation
import Simulators
import Testing
@testable import LocationFacade

@Suite("Location's JSON form and RFC 3339 times")
struct LocationJSONTests {
    static let full = Location(
        latitude: 51.500729, longitude: -0.124625, altitude: 11.3, ellipsoidalAltitude: 57.1,
        horizontalAccuracy: 5.5, verticalAccuracy: 7.5, speed: 1.5, speedAccuracy: 0.8,
        course: 92.25, courseAccuracy: 12.5, climb: -0.25,
        time: Date(timeIntervalSince1970: 1_714_557_600.25), receivedAt: Date(timeIntervalSince1970: 1_714_557_600.5),
        mode: .fix3D, status: .dgps, device: "/dev/tty\"USB\"0", isSimulated: true)

    @Test func keysAreTheDocumentedOnes() {
        #expect(Location.CodingKeys.allCases.map(\.stringValue) == [
            "latitude", "longitude", "altitude", "altitude_hae", "h_accuracy", "v_accuracy", "speed",
            "speed_accuracy", "course", "course_accuracy", "climb", "time", "received", "mode", "status",
            "device", "simulated",
        ])
    }

    @Test func handWrittenLineDecodesToTheSameLocation() throws {
        let line = Self.full.jsonLine
        #expect(line.hasPrefix(#"{"latitude":51.500729,"longitude":-0.124625,"altitude":11.3,"#))
        #expect(line.contains(#""time":"2024-05-01T10:00:00.250Z""#))
        #expect(line.contains(#""device":"/dev/tty\"USB\"0""#))
        let decoded = try JSONDecoder().decode(Location.self, from: Data(line.utf8))
        #expect(decoded == Self.full)
    }

    @Test func codableRoundTripMatchesTheHandWrittenLine() throws {
        let encoded = try JSONEncoder().encode(Self.full)
        let viaCodable = try JSONSerialization.jsonObject(with: encoded) as! NSDictionary
        let viaLine = try JSONSerialization.jsonObject(with: Data(Self.full.jsonLine.utf8)) as! NSDictionary
        #expect(viaCodable == viaLine)
        #expect(try JSONDecoder().decode(Location.self, from: encoded) == Self.full)
    }

    @Test func absentValuesAreLeftOut() {
        let minimal = Location(latitude: 1, longitude: 2, receivedAt: Date(timeIntervalSince1970: 0), mode: .fix2D)
        #expect(minimal.jsonLine == #"{"latitude":1.0,"longitude":2.0,"received":"1970-01-01T00:00:00.000Z","mode":"2d","simulated":false}"#)
    }

    @Test func decodingRejectsABadTime() {
        let line = #"{"latitude":1,"longitude":2,"time":"yesterday","mode":"3d"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Location.self, from: Data(line.utf8)) }
    }

    @Test(arguments: [
        ("2024-05-01T10:00:00Z", 1_714_557_600.0, 0),
        ("2024-05-01T10:00:00.250Z", 1_714_557_600.25, 0),
        ("2024-05-01T10:00:00.123456789Z", 1_714_557_600.123456789, 0),
        ("2019-08-12T23:45:00+01:15", 1_565_649_000.0, 4500),
        ("2019-08-12T23:45:00-0530", 1_565_673_300.0, -19800),
        ("2024-02-29t12:00:00z", 1_709_208_000.0, 0),
        ("1234-05-06T07:08:09Z", -23_215_049_511.0, 0),
        ("4096-01-01T00:00:00Z", 67_090_118_400.0, 0),
        ("2016-12-31T23:59:60Z", 1_483_228_800.0, 0),
    ])
    func parsesRFC3339(text: String, seconds: Double, offset: Int) throws {
        let parsed = try #require(RFC3339.parse(text))
        #expect(abs(parsed.date.timeIntervalSince1970 - seconds) < 1e-6)
        #expect(parsed.utcOffset == offset)
    }

    @Test func noZoneMeansUTCAndSaysSo() throws {
        let parsed = try #require(RFC3339.parse("2010-01-01T00:00:00"))
        #expect(parsed.date.timeIntervalSince1970 == 1_262_304_000)
        #expect(parsed.utcOffset == nil)
    }

    @Test(arguments: [
        "", "2024-05-01", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z",
        "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+25:00", "2024-05-01T10:00:00Zjunk", "20240501T100000Z",
    ])
    func rejectsMalformedTimes(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func writesUTCWithRoundedFraction() {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_714_557_600.2496)) == "2024-05-01T10:00:00.250Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_714_557_600.9996)) == "2024-05-01T10:00:01.000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -0.5), fractionDigits: 1) == "1969-12-31T23:59:59.5Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_714_557_600), fractionDigits: 0) == "2024-05-01T10:00:00Z")
    }

    @Test func formatAndParseAgreeOverManyDates() throws {
        var generator = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            let milliseconds = Int64(generator.next() % 200_000_000_000_000) - 60_000_000_000_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = RFC3339.string(from: date)
            let parsed = try #require(RFC3339.parse(text))
            #expect(abs(parsed.date.timeIntervalSince1970 - date.timeIntervalSince1970) < 1e-6, "\(text)")
        }
    }

    @Test func errorDescriptionsNameWhatWentWrong() {
        #expect(LocationError.unreachable(host: "10.0.0.9", port: 2947, reason: "connection refused").description
            == "Cannot reach gpsd at 10.0.0.9:2947: connection refused. Is gpsd running and listening there?")
        #expect(LocationError.timedOut(after: .seconds(10), best: nil).description == "No fix arrived within 10 s.")
        #expect(LocationError.timedOut(after: .milliseconds(1500), best: nil).description.contains("1.5 s"))
        #expect(LocationError.connectionLost(host: "::1", port: 2947, reason: "gpsd closed the connection").description
            == "Lost the connection to gpsd at [::1]:2947: gpsd closed the connection.")
    }
}
