@testable import LocateCommand
import Testing

/// `locate once` reads its plain invocations without ArgumentParser (Once+QuickParsing.swift):
/// each one it reads must mean what ArgumentParser makes of it, and anything else must be left to
/// ArgumentParser, whose help and messages it would otherwise bypass.
@Suite("locate once, read without ArgumentParser")
struct OnceQuickParsingTests {
    /// The fields of `request` that the command runs on, as text to compare.
    static func fields(_ request: OnceRequest) -> [String] {
        [
            "server \(request.server ?? "-")", "geoclue \(request.geoClue != nil)", "timeout \(request.timeout)",
            "max-age \(request.maxAge.map { "\($0)" } ?? "-")", "gpsd-clock \(request.gpsdClock)",
            "epoch-wait \(request.epochWait)", "min-mode \(request.minMode)",
            "accuracy \(request.accuracy.map { "\($0)" } ?? "-")", "format \(request.format)",
            "simulate \(request.simulate ?? "-")", "verbose \(request.verbose)",
        ]
    }

    @Test(arguments: [
        [],
        ["127.0.0.1:2947"],
        ["localhost:2948:/dev/ttyUSB0", "--timeout", "3"],
        ["--timeout=2.5", "-v"],
        ["--verbose", "gps.local", "--timeout", "1"],
        ["--max-age", "10", "--gpsd-clock", "synchronized", "--timeout", "10", "127.0.0.1:40000"],
        ["--min-mode", "3d", "--accuracy", "5", "--epoch-wait", "0"],
        ["--min-mode=3D", "--gpsd-clock=unsynchronized", "--max-age=0"],
        ["--format", "json"],
        ["--format", "%latitude,%longitude %% %time\\n"],
        ["--format=geojson", "--accuracy=0.5"],
        ["--simulate", "run.gpx", "--timeout", "30"],
        ["[::1]:2947", "--epoch-wait", "1.5"],
        ["--timeout=1e1", "--max-age", "-0"],
        ["--format=lat=%latitude", "--simulate=a=b.gpx"],
        ["", "--accuracy", "12"],
    ])
    func readsWhatArgumentParserReads(_ arguments: [String]) throws {
        let quick = try #require(OnceRequest(quickParsing: arguments), "\(arguments) is read without ArgumentParser")
        let parsed = try Once.parse(arguments)
        #expect(Self.fields(quick) == Self.fields(parsed.request), "\(arguments)")
    }

    /// Help, GeoClue, values that do not parse or fail validation, options given twice, unknown
    /// options and forms: all left to ArgumentParser.
    @Test(arguments: [
        ["--help"], ["-h"], ["help"], ["--geoclue"], ["--geoclue", "--desktop-id", "x"], ["--bus", "unix:path=/x"],
        ["--timeout", "0"], ["--timeout", "abc"], ["--timeout"], ["--timeout=", "x"], ["--timeout", "nan"],
        ["--timeout", "1", "--timeout", "2"], ["-v", "--verbose"], ["-vv"], ["--verbose=yes"],
        ["a:1", "b:2"], ["--format", "%lat"], ["--simulate", "run.gpx", "localhost"], ["--min-mode", "-v"],
        ["--min-mode", "none"], ["--gpsd-clock", "maybe"], ["--max-age", "-1"], ["--accuracy", "0"],
        ["--", "localhost"], ["--unknown"], ["-x"], ["-"], ["localhost:notaport"], ["--experimental-dump-help"],
        ["--generate-completion-script", "bash"], ["--simulate"], ["--timeout", "-1"], ["--accuracy", "inf"],
        ["--epoch-wait", "-0.5"], ["--gpsd-clock", "--verbose"], ["--simulate="], ["--format="], ["--timeout="],
    ])
    func leavesTheRestToArgumentParser(_ arguments: [String]) {
        #expect(OnceRequest(quickParsing: arguments) == nil, "\(arguments) is left to ArgumentParser")
    }
}
