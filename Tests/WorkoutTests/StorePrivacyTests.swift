import Foundation
import Testing
import TestSupport
@testable import Workout
import WorkoutSimulators

/// The store holds where and when a person ran and their heart rate: what it creates only its
/// owner can read, whatever the umask.
@Suite("A private store", .timeLimit(.minutes(1)))
struct StorePrivacyTests {
    /// A new store used to be 0644 with its -wal and -shm (the umask's), readable by every user.
    /// The umask is set in a child (it is the whole process's), which saves a run in a new store;
    /// 277 takes bits from the owner too.
    @Test(arguments: ["022", "000", "277"])
    func aNewStoreAndItsWriteAheadLogAreTheOwnersAloneWhateverTheUmask(umask: String) async throws {
        let folder = try TemporaryFolder()
        #expect(chmod(folder.path, 0o700) == 0, "whatever this process's umask made it")
        let path = folder.file("workouts.sqlite")
        let writer = try FileModes.start(umask: umask, Repository.builtExecutable("workout-crash-writer").path, [path, "1", "20"])
        #expect(await writer.waitUntilExit() == 0, "\(writer.lines(.error))")
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = try #require(FileModes.of(file), "\(file) is there after a write")
            #expect(mode == 0o600, "\((file as NSString).lastPathComponent) is \(String(mode, radix: 8))")
        }
        #expect(FileModes.of(folder.path) == 0o700, "a folder the store did not create is left as it was")
    }

    /// The default folder and the missing ones above it (such as ~/.local/share) are made 0700,
    /// as the XDG base directory spec says; a folder that is there keeps its mode.
    @Test func theFoldersTheStoreCreatesAreTheOwnersAlone() throws {
        let folder = try TemporaryFolder()
        #expect(chmod(folder.path, 0o755) == 0)
        let data = folder.file("home/.local/share/swift-gps-facade")
        try WorkoutStore.createPrivateFolder(data, forStoreAt: data + "/workouts.sqlite")
        for created in ["home", "home/.local", "home/.local/share", "home/.local/share/swift-gps-facade"] {
            #expect(FileModes.of(folder.file(created)) == 0o700, "\(created)")
        }
        #expect(FileModes.of(folder.path) == 0o755)
        try WorkoutStore.createPrivateFolder(data, forStoreAt: data + "/workouts.sqlite")  // there: nothing to do
        #expect(FileModes.of(data) == 0o700)
    }
}
