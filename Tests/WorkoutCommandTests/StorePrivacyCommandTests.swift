import Foundation
import Testing
import TestSupport

/// The store the `workout` command creates is its owner's alone.
extension WorkoutCommandTests {
    /// With no `--store`, the command creates $XDG_DATA_HOME/swift-gps-facade and the folders
    /// missing above it 0700, and the store 0600, under a umask that takes nothing away (000) as
    /// under one that takes from the owner too (277).
    @Test(arguments: ["000", "277"])
    func theDefaultStoreAndItsFoldersAreCreatedPrivateUnderAnyUmask(umask: String) async throws {
        let data = folder + "/home/.local/share"
        let process = try FileModes.start(
            umask: umask, Repository.builtExecutable("workout").path, ["import", fixture("two-runs.gpx")],
            environment: ["XDG_DATA_HOME": data])
        #expect(await process.waitUntilExit() == 0, "\(process.lines(.error))")
        for created in ["/home", "/home/.local", "/home/.local/share", "/home/.local/share/swift-gps-facade"] {
            #expect(FileModes.of(folder + created) == 0o700, "\(created)")
        }
        let store = data + "/swift-gps-facade/workouts.sqlite"
        for file in [store, store + "-wal", store + "-shm"] {
            #expect(FileModes.of(file) == 0o600, "\(file)")
        }
    }
}
