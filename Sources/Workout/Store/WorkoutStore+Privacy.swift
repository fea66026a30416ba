import Foundation
import GPSCore
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeping the store private: it holds where and when a person ran, and their heart rate.
///
/// What the store creates, only its owner can read or change, whatever the umask: its folders
/// 0700 (as the XDG base directory spec asks of the folders it creates), the database file 0600,
/// and so its `-wal` and `-shm` files, which SQLite creates with the database file's mode. What
/// exists already keeps its permissions (its owner may have chosen them); when others can read or
/// change it, a warning says so once per process and store, with the `chmod` that fixes it.
extension WorkoutStore {
    /// Creates `folder` and every missing folder above it, each 0700 whatever the umask
    /// (``PrivateFiles/createFolder(_:)``, GPSCore's, which the publisher's outbox shares); `path`
    /// is the store's, for the error.
    static func createPrivateFolder(_ folder: String, forStoreAt path: String) throws(WorkoutStoreError) {
        do {
            try PrivateFiles.createFolder(folder)
        } catch {
            throw .cannotOpen(path: path, reason: error.reason)
        }
    }

    /// Creates the empty file of a new store, 0600 whatever the umask (``PrivateFiles/createFile(_:)``).
    static func createPrivateFile(_ path: String) throws(WorkoutStoreError) {
        do {
            try PrivateFiles.createFile(path)
        } catch {
            throw .cannotOpen(path: path, reason: error.reason.replacing("cannot create it", with: "cannot create the store")
                .replacing("the new file", with: "the new store"))
        }
    }

    /// Logs one warning, the first time in this process that the store at `path` is opened while
    /// other users can read or change it (see ``StoreExposure``). Permissions are not changed.
    func warnIfNotPrivate(_ path: String) {
        guard let exposure = StoreExposure(ofStoreAt: path) else { return }
        let key = realpath(path, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? path
        guard Self.warnedPaths.withLock({ $0.insert(key).inserted }) else { return }
        logger.warning(
            "Other users can read or change the workout store, which holds where and when you ran and your heart rate; its permissions are left as they are: to make it private, run store.fix",
            metadata: [
                "store.path": "\(path)",
                "store.permissions": "\(exposure.permissions)",
                "store.fix": "\(exposure.fix)",
            ])
    }

    /// The real paths of the stores this process has warned about, so that each is named once
    /// however many times it is opened.
    private static let warnedPaths = Locked<Set<String>>([])
}

/// What lets other users at a store: its files (the database, `-wal`, `-shm`) readable or writable
/// by group or others, or its folder writable by them (they could replace the files, or put in a
/// `-wal` of their own) and not sticky as `/tmp` is. A folder others can only read shows them
/// file names, not workouts, and is not counted. Group counts as others: the store cannot tell a
/// private group (one user's own) from a shared one.
struct StoreExposure {
    /// The files and the folder that others can get at, with their modes.
    var files: [(path: String, mode: mode_t)] = []
    var folder: (path: String, mode: mode_t)?

    /// The exposure of the store at `path`, or `nil` when it is private.
    init?(ofStoreAt path: String) {
        var status = stat()
        for file in [path, path + "-wal", path + "-shm"] where stat(file, &status) == 0 && status.st_mode & 0o077 != 0 {
            files.append((file, status.st_mode))
        }
        let folder = (path as NSString).deletingLastPathComponent
        let folderPath = folder.isEmpty ? "." : folder
        if stat(folderPath, &status) == 0, status.st_mode & 0o022 != 0, status.st_mode & mode_t(S_ISVTX) == 0 {
            self.folder = (folderPath, status.st_mode)
        }
        if files.isEmpty && self.folder == nil { return nil }
    }

    /// `workouts.sqlite 0644, workouts.sqlite-wal 0644, folder /data 0777`.
    var permissions: String {
        let named = files.map { (($0.path as NSString).lastPathComponent, $0.mode) } + (folder.map { [("folder " + $0.path, $0.mode)] } ?? [])
        return named.map { name, mode in
            let octal = String(mode & 0o7777, radix: 8)
            return name + " " + String(repeating: "0", count: max(0, 4 - octal.count)) + octal
        }.joined(separator: ", ")
    }

    /// The command that makes the store private: `chmod 600` on its files, `chmod go-w` on its
    /// folder (taking from it only what matters, as it may hold other things).
    var fix: String {
        var commands: [String] = []
        if !files.isEmpty { commands.append((["chmod", "600"] + files.map { Self.shellQuoted($0.path) }).joined(separator: " ")) }
        if let folder { commands.append("chmod go-w " + Self.shellQuoted(folder.path)) }
        return commands.joined(separator: " && ")
    }

    /// `path` as a shell word: as it is when it is made of safe characters, else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/._-+,:@%=".unicodeScalars.contains($0)) }
        return safe && !path.isEmpty ? path : "'" + path.replacing("'", with: #"'\''"#) + "'"
    }
}
