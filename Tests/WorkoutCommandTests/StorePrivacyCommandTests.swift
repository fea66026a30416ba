import Foundation
import Testing
import TestSupport

/// The store the `workout` command creates is its owner's alone; one others can read is named.
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
        #expect(!process.lines(.error).contains { $0.contains("Other users can read") })
    }

    /// `workout list` on a store others can read lists it, says so once on standard error with the
    /// command that fixes it, and leaves the permissions alone.
    @Test func aStoreOthersCanReadIsListedAndNamedOnceOnStandardError() async throws {
        #expect(chmod(folder, 0o700) == 0, "whatever the test's umask made it: only the files are open")
        #expect(try await run(["import", "--store", store, fixture("two-runs.gpx")]).status == 0)
        let files = [store, store + "-wal", store + "-shm"]
        for file in files { #expect(chmod(file, 0o644) == 0) }

        let list = try await run(["list", "--store", store])
        #expect(list.status == 0)
        #expect(list.output.count == 2, "both workouts listed: \(list.output)")
        let warnings = list.error.filter { $0.contains("Other users can read or change the workout store") }
        #expect(warnings.count == 1, "\(list.error)")
        #expect(warnings.first?.contains("store.fix=chmod 600 \(store) \(store)-wal \(store)-shm") == true, "\(list.error)")
        #expect(warnings.first?.contains("warning") == true)
        for file in files { #expect(FileModes.of(file) == 0o644, "\(file) unchanged") }
    }
}
