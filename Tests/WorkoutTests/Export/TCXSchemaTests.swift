import Foundation
import TestSupport
import Testing
@testable import Workout

/// Every TCX file our export writes validates against Garmin's Training Center Database v2 schema
/// (`xmllint --schema`; the schema comes from Debian's pytrainer package, through
/// scripts/install-tcx-schema, and is never committed: it is Garmin's).
///
/// The ActivityExtension v2 schema (the `TPX` and `LX` elements) is shipped by no Debian or PyPI
/// package we found, and cannot be downloaded here; TCX v2 takes extensions `processContents="lax"`,
/// so the validation passes over them. Their element order, which that schema fixes, is checked
/// here by hand instead (`extensionsKeepTheirOrder`): `TPX` is Speed, RunCadence, Watts; `LX` is
/// AvgSpeed, MaxBikeCadence, AvgRunCadence, MaxRunCadence, Steps, AvgWatts, MaxWatts.
@Suite(.timeLimit(.minutes(2))) struct TCXSchemaTests {
    /// Our exports of a FIT run (laps, a pause, a point without a position, heart rate, cadence,
    /// speed, power), of the export fixture (two segments, a name to escape, samples between
    /// points) and of a trainer ride (no position at all: track points with their time, distance
    /// and sensor values).
    static func exports(in folder: TemporaryFolder) async throws -> [String] {
        let store = try WorkoutStore.inMemory()
        let run = try #require(try await FITImporter(store: store).importFile(at: Repository.fixture("fit/garmin-sdk-run.fit").path).workouts.first)
        let fixture = ExportFixture()
        try await fixture.save(in: store)
        let indoor = try await IndoorRideFixture.save(in: store)
        var files: [String] = []
        for (name, id) in [("run.tcx", run.workoutID), ("fixture.tcx", fixture.workout.id), ("indoor.tcx", indoor.id)] {
            let file = folder.file(name)
            try await store.export(id, format: .tcx, toFileAt: file)
            files.append(file)
        }
        return files
    }

    @Test(.enabled(if: TCXSchema.isAvailable, Comment(rawValue: TCXSchema.missing)))
    func ourTCXValidatesAgainstTheTCXv2Schema() async throws {
        let folder = try TemporaryFolder()
        for file in try await Self.exports(in: folder) {
            let (valid, messages) = try await TCXSchema.validate(file)
            #expect(valid, "\((file as NSString).lastPathComponent): \(messages)")
        }
        // The validation can fail: a lap without the TotalTimeSeconds the schema requires.
        let broken = folder.file("broken.tcx")
        let text = try String(contentsOfFile: folder.file("run.tcx"), encoding: .utf8)
        let withoutTime = text.replacingOccurrences(of: #"<TotalTimeSeconds>[^<]*</TotalTimeSeconds>"#, with: "", options: .regularExpression)
        try withoutTime.write(toFile: broken, atomically: true, encoding: .utf8)
        #expect(try await TCXSchema.validate(broken).valid == false)
    }

    @Test func extensionsKeepTheirOrder() async throws {
        let folder = try TemporaryFolder()
        let order = [
            "TPX": ["Speed", "RunCadence", "Watts"],
            "LX": ["AvgSpeed", "MaxBikeCadence", "AvgRunCadence", "MaxRunCadence", "Steps", "AvgWatts", "MaxWatts"],
        ]
        var seen = 0
        for file in try await Self.exports(in: folder) {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for (element, children) in order {
                for body in Self.bodies(of: element, in: text) {
                    let names = Self.childNames(body)
                    let positions = names.compactMap { children.firstIndex(of: $0) }
                    #expect(positions.count == names.count && positions == positions.sorted(), "\(element): \(names)")
                    seen += 1
                }
            }
        }
        #expect(seen > 100, "the exports have extensions to check")
    }

    /// The text inside each `<...:NAME ...>...</...:NAME>` of `text`, whatever the prefix.
    static func bodies(of name: String, in text: String) -> [Substring] {
        var bodies: [Substring] = []
        var rest = text[...]
        while let open = rest.range(of: ":\(name)"), let end = rest[open.upperBound...].range(of: ">"),
              let close = rest[end.upperBound...].range(of: ":\(name)>") {
            bodies.append(rest[end.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return bodies
    }

    /// The local names of the elements that open in `body`.
    static func childNames(_ body: Substring) -> [String] {
        body.split(separator: "<").compactMap { tag -> String? in
            guard !tag.hasPrefix("/") else { return nil }
            let name = tag.prefix { $0 != ">" && $0 != " " && $0 != "/" }
            return name.split(separator: ":").last.map(String.init)
        }
    }
}
