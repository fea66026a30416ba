#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner can read or change, whatever the umask: the workout store and the
/// publisher's outbox hold where a person has been. Folders are made 0700 (as the XDG base
/// directory spec asks of the folders a program creates), files 0600; what exists keeps its mode.
package enum PrivateFiles {
    /// Creates `folder` and every missing folder above it, each 0700 whatever the umask; folders
    /// that exist keep their permissions. Throws the reason, a sentence, when one cannot be made.
    /// The corresponding C functions are `mkdir(2)` and `chmod(2)`.
    package static func createFolder(_ folder: String) throws(Failure) {
        var missing: [String] = []
        var current = folder
        var status = stat()
        while !current.isEmpty, current != "/", stat(current, &status) != 0, errno == ENOENT {
            missing.append(current)
            current = parent(of: current)
        }
        for created in missing.reversed() {
            if mkdir(created, 0o700) != 0 {
                // Another process made it meanwhile (the same file opened twice at once, say).
                if errno == EEXIST { continue }
                throw Failure(reason: "cannot create the folder \(created): \(errnoText())")
            }
            // The umask takes bits from mkdir's mode (a umask of 0200 leaves 0500): set them all.
            if chmod(created, 0o700) != 0 {
                throw Failure(reason: "cannot make the new folder \(created) private (chmod 700): \(errnoText())")
            }
        }
    }

    /// Creates the empty file `path`, 0600 whatever the umask, for SQLite to open: SQLite creates
    /// the `-wal` and `-shm` files with the database file's mode. A file another process created
    /// meanwhile is left to it. The corresponding C functions are `open(2)` and `fchmod(2)`.
    package static func createFile(_ path: String) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return }
            throw Failure(reason: "cannot create it: \(errnoText())")
        }
        defer { close(descriptor) }
        // The umask takes bits from open's mode (a umask of 0277 leaves 0400), not from fchmod's.
        if fchmod(descriptor, 0o600) != 0 {
            let reason = "cannot make the new file private (chmod 600): \(errnoText())"
            unlink(path)
            throw Failure(reason: reason)
        }
    }

    /// Why a private file or folder could not be made: a sentence naming the path and the C error.
    package struct Failure: Error {
        package var reason: String

        package init(reason: String) {
            self.reason = reason
        }
    }

    /// `path` without its last component (`""` for a bare name).
    package static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
