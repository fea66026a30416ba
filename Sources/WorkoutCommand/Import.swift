import ArgumentParser
import CommandSupport
import Foundation
import LocationFacade
import Workout

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import GPX files (plain or .gz): one workout per track.",
        discussion: """
            Prints a summary per workout: points, distance, duration, elevation gain, heart rate, and \
            every point skipped with its line. Importing a track the store already holds saves nothing \
            and says so. With --json, one JSON object per workout per line. A file that cannot be read \
            or is not well-formed GPX stops with its file, line and column (exit \
            \(ExitStatus.dataError.rawValue); \(ExitStatus.noInput.rawValue) when it cannot be opened); \
            the workouts of its tracks before the error are kept, and the other files are still \
            imported. Shows progress on a terminal for files over 4 MB. Interrupted (Ctrl-C, SIGTERM), \
            it keeps the workouts of the tracks it finished, saves nothing of the one it was reading, \
            and exits \(ExitStatus.temporaryFailure.rawValue).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "GPX files (.gpx or .gpx.gz).", completion: .file(extensions: ["gpx", "gz"]))
    var files: [String]

    @Option(help: ArgumentHelp("The activity of every workout imported.", discussion: "Default: each track's <type>."))
    var activity: WorkoutActivityType?

    @Flag(help: "Stop at the first invalid value instead of skipping its point.")
    var strict = false

    @Flag(help: "One JSON object per workout per line.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one GPX file.") }
    }

    func run() async throws {
        let store = try storeOptions.open()
        // SIGINT and SIGTERM cancel the import: the track being read is not saved, the ones
        // finished are kept, and the command says so in one line and exits 75, as its help says.
        let failures = try await Interrupts.cancelling { [self] in try await importFiles(into: store) }
        // The highest code of the files that failed: a missing file (66) outranks a bad one (65).
        if let worst = failures.max(by: { $0.rawValue < $1.rawValue }) { throw ExitCode(worst) }
    }

    /// Imports every file, stopping at the first cancelled; returns the status of each failure.
    private func importFiles(into store: WorkoutStore) async throws -> [ExitStatus] {
        let importer = GPXImporter(store: store, options: GPXImportOptions(activity: activity, strict: strict))
        var failures: [ExitStatus] = []
        for file in files {
            if Task.isCancelled {
                failures.append(.temporaryFailure)
                break
            }
            let progress = ProgressBar.forFile(file)
            var update: (@Sendable (Int64, Int64?) -> Void)?
            if let progress { update = { progress.update($0, $1) } }
            do throws(GPXImportError) {
                let report = try await importer.importFile(at: file, progress: update)
                progress?.finish()
                print(report)
            } catch {
                progress?.finish()
                for imported in error.imported { print(imported, file: file) }
                failures.append(Self.exitStatus(for: error))
                if case .cancelled = error {
                    Output.error("workout import: interrupted: \(error); the files after it were not read.")
                    break
                }
                Output.error("workout import: \(error)")
            }
        }
        return failures
    }

    private func print(_ report: GPXImportReport) {
        for imported in report.workouts { print(imported, file: report.file) }
        for track in report.tracksNotImported {
            Output.error("\(report.file): \(track)")
            for skip in track.skipped { Output.error("    " + skip.located(in: report.file)) }
        }
        for skip in report.skippedOutsideTracks { Output.error(skip.located(in: report.file) + " (outside any track)") }
        if report.workouts.isEmpty && report.tracksNotImported.isEmpty {
            Output.error("\(report.file): no track to import (\(report.read.routes) routes, \(report.read.waypoints) waypoints).")
        }
    }

    private func print(_ imported: ImportedWorkout, file: String) {
        if json {
            Output.line(WorkoutSummary(imported, file: file).json)
        } else {
            WorkoutSummary(imported, file: file).text.forEach(Output.line)
        }
    }

    static func exitStatus(for error: GPXImportError) -> ExitStatus {
        switch error {
        case .read(.unreadable, _): .noInput
        case .read: .dataError
        case .save(_, _, _, .databaseFailed, _), .save(_, _, _, .cannotOpen, _): .ioError
        case .save: .dataError
        case .cancelled: .temporaryFailure
        }
    }
}
