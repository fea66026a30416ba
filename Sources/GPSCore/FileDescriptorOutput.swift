#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened for writing with open(2), written with write(2): for the fakes and the commands
/// that write files, without Foundation's `FileHandle`.
package final class FileDescriptorOutput {
    /// Why a file could not be opened or written: the path and the system's reason.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var path: String
        package var reason: String
        package var description: String { "cannot write \(path): \(reason)" }
    }

    package let path: String
    private var descriptor: Int32

    /// Creates (or empties) the file at `path`, with mode 0644 before the umask.
    /// The corresponding C function is `open(2)`.
    package init(creatingAt path: String) throws(Failure) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
    }

    /// Writes all of `bytes`. The corresponding C function is `write(2)`.
    package func write(_ bytes: some Collection<UInt8>) throws(Failure) {
        let failure: Int32? = bytes.withContiguousStorageIfAvailable { buffer in
            writeAll(UnsafeRawBufferPointer(buffer))
        } ?? Array(bytes).withUnsafeBytes { writeAll($0) }
        if let failure { throw Failure(path: path, reason: String(cString: strerror(failure))) }
    }

    private func writeAll(_ buffer: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    /// Closes the file (also done when the value goes away). The corresponding C function is `close(2)`.
    package func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    deinit {
        close()
    }
}
