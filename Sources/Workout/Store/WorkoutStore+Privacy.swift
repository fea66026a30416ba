import Foundation

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
/// exists already keeps its permissions (its owner may have chosen them).
extension WorkoutStore {
    /// Creates `folder` and every missing folder above it, each 0700 whatever the umask; folders
    /// that exist keep their permissions. `path` is the store's, for the error.
    /// The corresponding C functions are `mkdir(2)` and `chmod(2)`.
    static func createPrivateFolder(_ folder: String, forStoreAt path: String) throws(WorkoutStoreError) {
        var missing: [String] = []
        var current = folder
        var status = stat()
        while !current.isEmpty, current != "/", stat(current, &status) != 0, errno == ENOENT {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for created in missing.reversed() {
            if mkdir(created, 0o700) != 0 {
                // Another process made it meanwhile (the same store opened twice at once, say).
                if errno == EEXIST { continue }
                throw .cannotOpen(path: path, reason: "cannot create the folder \(created): \(errnoText())")
            }
            // The umask takes bits from mkdir's mode (a umask of 0200 leaves 0500): set them all.
            if chmod(created, 0o700) != 0 {
                throw .cannotOpen(path: path, reason: "cannot make the new folder \(created) private (chmod 700): \(errnoText())")
            }
        }
    }

    /// Creates the empty file of a new store, 0600 whatever the umask, for SQLite to open: SQLite
    /// creates the `-wal` and `-shm` files with the database file's mode. A file another process
    /// created meanwhile is left to it. The corresponding C functions are `open(2)` and `fchmod(2)`.
    static func createPrivateFile(_ path: String) throws(WorkoutStoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return }
            throw .cannotOpen(path: path, reason: "cannot create the store: \(errnoText())")
        }
        defer { close(descriptor) }
        // The umask takes bits from open's mode (a umask of 0277 leaves 0400), not from fchmod's.
        if fchmod(descriptor, 0o600) != 0 {
            let reason = "cannot make the new store private (chmod 600): \(errnoText())"
            unlink(path)
            throw .cannotOpen(path: path, reason: reason)
        }
    }
}

private func errnoText() -> String {
    String(cString: strerror(errno))
}
