import Foundation
import Testing
import TestSupport
import Workout

/// What `workout` says about its options and how it ends: the values help lists, the usage error
/// for a value that is not one of them, and the sysexits code of each kind of failure.
extension WorkoutCommandTests {
    /// `lines` as one line with single spaces, as help text reads once unwrapped.
    static func unwrapped(_ lines: [String]) -> String {
        lines.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static let activities = "running, walking, hiking, cycling, swimming, rowing, paddling, cross_country_skiing, downhill_skiing, skating, other"

    /// Help ends with the README's table of exit codes, every row of it, in order: the one table
    /// `locate --help` prints too.
    @Test func helpListsTheReadmesExitCodes() async throws {
        let result = try await run(["--help"])
        #expect(result.status == 0)
        let rows = try ReadmeExitCodes.rows()
        #expect(rows.map { $0.prefix { $0 != " " } } == ["0", "64", "65", "66", "69", "73", "74", "75", "77"])
        #expect(rows.contains("75 timed out, or interrupted (Ctrl-C): trying again may work"))
        let help = result.output.map { $0.trimmingCharacters(in: .whitespaces) }
        let table = try #require(help.firstIndex(of: "Exit codes (sysexits, the same for locate and workout):"))
        #expect(Self.unwrapped(Array(help[(table + 1)...])).hasPrefix(rows.joined(separator: " ")), "\(help[table...])")
        for row in rows {
            #expect(help.contains { $0.hasPrefix(row.prefix(while: { $0 != " " }) + " ") }, "each code starts a line: \(row)")
        }
    }

    @Test func helpListsTheActivitiesAndExportFormats() async throws {
        for command in ["import", "list"] {
            let help = Self.unwrapped(try await run([command, "--help"]).output)
            #expect(help.contains("--activity <activity>"))
            #expect(help.contains("(values: \(Self.activities))"), "\(command): \(help)")
        }
        // Every activity the store knows, so that a new one cannot be left out of help.
        #expect(Self.activities == WorkoutActivityType.allCases.map(\.rawValue).joined(separator: ", "))
        let export = Self.unwrapped(try await run(["export", "--help"]).output)
        #expect(export.contains("--format <format> The file format. (values: gpx, geojson, fit, tcx; default: gpx)"), "\(export)")
    }

    @Test(arguments: ["import", "list"])
    func anActivityThatIsNotOneOfTheValuesIsAUsageErrorNamingThem(command: String) async throws {
        let result = try await run([command, "--store", store, "--activity", "flying"] + (command == "import" ? [fixture("two-runs.gpx")] : []))
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(result.error.first == "Error: The value 'flying' is invalid for '--activity <activity>'. Please provide one of the following:")
        #expect(result.error.dropFirst().prefix(WorkoutActivityType.allCases.count) == ArraySlice(WorkoutActivityType.allCases.map { "  - \($0.rawValue)" }))
        #expect(!FileManager.default.fileExists(atPath: store), "a usage error must not create the store")
    }

    @Test func anActivityGivenAppliesToEveryWorkoutAndFiltersTheList() async throws {
        let imported = try await run(["import", "--store", store, "--json", "--activity", "cross_country_skiing", fixture("two-runs.gpx")])
        #expect(imported.status == 0)
        #expect(try imported.output.map { try json($0)["activity"] as? String } == ["cross_country_skiing", "cross_country_skiing"])
        #expect(try await run(["list", "--store", store, "--activity", "cross_country_skiing"]).output.count == 2)
        let running = try await run(["list", "--store", store, "--activity", "running"])
        #expect(running.status == 0 && running.output.isEmpty)
    }

    @Test func anExportFormatThatIsNotOneOfTheValuesIsAUsageErrorNamingThem() async throws {
        let imported = try await run(["import", "--store", store, "--json", fixture("two-runs.gpx")])
        let id = try #require(try json(imported.output[0])["id"] as? String)
        let result = try await run(["export", "--store", store, id, "--format", "kml"])
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(result.error.first == "Error: The value 'kml' is invalid for '--format <format>'. Please provide one of 'gpx', 'geojson', 'fit' or 'tcx'.")
        // Upper case is still taken, as before the format was an enum.
        let upper = try await run(["export", "--store", store, id, "--format", "GEOJSON"])
        #expect(upper.status == 0)
        #expect(try json(upper.output.joined())["type"] as? String == "FeatureCollection")
    }

    /// A file that is missing (66) and one that is not GPX (65): the import goes on past both and
    /// exits with the higher code, naming each file.
    @Test func importExitsWithTheHighestCodeOfItsFiles() async throws {
        let missing = folder + "/nothing.gpx"
        let result = try await run(["import", "--store", store, fixture("doctype-xxe.gpx"), missing, fixture("two-runs.gpx")])
        #expect(result.status == 66)
        #expect(result.error.contains { $0.contains("doctype-xxe.gpx:") })
        #expect(result.error.contains { $0.contains("nothing.gpx") })
        #expect(result.output.filter { $0.contains("imported as") }.count == 2, "the good file is still imported")
        let bad = try await run(["import", "--store", store, fixture("doctype-xxe.gpx")])
        #expect(bad.status == 65)
    }

    @Test func aWorkoutThatIsNotInTheStoreExits66AndAnAmbiguousOne64() async throws {
        _ = try await run(["import", "--store", store, fixture("two-runs.gpx")])
        let absent = try await run(["show", "--store", store, UUID().uuidString])
        #expect(absent.status == 66)
        #expect(absent.error.first?.hasPrefix("workout: no workout ") == true)
        let tooShort = try await run(["delete", "--store", store, "abc"])
        #expect(tooShort.status == 64)
    }
}
