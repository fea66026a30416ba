#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Writes to standard output and standard error with write(2), so each line leaves the process at
/// once (a watcher in a pipe sees every fix as it arrives) without stdio's locking per character.
package enum Output {
    /// Writes `bytes` to standard output, all of them.
    package static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeAll(1, $0) }
    }

    /// Writes `line` and a newline to standard output.
    package static func line(_ line: String) {
        write(Array((line + "\n").utf8))
    }

    /// Writes `text` to standard error as it is (no newline): a progress bar redrawing itself.
    package static func errorText(_ text: String) {
        Array(text.utf8).withUnsafeBytes { writeAll(2, $0) }
    }

    /// Writes `line` and a newline to standard error.
    package static func error(_ line: String) {
        Array((line + "\n").utf8).withUnsafeBytes { writeAll(2, $0) }
    }

    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }  // nothing to write
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
