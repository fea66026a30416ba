import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written under a temporary name in its folder and renamed over its real name only once
/// complete, so that a reader never sees half of it and a failure leaves the old file in place.
struct AtomicFile {
    /// A failed system call, named with its `errno` text.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let path: String
    let temporaryPath: String
    let workoutID: UUID
    private var descriptor: Int32

    /// Creates the temporary file `.NAME.UUID.tmp` beside `path`. The corresponding C function is `open(2)`.
    init(creatingTemporaryFor path: String, workoutID: UUID) throws(WorkoutStoreError) {
        self.path = path
        self.workoutID = workoutID
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        temporaryPath = (folder.isEmpty ? "" : folder + "/") + "." + name + "." + UUID().uuidString + ".tmp"
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .exportFailed(workoutID: workoutID, path: path, reason: "cannot create \(temporaryPath): \(Self.errnoText())")
        }
    }

    /// Writes all of `bytes`, retrying after a signal or a short write. The corresponding C function is `write(2)`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            #else
            let written = Darwin.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot write \(temporaryPath): \(Self.errnoText())")
            }
            offset += written
        }
    }

    /// Flushes the file to disk, closes it and renames it over ``path``. On failure the temporary
    /// file is removed. The corresponding C functions are `fsync(2)` and `rename(2)`.
    mutating func commit() throws(WorkoutStoreError) {
        if fsync(descriptor) != 0 {
            let reason = "cannot flush \(temporaryPath) to disk: \(Self.errnoText())"
            abandon()
            throw .exportFailed(workoutID: workoutID, path: path, reason: reason)
        }
        close(descriptor)
        descriptor = -1
        if rename(temporaryPath, path) != 0 {
            let reason = "cannot rename \(temporaryPath) to \(path): \(Self.errnoText())"
            abandon()
            throw .exportFailed(workoutID: workoutID, path: path, reason: reason)
        }
    }

    /// Closes and removes the temporary file; ``path`` is left as it was.
    mutating func abandon() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
