import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// The values of `locate once --gpsd-clock`, as its help lists them.
enum GPSDClockHelp {
    static let values = ["auto - trust it when gpsd is on this machine", "synchronized - trust it", "unsynchronized - never trust it"]
}

/// What `locate` says about its options and how it ends: the values help lists, the usage error
/// for a value that is not one of them, and the sysexits code of each kind of failure.
@Suite("locate options and exit codes", .timeLimit(.minutes(1)))
struct ArgumentsAndExitCodesTests {
    /// `lines` as one line with single spaces, as help text reads once unwrapped.
    static func unwrapped(_ lines: [String]) -> String {
        lines.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Help ends with the README's table of exit codes, every row of it, in order: the one table
    /// `workout --help` prints too.
    @Test func helpListsTheReadmesExitCodes() async throws {
        let result = try await Locate.run(["--help"])
        #expect(result.status == 0)
        let rows = try ReadmeExitCodes.rows()
        #expect(rows.count == 9, "\(rows)")
        let help = result.output.map { $0.trimmingCharacters(in: .whitespaces) }
        let table = try #require(help.firstIndex(of: "Exit codes (sysexits, the same for locate and workout):"))
        #expect(Self.unwrapped(Array(help[(table + 1)...])).hasPrefix(rows.joined(separator: " ")), "\(help[table...])")
    }

    @Test func onceHelpListsTheModesAndFormats() async throws {
        let result = try await Locate.run(["once", "--help"])
        #expect(result.status == 0)
        let help = Self.unwrapped(result.output)
        #expect(help.contains("--min-mode <min-mode> The least fix to accept. (values: 2d, 3d; default: 2d)"), "\(help)")
        #expect(help.contains("(default: text)"))
        for name in ["text", "json", "geojson", "gpx"] {
            #expect(result.output.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + " ") }, "help lists --format \(name)")
        }
        #expect(help.contains("%latitude %longitude"))
    }

    @Test func onceHelpSaysWhatMaxAgeTheEpochWaitAndTheClockDo() async throws {
        let result = try await Locate.run(["once", "--help"])
        let help = Self.unwrapped(result.output)
        #expect(help.contains("a fix gpsd already holds is printed at once if it is no older than that: its age is gpsd's clock when it answers less the fix's GPS time"), "\(help)")
        #expect(help.contains("a fix too old, or whose age cannot be told, is not printed, and a new one is awaited"))
        #expect(help.contains("waits up to --epoch-wait seconds for a later report of the same time"))
        #expect(help.contains("(0: take the first report). (default: 1.0)"))
        #expect(help.contains("--gpsd-clock <gpsd-clock> Whether gpsd's clock can tell how old the fix it holds is, for --max-age. (default: auto)"))
        for value in GPSDClockHelp.values { #expect(help.contains(value), "help lists --gpsd-clock \(value)") }
    }

    @Test(arguments: [["--epoch-wait", "-1"], ["--epoch-wait", "nan"], ["--gpsd-clock", "maybe"]])
    func aBadEpochWaitOrClockIsAUsageError(arguments: [String]) async throws {
        let result = try await Locate.run(["once"] + arguments + ["--simulate", Repository.fixture("gpsd/greenwich-walk.json").path])
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
    }

    @Test(arguments: ["4d", "none", "3"])
    func aModeThatIsNotOneOfTheValuesIsAUsageErrorNamingThem(mode: String) async throws {
        let result = try await Locate.run(["once", "--min-mode", mode, "--simulate", Repository.fixture("gpsd/greenwich-walk.json").path])
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(result.error.first == "Error: The value '\(mode)' is invalid for '--min-mode <min-mode>'. Please provide one of '2d' and '3d'.")
        #expect(result.error.contains("  See 'locate once --help' for more information."))
    }

    @Test func aTemplateWithAnUnknownFieldIsAUsageErrorNamingIt() async throws {
        let result = try await Locate.run(["once", "--format", "%latitude %lat", "--simulate", Repository.fixture("gpsd/greenwich-walk.json").path])
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        let message = try #require(result.error.first)
        #expect(message.hasPrefix("Error: The value '%latitude %lat' is invalid for '--format <format>': '%lat' is not a field; use text, json, geojson, gpx, or a template of %latitude %longitude"), "\(message)")
    }

    /// The first three fixes are 2D: `3D`, in gpsd's spelling, asks for the fourth as `3d` does.
    @Test(arguments: ["3D", "3d"])
    func upperCaseModesStillWork(mode: String) async throws {
        var fixes = SyntheticTrack.generate(count: 6, seed: 3)
        for index in 0..<3 { fixes[index].mode = .fix2D }
        let server = FakeGPSDServer(script: .fixes(fixes), pace: .asFastAsClientsRead)
        defer { server.shutdown() }
        let address = "127.0.0.1:\(try server.start())"
        let result = try await Locate.run(["once", address, "--min-mode", mode, "--format", "%mode %latitude"])
        #expect(result.status == 0)
        #expect(result.output == ["3d \(fixes[3].latitude)"])
    }

    /// A negative number used to be taken for an option ("Missing value for '--port <port>'"):
    /// it is the option's value, refused with the option's own rule.
    @Test(arguments: [
        (["replay", "walk.gpx", "--port", "-1"], "Error: --port must be a TCP port, 0 to 65535, not -1."),
        (["replay", "walk.gpx", "--port", "70000"], "Error: --port must be a TCP port, 0 to 65535, not 70000."),
        (["replay", "walk.gpx", "--speed", "-2"], "Error: --speed must be a positive number, not -2.0."),
        (["once", "--timeout", "-1"], "Error: --timeout must be a positive number of seconds, not -1.0."),
        (["once", "--max-age", "-3"], "Error: --max-age must be zero or more seconds, not -3.0."),
        (["watch", "--count", "-5"], "Error: --count must be at least 1, not -5."),
    ])
    func aNegativeNumberIsTheOptionsValueRefusedByItsRule(arguments: [String], message: String) async throws {
        let result = try await Locate.run(arguments)
        #expect(result.status == 64)
        #expect(result.error.first == message, "\(result.error)")
    }

    /// `locate replay DIR` printed "NSCocoaErrorDomain error 256" and `/dev/zero` "You don't have
    /// permission": a folder is named as one (66), and /dev/zero is not a recording (65), at once.
    @Test func replayOfAFolderOrOfDevZeroSaysWhatItIs() async throws {
        let folder = FileManager.default.temporaryDirectory.path
        let directory = try await Locate.run(["replay", folder])
        #expect(directory.status == 66)
        #expect(directory.error == ["locate replay: \(folder) is a folder: give a recording file (a gpsd JSON log, an NMEA log or a GPX file)."])
        let zero = try await Locate.run(["replay", "/dev/zero"])
        #expect(zero.status == 65)
        #expect(zero.error == ["locate replay: /dev/zero: not a gpsd JSON log, an NMEA log or a GPX file"])
    }

    /// `locate once --simulate run.fit` called a FIT file "malformed GPX" and printed its path
    /// twice: a FIT or a TCX file is named as what it is, with what a replay plays, and a GPX file
    /// that is not well formed names its path once, with the line and column.
    @Test func aFileOfAnotherFormatIsNamedOnce() async throws {
        let fit = Repository.fixture("fit/garmin-sdk-run.fit").path
        // A FIT file's bytes may hold a newline then "<", which began a GPX file to the sniffing.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locate-fit-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tricky = folder.appendingPathComponent("run.fit").path
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fit)))
        bytes.insert(contentsOf: Array("\n<gpx>\n".utf8), at: 20)
        try Data(bytes).write(to: URL(fileURLWithPath: tricky))
        for file in [fit, tricky] {
            let result = try await Locate.run(["once", "--simulate", file])
            #expect(result.status == 65)
            #expect(result.error == [
                "locate once: \(file): this is a FIT file (an activity from a device or an app; workout import reads it), which is not replayed: "
                    + "a replay plays GPX files, gpsd JSON logs and NMEA logs",
            ])
        }
        let tcx = Repository.fixture("tcx/exported-run.tcx").path
        let result = try await Locate.run(["once", "--simulate", tcx])
        #expect(result.status == 65)
        #expect(result.error.first?.hasPrefix("locate once: \(tcx): this is a TCX file") == true, "\(result.error)")

        let malformed = Repository.fixture("gpx/malformed.gpx").path
        let broken = try await Locate.run(["once", "--simulate", malformed])
        #expect(broken.status == 65)
        let message = try #require(broken.error.first)
        #expect(message.components(separatedBy: malformed).count == 2, "the path once: \(message)")
        #expect(message.range(of: #"^locate once: .*malformed\.gpx:\d+:\d+: malformed GPX: "#, options: .regularExpression) != nil, "\(message)")
    }

    @Test func upperCase2DIsTheDefaultMode() async throws {
        let result = try await Locate.run(["once", "--min-mode", "2D", "--simulate", Repository.fixture("gpsd/greenwich-walk.json").path])
        #expect(result.status == 0)
        #expect(result.output == ["51.477928 -0.001545"])
    }

    @Test func recordingToAFileThatCannotBeCreatedExits73() async throws {
        let server = FakeGPSDServer(script: .fixes(SyntheticTrack.generate(count: 3, seed: 1)), pace: .asFastAsClientsRead)
        defer { server.shutdown() }
        let address = "127.0.0.1:\(try server.start())"
        let result = try await Locate.run(["record", address, "-o", "/nonexistent-\(UUID())/log.json", "--duration", "5"])
        #expect(result.status == 73)
        #expect(result.error.first?.hasPrefix("locate record: ") == true)
    }

    @Test func recordingAndWatchingWithoutGPSDExit69() async throws {
        let address = "127.0.0.1:\(try GPSFake.freePort())"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("unrecorded-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let record = try await Locate.run(["record", address, "-o", file.path, "--duration", "5"])
        #expect(record.status == 69)
        let watch = try await Locate.run(["watch", address])
        #expect(watch.status == 69)
    }

    @Test func replayExitsWithTheCodeOfWhatWentWrong() async throws {
        let missing = try await Locate.run(["replay", "/nonexistent-\(UUID()).nmea"])
        #expect(missing.status == 66)
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json")
        try "{\"class\":\"TPV\"}\n{oops\n".write(to: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: bad) }
        let unreadable = try await Locate.run(["replay", bad.path])
        #expect(unreadable.status == 65)
        // A port some other server holds: the fake gpsd cannot listen there.
        let holder = FakeGPSDServer(script: .fixes([]), pace: .asFastAsClientsRead)
        defer { holder.shutdown() }
        let port = try holder.start()
        let taken = try await Locate.run(["replay", Repository.fixture("gpsd/greenwich-walk.json").path, "--port", "\(port)", "--exit-when-done"])
        #expect(taken.status == 69)
        #expect(taken.error.first?.contains("Pass --port.") == true)
    }
}
