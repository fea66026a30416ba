import ArgumentParser
import CommandSupport
import Workout

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a workout with its samples and route.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The workout's id, or the start of it.")
    var id: String

    func run() async throws {
        let store = try storeOptions.open()
        let workout = try await storeOptions.resolve(id, in: store)
        _ = try await storeCall { try await store.deleteWorkout(id: workout.id) }
        Output.line("Deleted \(workout.id.uuidString) (\(workout.activityType), \(Format.dateTime(workout.start))).")
    }
}
