import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

@Suite("GPSDScript reads gpsd logs and builds scripts")
struct GPSDScriptTests {
    @Test func readsOurRecordedGPSDLog() throws {
        let script = try GPSDScript(contentsOf: Repository.fixture("gpsd/greenwich-walk.json"))
        #expect(script.tpvCount == 119)
        #expect(script.entries.allSatisfy { !["VERSION", "DEVICES", "DEVICE", "WATCH"].contains($0.className) })
        #expect(script.devices == ["/dev/pts/1"])
        let offsets = script.entries.map(\.offset)
        #expect(offsets == offsets.sorted())
        #expect(offsets.last == .seconds(109))
        #expect(script.entries.filter { $0.className == "TPV" }.allSatisfy { $0.line.contains(#""status":8"#) })
    }

    @Test func paceComesFromReportTimesAndNeverRunsBackwards() throws {
        let log = """
            {"class":"VERSION","release":"3.22"}\r
            {"class":"TPV","device":"/dev/a","mode":1}\r
            {"class":"TPV","device":"/dev/a","mode":3,"time":"2024-05-01T10:00:00.000Z","lat":1,"lon":2}\r
            {"class":"SKY","device":"/dev/a","hdop":1.0}\r
            {"class":"TPV","device":"/dev/a","mode":3,"time":"2024-05-01T10:00:01.500Z","lat":1,"lon":2}\r
            {"class":"TPV","device":"/dev/a","mode":3,"time":"2024-05-01T10:00:01.000Z","lat":1,"lon":2}\r

            """
        let script = try GPSDScript(recordedLog: log)
        #expect(script.entries.map(\.className) == ["TPV", "TPV", "SKY", "TPV", "TPV"])
        #expect(script.entries.map(\.offset) == [.zero, .zero, .zero, .milliseconds(1500), .milliseconds(1500)])
        #expect(script.scaled(by: 3).entries[3].offset == .milliseconds(500))
    }

    @Test func simulatedMarkingKeepsAReceiversOwnStatus() throws {
        let log = """
            {"class":"TPV","mode":3,"lat":1,"lon":2}
            {"class":"TPV","mode":3,"status":2,"lat":1,"lon":2}
            """
        let marked = try GPSDScript(recordedLog: log)
        #expect(marked.entries.map(\.line) == [
            #"{"class":"TPV","status":8,"mode":3,"lat":1,"lon":2}"#,
            #"{"class":"TPV","mode":3,"status":2,"lat":1,"lon":2}"#,
        ])
        let verbatim = try GPSDScript(recordedLog: log, markingSimulated: false)
        #expect(verbatim.entries.map(\.line) == log.split(separator: "\n").map(String.init))
    }

    @Test func aBadLineIsNamedByNumber() {
        let log = """
            {"class":"TPV","mode":1}
            # a comment is fine

            $GPGGA,100000.00,5128.675,N,00000.0927,W,1,07,0.9,30.0,M,45.6,M,,*43
            """
        #expect(throws: GPSDScript.ReadError(source: "walk.json", line: 4, reason: "not a gpsd JSON report: $GPGGA,100000.00,5128.675,N,00000.0927,W,1,07,0.9,30.0,M,45.")) {
            try GPSDScript(recordedLog: log, source: "walk.json")
        }
        #expect(throws: GPSDScript.ReadError(source: "log", line: 1, reason: #"a JSON object without a "class""#)) {
            try GPSDScript(recordedLog: #"{"mode":3}"#)
        }
    }

    @Test func fixesBecomeSimulatedTPVsWithSkyReports() {
        let track = SyntheticTrack.generate(count: 3)
        let script = GPSDScript.fixes(track, interval: .milliseconds(200), device: "/dev/x", satellites: SatelliteReport(hdop: 1))
        #expect(script.entries.map(\.className) == ["TPV", "SKY", "TPV", "SKY", "TPV", "SKY"])
        #expect(script.entries.map(\.offset) == [.zero, .zero, .milliseconds(200), .milliseconds(200), .milliseconds(400), .milliseconds(400)])
        #expect(script.entries.allSatisfy { $0.device == "/dev/x" })
        #expect(script.entries[0].line.hasPrefix(#"{"class":"TPV","device":"/dev/x","status":8,"mode":3,"time":"2024-05-01T10:00:00.000Z","lat":51.477928000"#))
    }
}
