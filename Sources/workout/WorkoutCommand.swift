import ArgumentParser

/// The `workout` command: import GPX files into a workout store, list, show, export and delete.
/// Subcommands arrive with issue 5's work.
@main
struct WorkoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout",
        abstract: "Import, list, show, export and delete workouts in a local store."
    )
}
