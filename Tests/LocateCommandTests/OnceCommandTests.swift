import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import LocationFacade
import Simulators
import Testing
import TestSupport

/// `locate once` against the fake gpsd (protocol tier) and a replay (--simulate).
@Suite("locate once", .timeLimit(.minutes(2)))
struct OnceCommandTests {
    static let track = SyntheticTrack.generate(count: 10, seed: 11)

    /// A script whose first three fixes are 2D with poor accuracy, then 3D ones.
    static func mixedScript() -> GPSDScript {
        var fixes = track
        for index in 0..<3 {
            fixes[index].mode = .fix2D
            fixes[index].horizontalAccuracy = 40
        }
        return .fixes(fixes)
    }

    func serve(_ script: GPSDScript = mixedScript(), faults: [GPSDFault] = [], pace: FakeGPSDServer.Pace = .asFastAsClientsRead,
               startPolicy: FakeGPSDServer.StartPolicy = .onFirstWatch) throws -> (FakeGPSDServer, String) {
        let server = FakeGPSDServer(script: script, pace: pace, startPolicy: startPolicy, faults: faults)
        return (server, "127.0.0.1:\(try server.start())")
    }

    @Test func printsLatitudeAndLongitudeOfTheFirstFix() async throws {
        let (server, address) = try serve()
        defer { server.shutdown() }
        let result = try await Locate.run(["once", address])
        #expect(result.status == 0)
        #expect(result.output == ["\(Self.track[0].latitude) \(Self.track[0].longitude)"])
        #expect(result.error.isEmpty)
    }

    @Test func minimumModeAndAccuracyPickTheFirstQualifyingFix() async throws {
        let (server, address) = try serve()
        defer { server.shutdown() }
        let result = try await Locate.run(["once", address, "--min-mode", "3d", "--accuracy", "10", "--format", "json"])
        #expect(result.status == 0)
        let fix = try JSONDecoder().decode(Location.self, from: Data(try #require(result.output.first).utf8))
        #expect(fix.latitude == Self.track[3].latitude && fix.time == Self.track[3].time)
        #expect(fix.mode == .fix3D && fix.isSimulated)
    }

    /// Runs `locate once` against a fresh fake gpsd serving `script` (a script plays once).
    func once(_ arguments: [String], serving script: GPSDScript = .fixes(track)) async throws -> (status: Int32, output: [String], error: [String]) {
        let (server, address) = try serve(script)
        defer { server.shutdown() }
        return try await Locate.run(["once", address] + arguments)
    }

    @Test func templatesTakeLocationKeys() async throws {
        let first = Self.track[0]
        let plain = try await once(["--format", "%latitude,%longitude %mode %%"])
        #expect(plain.output == ["\(first.latitude),\(first.longitude) 3d %"])
        let escaped = try await once(["--format", "%time ±%h_accuracy\\t%device%status"])
        let accuracy = try #require(first.horizontalAccuracy)
        #expect(escaped.output == ["2024-05-01T10:00:00.000Z ±\(accuracy)\tsimulated0simulated"])
    }

    @Test func geoJSONAndGPXAreDocumentsOfTheirKind() async throws {
        let geo = try await once(["--format", "geojson"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(geo.output.joined().utf8)) as? [String: Any])
        let geometry = try #require(object["geometry"] as? [String: Any])
        #expect(object["type"] as? String == "Feature")
        let altitude = try #require(Self.track[0].altitude)
        #expect(geometry["coordinates"] as? [Double] == [Self.track[0].longitude, Self.track[0].latitude, altitude])
        let gpx = try await once(["--format", "gpx"])
        let document = try XMLDocument(data: Data(gpx.output.joined(separator: "\n").utf8))
        let gpxNamespace = "http://www.topografix.com/GPX/1/1"
        #expect(document.rootElement()?.localName == "gpx" && document.rootElement()?.uri == gpxNamespace)
        let point = try #require(document.rootElement()?.elements(forLocalName: "wpt", uri: gpxNamespace).first)
        // FoundationXML's attribute(forName:) finds nothing under a default namespace; look through them.
        let latitude = point.attributes?.first { $0.name == "lat" }?.stringValue
        #expect(latitude == "\(Self.track[0].latitude)")
        #expect(gpx.output.contains("  <src>simulated</src>"))
    }

    @Test func noQualifyingFixExits75WithTheBestSeenOnStandardError() async throws {
        let (server, address) = try serve(faults: [.stall(afterMessages: 3, duration: nil)])
        defer { server.shutdown() }
        // The deadline counts from the command's start, which a loaded machine can delay by
        // seconds: 15 s leaves room to connect and read the three messages before the stall.
        let result = try await Locate.run(["once", address, "--min-mode", "3d", "--timeout", "15"])
        #expect(result.status == 75)
        #expect(result.output.isEmpty)
        #expect(result.error.count == 1)
        #expect(result.error.first?.hasPrefix("locate once: No fix met the request within 15 s; the best seen was 2024-05-01T10:00:02.000Z") == true)
    }

    @Test func aLostGPSDThatDoesNotComeBackExits69() async throws {
        let (server, address) = try serve(faults: [.shutDown(afterMessages: 2)])
        defer { server.shutdown() }
        let result = try await Locate.run(["once", address, "--min-mode", "3d", "--timeout", "15"])
        #expect(result.status == 69)
        #expect(result.error == [
            "locate once: Lost the connection to gpsd at \(address): gpsd closed the connection. It did not come back within 15 s.",
        ])
    }

