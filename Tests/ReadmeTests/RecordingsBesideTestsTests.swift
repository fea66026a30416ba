import Foundation
import Testing
import TestSupport

extension Stage.Alone {
    /// The README's manifest snippet for recordings kept beside the tests does what it says: a
    /// package whose test target is the snippet, with a recording in its `Recordings` folder, builds
    /// without SwiftPM's warning of unhandled files, as printed (`exclude:`) and with the other way it
    /// names (`resources:`); and without either, SwiftPM warns (so the check can fail).
    ///
    /// The package is built for real (`swift build --build-tests`, where SwiftPM says what it does not
    /// handle) in a temporary folder, with a stand-in for this package that has the products the
    /// snippet names, so that nothing is fetched.
    ///
    /// Alone in `scripts/test`: its three package builds load both cores for tens of seconds, and
    /// the real-time tests of the parallel stage (a recording that must keep a ride's pace) were
    /// held off the cores beside them.
    @Suite("README: recordings beside the tests", .enabled(if: SwiftCommand.path != nil, "needs swift on the PATH"),
           .timeLimit(.minutes(5)))
    struct RecordingsBesideTestsTests {
        static let marker = "// Package.swift of your package: recordings kept beside the tests that replay them"

        @Test func theSnippetsTargetBuildsWithoutUnhandledFiles() async throws {
            let readme = try String(contentsOf: ReadmeTests.root.appendingPathComponent("README.md"), encoding: .utf8)
            let block = try #require(ReadmeTests.swiftBlocks(in: readme).first { $0.code.first == Self.marker }, "the README's snippet")
            let target = block.code.dropFirst().joined(separator: "\n")
            let excluded = try #require(target.firstMatch(of: /exclude: \["Recordings"\]/), "the snippet excludes the recordings")
            let resources = try #require(target.firstMatch(of: /or (resources: \[\.copy\("Recordings"\)\])/), "and names the other way")

            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recordings-beside-tests-\(UUID())")
            defer { try? FileManager.default.removeItem(at: folder) }
            try Self.makeStandIn(at: folder.appendingPathComponent("stand-in"))
            let app = folder.appendingPathComponent("app")
            let tests = app.appendingPathComponent("Tests/WhereAmITests")
            try FileManager.default.createDirectory(at: tests.appendingPathComponent("Recordings"), withIntermediateDirectories: true)
            try "import Simulators\nimport Testing\n\n@Test func walk() {}\n".write(to: tests.appendingPathComponent("WalkTests.swift"), atomically: true, encoding: .utf8)
            try Data(#"<gpx version="1.1"/>"#.utf8).write(to: tests.appendingPathComponent("Recordings/walk.gpx"))

            for (variant, text) in [
                ("as printed", target),
                ("with resources:", target.replacingCharacters(in: excluded.range, with: String(resources.output.1))),
                ("with neither", target.replacingCharacters(in: excluded.range, with: "")),
            ] {
                try Self.manifest(target: text).write(to: app.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
                let (status, output) = try await Self.run(["build", "--build-tests", "--package-path", app.path])
                #expect(status == 0, "\(variant): swift build failed:\n\(output.suffix(2_000))")
                let warns = output.contains("unhandled")
                #expect(warns == (variant == "with neither"), "\(variant): SwiftPM \(warns ? "warns" : "does not warn"):\n\(output.suffix(2_000))")
            }
        }

        /// A package named as this one, with the library products the README's snippets name, empty.
        static func makeStandIn(at folder: URL) throws {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources/Simulators"), withIntermediateDirectories: true)
            try """
                // swift-tools-version: 6.1
                import PackageDescription
                let package = Package(
                    name: "swift-gps-facade",
                    products: [.library(name: "Simulators", targets: ["Simulators"])],
                    targets: [.target(name: "Simulators")]
                )
                """.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
            try "public enum StandIn {}\n".write(to: folder.appendingPathComponent("Sources/Simulators/StandIn.swift"), atomically: true, encoding: .utf8)
        }

        /// A manifest whose one target is `target`, depending on the stand-in beside it.
        static func manifest(target: String) -> String {
            """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(
                name: "app",
                dependencies: [.package(name: "swift-gps-facade", path: "../stand-in")],
                targets: [
            \(target)
                ]
            )
            """
        }

        /// Runs `swift` with `arguments`; its exit status and what it printed (its errors after its
        /// output).
        ///
        /// Awaited through `Command.run`, not `Process.waitUntilExit()`: three package builds take a
        /// minute or more on a loaded machine, and a blocking wait held one of the test run's two
        /// concurrency threads all that time (in a fresh-clone run, a publisher test on the other
        /// waited behind it past its time limit).
        static func run(_ arguments: [String]) async throws -> (Int32, String) {
            let result = try await Command.run(try #require(SwiftCommand.path), arguments)
            return (result.status, result.outputText + result.error.joined(separator: "\n"))
        }
    }
}

/// `swift`, where the tests run.
enum SwiftCommand {
    static let path: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
