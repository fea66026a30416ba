import ArgumentParser
import CommandSupport
import Foundation
import Workout

/// `--store PATH`, shared by every subcommand.
struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The store file.", discussion: "Default: $XDG_DATA_HOME/swift-gps-facade/workouts.sqlite."),
            completion: .file(extensions: ["sqlite"]))
    var store: String?

    /// Opens the store, creating it (and the default folder) if needed; exits 74 when it cannot.
    func open() throws -> WorkoutStore {
        do {
            if let store { return try WorkoutStore(path: store) }
            return try WorkoutStore()
        } catch {
            Output.error("workout: \(error)")
            throw ExitCode(.ioError)
        }
    }

    /// The workout `reference` names: its id, or the start of one (at least 4 characters) that
    /// only one stored workout's id begins with. Exits 66 when there is none, 64 when ambiguous.
    func resolve(_ reference: String, in store: WorkoutStore) async throws -> WorkoutRecord {
        if let id = UUID(uuidString: reference) {
            if let workout = try await storeCall({ try await store.workout(id: id) }) { return workout }
        } else if reference.count >= 4 {
            let prefix = reference.uppercased()
            let matches = try await storeCall { try await store.workouts() }.filter { $0.id.uuidString.hasPrefix(prefix) }
            if matches.count == 1 { return matches[0] }
            if matches.count > 1 {
                Output.error("workout: \(reference) is the start of \(matches.count) workout ids; give more of it: "
                    + matches.prefix(5).map(\.id.uuidString).joined(separator: ", "))
                throw ExitCode(.usage)
            }
        } else {
            Output.error("workout: '\(reference)' is not a workout id; give the id or at least its first 4 characters.")
            throw ExitCode(.usage)
        }
        Output.error("workout: no workout \(reference) in \(store.path ?? "the store").")
        throw ExitCode(.noInput)
    }
}

/// Runs a store call; a ``WorkoutStoreError`` becomes a one-line message and exit 74.
func storeCall<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as WorkoutStoreError {
        Output.error("workout: \(error)")
        throw ExitCode(.ioError)
    }
}
