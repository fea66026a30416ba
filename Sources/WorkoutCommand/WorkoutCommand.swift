import ArgumentParser

/// The `workout` command: import GPX files into a workout store, list, show, export and delete.
@main
struct WorkoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout",
        abstract: "Import, list, show, export and delete workouts in a local store.",
        discussion: """
            The store is a SQLite file: --store PATH, else $XDG_DATA_HOME/swift-gps-facade/workouts.sqlite \
            (~/.local/share/... when XDG_DATA_HOME is unset). A workout is named by its id or any \
            unambiguous start of it (as `workout list` prints). Exit codes: 0 success, 64 usage, \
            65 bad input data (the message names file, line and column), 66 no such file or workout, \
            73 an output file cannot be written, 74 the store failed, 75 interrupted.
            """,
        subcommands: [Import.self, List.self, Show.self, Export.self, Delete.self]
    )
}
