import Foundation
import Simulators

/// File permissions as a user checks them with `ls -l` or `stat -c %a`, and children run under a
/// chosen umask.
public enum FileModes {
    /// The permission bits of `path` (0644, 01777...), or `nil` when there is nothing there.
    public static func of(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_mode & 0o7777)
    }

    /// Starts `executable` with `arguments` under the umask `mask` ("022"), given by a shell that
    /// sets it and then runs the executable in its place. The umask is the process's, so a test
    /// that changed its own would change it under every test running beside it: a child has its own.
    package static func start(
        umask mask: String, _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> ChildProcess {
        try ChildProcess("/bin/sh", ["-c", #"umask "$0" && exec "$@""#, mask, executable] + arguments, environment: environment)
    }
}