    @Test func unreachableGPSDExits69AtOnce() async throws {
        let port = try GPSFake.freePort()
        let started = ContinuousClock.now
        // A deadline far past the suite's time limit, so that a refusal that waited for it fails;
        // the bound itself is one a loaded machine keeps (a child took 45 s to start and end
        // with every test of the run started at once).
        let result = try await Locate.run(["once", "127.0.0.1:\(port)", "--timeout", "600"])
        #expect(result.status == 69)
        #expect(ContinuousClock.now - started < .seconds(90), "it must not wait for the 600 s deadline")
        #expect(result.error == [
            "locate once: Cannot reach gpsd at 127.0.0.1:\(port): the TCP connection was refused or failed. Is gpsd running and listening there?",
        ])
    }

    @Test func maxAgeAnswersWithTheFixGPSDAlreadyHas() async throws {
        // One fix, played as soon as the server starts; nothing new will come. The server's clock
        // is the test's, so that the fix grows older only when the test says.
        let clock = VirtualClock()
        let server = FakeGPSDServer(script: .fixes([Self.track[4]]), pace: .recorded(speed: 1), startPolicy: .immediately, clock: clock)
        let address = "127.0.0.1:\(try server.start())"
        defer { server.shutdown() }
        await server.waitUntil { $0.sentReports == 1 }
        // The fake gpsd's clock is the script's own, which a client may trust: the fix's age is
        // then the time since it was sent.
        let result = try await Locate.run([
            "once", address, "--max-age", "5", "--gpsd-clock", "synchronized", "--timeout", "5", "--format", "%latitude",
        ])
        #expect(result.status == 0)
        #expect(result.output == ["\(Self.track[4].latitude)"])
        await clock.advance(by: .seconds(6))
        let stale = try await Locate.run(["once", address, "--max-age", "5", "--gpsd-clock", "synchronized", "--timeout", "0.3"])
        #expect(stale.status == 75, "6 s old: older than asked")
        let lenient = try await Locate.run(["once", address, "--max-age", "10", "--gpsd-clock", "synchronized", "--timeout", "5", "--format", "%time %received"])
        #expect(lenient.status == 0)
        let time = try #require(Self.track[4].time)
        let received = try #require(lenient.output.first?.split(separator: " ").last.flatMap { RFC3339.parse($0)?.date })
        #expect(lenient.output.first?.hasPrefix(RFC3339.string(from: time)) == true)
        #expect(Date().timeIntervalSince(received) >= 6, "received 6 s before the answer, not when asked")
        let without = try await Locate.run(["once", address, "--timeout", "0.3"])  // the script has played
        #expect(without.status == 75, "without --max-age only a new fix will do")
        let untrusted = try await Locate.run(["once", address, "--max-age", "5", "--gpsd-clock", "unsynchronized", "--timeout", "0.3"])
        #expect(untrusted.status == 75, "a fix whose age gpsd's clock cannot tell is not taken as recent")
    }

    /// gpsd's three reports of one epoch whose end it has not learnt: after the RMC (2D, no
    /// accuracy), the GGA (altitude and horizontal accuracy) and the GSA (vertical accuracy too).
    static func epochInParts() -> GPSDScript {
        var gga = track[0]
        gga.verticalAccuracy = nil
        var rmc = gga
        rmc.mode = .fix2D
        (rmc.altitude, rmc.ellipsoidalAltitude, rmc.horizontalAccuracy, rmc.climb) = (nil, nil, nil, nil)
        return GPSDScript(entries: [rmc, gga, track[0]].enumerated().map { index, report in
            var report = report
            report.isSimulated = true
            return GPSDScript.Entry(
                offset: .milliseconds(100 * index), device: GPSDScript.defaultDevice, className: "TPV",
                line: GPSDReportWriter.tpv(report, device: GPSDScript.defaultDevice))
        })
    }

    @Test func theEpochWaitDecidesWhichReportOfAnEpochIsPrinted() async throws {
        let (horizontal, vertical) = (try #require(Self.track[0].horizontalAccuracy), try #require(Self.track[0].verticalAccuracy))
        let whole = try await once(["--format", "%mode %h_accuracy %v_accuracy"], serving: Self.epochInParts())
        #expect(whole.status == 0)
        #expect(whole.output == ["3d \(horizontal) \(vertical)"], "the epoch's last report, whole")
        let first = try await once(["--format", "%mode %h_accuracy %v_accuracy", "--epoch-wait", "0"], serving: Self.epochInParts())
        #expect(first.output == ["2d  "], "its first report, as gpspipe shows it")
    }

    @Test func simulateAnswersFromAReplayWithoutGPSD() async throws {
        let result = try await Locate.run(["once", "--simulate", Repository.fixture("gpsd/greenwich-walk.json").path, "--format", "json"])
        #expect(result.status == 0)
        let fix = try JSONDecoder().decode(Location.self, from: Data(try #require(result.output.first).utf8))
        #expect(fix.isSimulated)
        #expect(fix.latitude == 51.477928 && fix.longitude == -0.001545)
    }

    @Test func simulateNamesAMissingOrBadFile() async throws {
        let missing = try await Locate.run(["once", "--simulate", "/nonexistent.json"])
        #expect(missing.status == 66)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json")
        try "{\"class\":\"TPV\"}\n{oops\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let bad = try await Locate.run(["once", "--simulate", file.path])
        #expect(bad.status == 65)
        #expect(bad.error == ["locate once: \(file.path):2: not a gpsd JSON report: {oops"])
    }

    @Test(arguments: [
        ["--min-mode", "4d"], ["--timeout", "0"], ["--timeout", "-1"], ["--max-age", "-3"], ["--accuracy", "0"],
        ["--format", "%lat"], ["localhost", "--simulate", "x.json"], ["host:99999"],
    ])
    func badUsageExits64(arguments: [String]) async throws {
        let result = try await Locate.run(["once"] + arguments)
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
    }
}
