import Foundation
import InMemoryLogging
import Logging
import Testing
import TestSupport
@testable import Workout
import WorkoutSimulators

/// The store holds where and when a person ran and their heart rate: what it creates only its
/// owner can read, whatever the umask, and a store others can read is named once, left as it is.
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
        #expect(!writer.lines(.error).contains { $0.contains("Other users can read") }, "a new store is private: no warning")
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

    /// A store others can read (made before this version, or by hand) is opened and left as it
    /// is: its owner may want it so. It is named once, however many times it is opened, with
    /// the command that makes it private.
    @Test func anExistingStoreOthersCanReadIsOpenedLeftAsItIsAndNamedOnce() async throws {
        let folder = try TemporaryFolder()
        #expect(chmod(folder.path, 0o700) == 0, "whatever this process's umask made it: only the files are open")
        let path = folder.file("workouts.sqlite")
        let run = SyntheticRun(index: 1, points: 20)
        try await WorkoutStore(path: path).saveWorkout(run.workout, samples: run.samples, route: run.route)
        let files = [path, path + "-wal", path + "-shm"]
        for file in files { #expect(chmod(file, 0o644) == 0) }

        let log = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in log }
        #expect(try await WorkoutStore(path: path, logger: logger).workoutCount() == 1)
        #expect(try await WorkoutStore(path: path, logger: logger).workoutCount() == 1)

        for file in files { #expect(FileModes.of(file) == 0o644, "\(file) unchanged") }
        let warnings = log.entries.filter { $0.level == .warning }
        #expect(warnings.count == 1, "\(log.entries)")
        let warning = try #require(warnings.first)
        #expect(warning.message.description.hasPrefix("Other users can read or change the workout store"))
        #expect(warning.metadata["store.path"] == "\(path)")
        #expect(warning.metadata["store.fix"] == "chmod 600 \(path) \(path)-wal \(path)-shm")
        #expect(warning.metadata["store.permissions"] == "workouts.sqlite 0644, workouts.sqlite-wal 0644, workouts.sqlite-shm 0644")
    }

    /// A folder others can write lets them replace the store's files; one they can only read
    /// shows them names, and a sticky one (as /tmp) keeps its files' owners in charge.
    @Test(arguments: [(0o777, true), (0o775, true), (0o755, false), (0o750, false), (0o1777, false)])
    func aFolderOthersCanWriteToIsNamed(mode: Int, warned: Bool) async throws {
        let folder = try TemporaryFolder()
        let store = folder.file("store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        let path = store + "/workouts.sqlite"
        #expect(chmod(store, mode_t(mode)) == 0)

        let log = InMemoryLogHandler()
        _ = try WorkoutStore(path: path, logger: Logger(label: "test") { _ in log })
        let warnings = log.entries.filter { $0.level == .warning }
        #expect(warnings.count == (warned ? 1 : 0), "\(log.entries)")
        if warned {
            #expect(warnings.first?.metadata["store.fix"] == "chmod go-w \(store)")
            #expect(warnings.first?.metadata["store.permissions"] == "folder \(store) 0\(String(mode, radix: 8))")
        }
        #expect(FileModes.of(store) == mode, "left as it was")
    }

    /// The command given to fix a store names paths as a shell reads them.
    @Test func theFixQuotesPathsAShellWouldSplit() {
        #expect(StoreExposure.shellQuoted("/home/ann/runs.sqlite") == "/home/ann/runs.sqlite")
        #expect(StoreExposure.shellQuoted("/home/ann/My runs/it's.sqlite") == #"'/home/ann/My runs/it'\''s.sqlite'"#)
    }
}
