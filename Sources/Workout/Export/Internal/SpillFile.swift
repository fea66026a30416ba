import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An anonymous temporary file that bytes are written to and then read back once, in order: for
/// an export whose first bytes depend on all the others (a FIT header holds the size of the data
/// after it), so it encodes once in flat memory instead of twice. The file is unlinked as soon as
/// it is created: nothing is left behind, whatever happens to the process.
struct SpillFile: ~Copyable {
    private var descriptor: Int32
    /// Bytes written.
    private(set) var count = 0

    /// Creates it in the temporary folder (`TMPDIR`). The corresponding C functions are
    /// `mkstemp(3)` and `unlink(2)`.
    init() throws(SpillFile.Failure) {
        var template = Array((NSTemporaryDirectory() + "/swift-gps-facade-export.XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw Failure(description: "cannot create a temporary file: \(Self.errnoText())") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    deinit {
        close(descriptor)
    }

    /// A failed system call, named with its `errno` text.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Appends `bytes`. The corresponding C function is `write(2)`.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws(SpillFile.Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = Self.systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot write a temporary file: \(Self.errnoText())")
            }
            offset += written
        }
        count += bytes.count
    }

    /// Reads everything written, from the start, handing it to `body` in chunks of up to
    /// `chunkSize` bytes; a failure to read is the export's of `workoutID` to `path`. The
    /// corresponding C functions are `lseek(2)` and `read(2)`.
    func readAll(
        workoutID: UUID, path: String?, chunkSize: Int = 256 * 1024,
        _ body: (UnsafeRawBufferPointer) throws(WorkoutStoreError) -> Void
    ) throws(WorkoutStoreError) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw .exportFailed(workoutID: workoutID, path: path, reason: "cannot read back a temporary file: \(Self.errnoText())")
        }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var remaining = count
        while remaining > 0 {
            let got = buffer.withUnsafeMutableBytes { Self.systemRead(descriptor, $0.baseAddress!, min(chunkSize, remaining)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw .exportFailed(workoutID: workoutID, path: path, reason: "cannot read back a temporary file: \(got < 0 ? Self.errnoText() : "it is shorter than written")")
            }
            var failure: WorkoutStoreError?
            buffer.withUnsafeBytes { bytes in
                do throws(WorkoutStoreError) { try body(UnsafeRawBufferPointer(rebasing: bytes[..<got])) } catch { failure = error }
            }
            if let failure { throw failure }
            remaining -= got
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }

    private static func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, bytes, count)
        #else
        Darwin.read(descriptor, bytes, count)
        #endif
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
