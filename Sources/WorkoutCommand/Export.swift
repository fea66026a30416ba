import ArgumentParser
import CommandSupport
import Foundation
import Workout

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a workout as GPX 1.1 (heart rate and cadence in Garmin's TrackPointExtension v2), GeoJSON, a FIT activity file or TCX.",
        discussion: """
            To standard output, or with -o to a file written whole (a temporary file renamed into place). \
            GPX and GeoJSON: heart rate and cadence go on the points whose time they were taken at; \
            samples between points, and of other types, are counted on standard error. FIT: every \
            point and sample, in records to the second, timer events around the pauses, a lap per \
            lap, the session and the activity (a value FIT cannot hold, such as a heart rate over 254, \
            is counted on standard error). TCX: the same points and samples as trackpoints, a lap per \
            lap with its totals, power and speed in ActivityExtension v2 (temperatures, and values its \
            fields cannot hold, are counted on standard error). Interrupted (Ctrl-C, SIGTERM), \
            it exits \(ExitStatus.temporaryFailure.rawValue) and leaves no partial or temporary file.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The workout's id, or the start of it.")
    var id: String

    @Option(help: "The file format.")
    var format: WorkoutExportFormat = .gpx

    @Option(name: .shortAndLong, help: "The file to write (default: standard output).", completion: .file())
    var output: String?

    func run() async throws {
        let store = try storeOptions.open()
        let workout = try await storeOptions.resolve(id, in: store)
        let summary: ExportSummary
        let (format, output) = (format, output)
        do {
            // SIGINT and SIGTERM cancel the export: a file being written is removed, and the file
            // it was to replace is left as it was.
            summary = try await Interrupts.cancelling {
                if let output {
                    return try await store.export(workout.id, format: format, toFileAt: output)
                }
                return try await store.export(workout.id, format: format) { bytes in
                    Output.write(Array(bytes))
                }
            }
        } catch let error as WorkoutStoreError {
            if case .cancelled = error {
                Output.error("workout export: interrupted; \(output.map { "\($0) was not written" } ?? "the output is incomplete").")
                throw ExitCode(.temporaryFailure)
            }
            if case .changedWhileExporting = error {
                Output.error("workout export: \(error)")
                throw ExitCode(.temporaryFailure)
            }
            Output.error("workout export: \(error)")
            if case .exportFailed = error { throw ExitCode(.cannotCreate) }
            throw ExitCode(.ioError)
        }
        if summary.samplesNotWritten > 0 {
            Output.error("workout export: \(summary.samplesNotWritten) samples have no place in \(format.rawValue) (between points, or of a type it cannot carry) and were left out.")
        }
        if let output { Output.error("Wrote \(summary.points) points to \(output).") }
    }
}
