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
            GPX, FIT and TCX leave out the points a recorded session counted for nothing (seen while \
            paused, or less accurate than its limit); the store keeps them, and GeoJSON writes them. \
            GPX: a segment per stretch between pauses; on each point the heart rate, cadence, power \
            and temperature taken nearest its time within its interval, and every other sample in \
            our own extension, which our import reads back; a workout without a route (indoors) is \
            refused (exit \(ExitStatus.dataError.rawValue)): export it as FIT or TCX. GeoJSON: heart rate and cadence on the \
            points whose time they were taken at; other samples are counted on standard error. FIT: \
            a record per fix, and one per second with a sample where there is no fix (indoors), \
            each with every sensor's value nearest its time; beat-to-beat intervals as hrv \
            messages, timer events around the pauses and auto-pauses, a lap per lap, the session \
            (indoor cycling, treadmill... for a workout indoors) and the activity (a second sample \
            of a type in one record's time, or a value FIT cannot hold, such as a heart rate over \
            254, is counted on standard error). TCX: the same records as track points \
            (without a position indoors), a new track after each pause, a lap per lap with its totals, power and \
            speed in ActivityExtension v2 (temperatures, beat-to-beat intervals, and values its \
            fields cannot hold, are counted on standard error). Our own GPX, FIT and TCX files \
            carry the workout's id and its events, so an import finds the workout they came from. \
            Interrupted (Ctrl-C, SIGTERM), \
            it exits \(ExitStatus.temporaryFailure.rawValue) and leaves no partial or temporary file.

            With --course it writes a course to follow instead, as a FIT course (--format fit: \
            records, a lap, timer events and a course point per cue and point of interest, as head \
            units load them) or a GPX route (--format gpx: an rte, its cues and points of interest \
            as typed waypoints): from a course file (workout export --course IN --format fit -o OUT: \
            GPX, FIT, TCX or GeoJSON, told by its content; its cues are kept) or from a recorded \
            workout's route, to ride it again (workout export ID --course --format fit); turns are \
            computed where the file has no cue. A missing file exits \(ExitStatus.noInput.rawValue), \
            one that is not a course (named with where it goes wrong) or a workout without a route \
            \(ExitStatus.dataError.rawValue).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The workout's id, or the start of it; with --course, a course file or a workout id.")
    var id: String

    @Flag(help: "Write a course to follow (--format fit or gpx) from a course file or a recorded workout.")
    var course = false

    @Option(help: "The file format.")
    var format: WorkoutExportFormat = .gpx

    @Option(name: .shortAndLong, help: "The file to write (default: standard output).", completion: .file())
    var output: String?

    func validate() throws {
        if course, courseFormat == nil {
            throw ValidationError("--course writes a FIT course or a GPX route: give --format fit or --format gpx, not \(format.rawValue).")
        }
    }

    func run() async throws {
        if course { return try await runCourse() }
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
            if case .formatCannotHold = error { throw ExitCode(.dataError) }
            throw ExitCode(.ioError)
        }
        if summary.samplesNotWritten > 0 {
            Output.error("workout export: \(summary.samplesNotWritten) samples have no place in \(format.rawValue) (a second one of a type in one point's or record's time, or a type or value it cannot carry) and were left out.")
        }
        if let output { Output.error("Wrote \(summary.points) points to \(output).") }
    }
}
