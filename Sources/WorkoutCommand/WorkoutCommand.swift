import ArgumentParser
import CommandSupport
import Logging

/// The `workout` command: import GPX files into a workout store, list, show, export and delete.
@main
struct WorkoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout",
        abstract: "Import, record, list, show, export, upload and delete workouts in a local store.",
        discussion: """
            The store is a SQLite file: --store PATH, else $XDG_DATA_HOME/swift-gps-facade/workouts.sqlite \
            (~/.local/share/... when XDG_DATA_HOME is unset). A workout is named by its id or any \
            unambiguous start of it (as `workout list` prints).
            """ + "\n\n" + ExitStatus.table,
        subcommands: [Import.self, List.self, Show.self, Export.self, Delete.self, Record.self, Recover.self, Sensors.self, Upload.self, Uploads.self, Login.self]
    )

    /// Sends the library's log to standard error, as `locate` does, so that standard output
    /// carries nothing but what the command prints. Notices and worse: what the store has to say
    /// (a store others can read, one opened read-only) shows, as it did with swift-log's default.
    static func main() async {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .notice
            return handler
        }
        await main(nil)
    }
}
