import Foundation
import Simulators
import Testing
@testable import LocationCore
import LocationFacade

@Suite("Location's JSON form")
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

    @Test func theLineWritesEachKeyAsItsCodingKey() {
        for key in Location.CodingKeys.allCases {
            #expect(key.jsonPrefix.description == "\"\(key.stringValue)\":")
        }
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

    /// The line is written in memory set aside for it; a device path of any length, made of the
    /// characters that take the most room escaped, still fits and reads back.
    @Test func aLongDevicePathOfEscapesReadsBack() throws {
        var location = Self.full
        location.device = String(repeating: "\u{1F}\"\\é", count: 400)
        let line = location.jsonLine
        #expect(line.contains(#"\u001f\"\\é\u001f"#))
        #expect(try JSONDecoder().decode(Location.self, from: Data(line.utf8)) == location)
    }

    @Test func absentValuesAreLeftOut() {
        let minimal = Location(latitude: 1, longitude: 2, receivedAt: Date(timeIntervalSince1970: 0), mode: .fix2D)
        #expect(minimal.jsonLine == #"{"latitude":1.0,"longitude":2.0,"received":"1970-01-01T00:00:00.000Z","mode":"2d","simulated":false}"#)
    }

    @Test func decodingRejectsABadTime() {
        let line = #"{"latitude":1,"longitude":2,"time":"yesterday","mode":"3d"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Location.self, from: Data(line.utf8)) }
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
