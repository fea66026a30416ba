import ArgumentParser
import CommandSupport
import Foundation
import LocationFacade
import Workout

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import GPX, FIT and TCX files (plain or .gz): one workout per track or activity.",
        discussion: """
            The format is told from the content: a FIT header, else the XML's root element. Prints a \
            summary per workout: points, distance, duration, elevation gain, heart rate (and laps, \
            pauses and the device's own totals for FIT and TCX), and every point skipped with its line (or \
            its byte offset in a FIT file). Importing a track or activity the store already holds \
            saves nothing and says so. A FIT file with a bad CRC, or cut off partway, is imported \
            with a warning (--strict refuses it); one that is not an activity (a FIT or TCX course, settings) \
            or has no records says what it holds and saves nothing. A file from which nothing is imported \
            (no workout new or already in the store) is bad input: it exits \(ExitStatus.dataError.rawValue), \
            as a file that is not GPX, FIT or TCX does. With --json, one JSON object per workout \
            per line. A file that cannot be read or is not well-formed stops with its file and its \
            line and column, or byte offset (exit \
            \(ExitStatus.dataError.rawValue); \(ExitStatus.noInput.rawValue) when it cannot be opened); \
            the workouts of its tracks before the error are kept, and the other files are still \
            imported. Shows progress on a terminal for files over 4 MB. Interrupted (Ctrl-C, SIGTERM), \
            it keeps the workouts of the tracks it finished, saves nothing of the one it was reading, \
            and exits \(ExitStatus.temporaryFailure.rawValue).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "GPX, FIT or TCX files (.gpx, .fit, .tcx, or any of them .gz).", completion: .file(extensions: ["gpx", "fit", "tcx", "gz"]))
    var files: [String]

    @Option(help: ArgumentHelp("The activity of every workout imported.", discussion: "Default: each track's <type>."))
    var activity: WorkoutActivityType?

    @Flag(help: "Stop at the first invalid value instead of skipping its point (in FIT and TCX files, at the first record or point the import would skip); refuse a FIT file with a bad CRC or cut off.")
    var strict = false

    @Flag(help: "One JSON object per workout per line.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one GPX, FIT or TCX file.") }
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
        var failures: [ExitStatus] = []
        for file in files {
            if Task.isCancelled {
                failures.append(.temporaryFailure)
                break
            }
            let progress = ProgressBar.forFile(file)
            let outcome: (failure: ExitStatus?, cancelled: Bool) = switch WorkoutFileFormat(contentsOf: file) {
            case .fit: await importFIT(file, into: store, progress: progress)
            case .tcx: await importTCX(file, into: store, progress: progress)
            case .gpx, nil: await importGPX(file, into: store, progress: progress)
            }
            if let failure = outcome.failure { failures.append(failure) }
            if outcome.cancelled { break }
        }
        return failures
    }

    private func importGPX(
        _ file: String, into store: WorkoutStore, progress bar: ProgressBar?
    ) async -> (failure: ExitStatus?, cancelled: Bool) {
        var progress: (@Sendable (Int64, Int64?) -> Void)?
        if let bar { progress = { bar.update($0, $1) } }
        let importer = GPXImporter(store: store, options: GPXImportOptions(activity: activity, strict: strict))
        do throws(GPXImportError) {
            let report = try await importer.importFile(at: file, progress: progress)
            bar?.finish()
            print(report)
            return (report.workouts.isEmpty ? nothingImported(file) : nil, false)
        } catch {
            bar?.finish()
            for imported in error.imported { print(WorkoutSummary(imported, file: file)) }
            return report(error, status: Self.exitStatus(for: error), cancelled: { if case .cancelled = error { true } else { false } }())
        }
    }

    private func importFIT(
        _ file: String, into store: WorkoutStore, progress bar: ProgressBar?
    ) async -> (failure: ExitStatus?, cancelled: Bool) {
        var progress: (@Sendable (Int64, Int64?) -> Void)?
        if let bar { progress = { bar.update($0, $1) } }
        let importer = FITImporter(store: store, options: FITImportOptions(activity: activity, strict: strict))
        do throws(FITImportError) {
            let report = try await importer.importFile(at: file, progress: progress)
            bar?.finish()
            for imported in report.workouts { print(WorkoutSummary(imported, file: file)) }
            for issue in report.read.issues { Output.error("workout import: warning: \(issue)") }
            for activity in report.notImported {
                Output.error("\(file): \(activity)")
                for skip in activity.skipped { Output.error("    " + skip.located(in: file)) }
            }
            if report.notImportedCount > report.notImported.count {
                Output.error("\(file): and \(report.notImportedCount - report.notImported.count) more FIT files of its chain not imported")
            }
            return (report.workouts.isEmpty ? nothingImported(file) : nil, false)
        } catch {
            bar?.finish()
            for imported in error.imported { print(WorkoutSummary(imported, file: file)) }
            return report(error, status: Self.exitStatus(for: error), cancelled: { if case .cancelled = error { true } else { false } }())
        }
    }

    private func importTCX(
        _ file: String, into store: WorkoutStore, progress bar: ProgressBar?
    ) async -> (failure: ExitStatus?, cancelled: Bool) {
        var progress: (@Sendable (Int64, Int64?) -> Void)?
        if let bar { progress = { bar.update($0, $1) } }
        let importer = TCXImporter(store: store, options: TCXImportOptions(activity: activity, strict: strict))
        do throws(TCXImportError) {
            let report = try await importer.importFile(at: file, progress: progress)
            bar?.finish()
            for imported in report.workouts { print(WorkoutSummary(tcx: imported, file: file)) }
            for skip in report.read.skipped { Output.error(skip.located(in: file)) }
            if report.read.skippedCount > report.read.skipped.count {
                Output.error("\(file): and \(report.read.skippedCount - report.read.skipped.count) more points and values skipped")
            }
            for entry in report.notImported { Output.error("\(file): \(entry)") }
            if report.workouts.isEmpty && report.notImported.isEmpty {
                Output.error("\(file): no activity to import.")
            }
            return (report.workouts.isEmpty ? nothingImported(file) : nil, false)
        } catch {
            bar?.finish()
            for imported in error.imported { print(WorkoutSummary(tcx: imported, file: file)) }
            return report(error, status: Self.exitStatus(for: error), cancelled: { if case .cancelled = error { true } else { false } }())
        }
    }

    static func exitStatus(for error: TCXImportError) -> ExitStatus {
        switch error {
        case .read(.unreadable, _): .noInput
        case .read: .dataError
        case .save(_, _, .databaseFailed, _), .save(_, _, .cannotOpen, _): .ioError
        case .save: .dataError
        case .cancelled: .temporaryFailure
        }
    }

    /// A file that gave no workout (new or already stored): bad input, as a file that is not GPX,
    /// FIT or TCX is. What it held was said above it (a course, settings, waypoints...).
    private func nothingImported(_ file: String) -> ExitStatus {
        Output.error("workout import: \(file): nothing imported from it.")
        return .dataError
    }

    /// Says why a file failed, on standard error; an interruption also says the files after it were not read.
    private func report(_ error: any Error, status: ExitStatus, cancelled: Bool) -> (failure: ExitStatus?, cancelled: Bool) {
        if cancelled {
            Output.error("workout import: interrupted: \(error); the files after it were not read.")
        } else {
            Output.error("workout import: \(error)")
        }
        return (status, cancelled)
    }

    private func print(_ report: GPXImportReport) {
        for imported in report.workouts { print(WorkoutSummary(imported, file: report.file)) }
        for track in report.tracksNotImported {
            Output.error("\(report.file): \(track)")
            for skip in track.skipped { Output.error("    " + skip.located(in: report.file)) }
        }
        for skip in report.skippedOutsideTracks { Output.error(skip.located(in: report.file) + " (outside any track)") }
        if report.workouts.isEmpty && report.tracksNotImported.isEmpty {
            Output.error("\(report.file): no track to import (\(report.read.routes) routes, \(report.read.waypoints) waypoints).")
        }
    }

    private func print(_ summary: WorkoutSummary) {
        if json {
            Output.line(summary.json)
        } else {
            summary.text.forEach(Output.line)
        }
    }

    static func exitStatus(for error: FITImportError) -> ExitStatus {
        switch error {
        case .read(.unreadable, _): .noInput
        case .read, .invalidRecord: .dataError
        case .save(_, _, .databaseFailed, _), .save(_, _, .cannotOpen, _): .ioError
        case .save: .dataError
        case .cancelled: .temporaryFailure
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
