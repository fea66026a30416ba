import GZipFiles
#if canImport(Glibc)
import Glibc
#endif

// The FIT reader takes its bytes from a `FITByteSource`: a file read through the package's one
// zlib reader (`GZipFiles`: plain or gzip-compressed alike), or bytes in memory.

/// Where the reader's bytes come from.
package protocol FITByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FITError) -> Int
    /// Whether the bytes are inflated from gzip data.
    var isCompressed: Bool { get }
    /// How many bytes of the underlying file have been consumed (compressed bytes for a `.gz`).
    var consumed: Int64 { get }
    /// Why the bytes ended before the file did, once ``read(into:)`` has returned 0: gzip data
    /// cut off or damaged partway (the bytes inflated before it were delivered). `nil` when they
    /// ended with the file.
    var interruption: FITInputInterruption? { get }
}

/// Why a ``FITByteSource``'s bytes ended before its file did.
package struct FITInputInterruption: Sendable, Hashable {
    /// The gzip data is damaged (not merely cut off).
    package var isDamage: Bool
    /// zlib's account: "the compressed file is truncated: it ends before its gzip stream does".
    package var reason: String
}

/// A file read through ``GZipReader`` (zlib), which inflates gzip data and passes any other file
/// through unchanged: whether it was compressed is known from its magic bytes, not its name.
package final class FITFileInput: FITByteSource {
    private let input: GZipReader
    private let path: String

    /// Opens `path`. Throws ``FITError/unreadable(file:reason:)`` when it cannot be opened. The
    /// corresponding C function is `gzopen(3)`.
    package init(path: String) throws(FITError) {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw .unreadable(file: path, reason: "it is a folder")
        }
        do throws(GZipReadError) {
            input = try GZipReader(path: path)
        } catch {
            throw .unreadable(file: path, reason: error.reason)
        }
        self.path = path
    }

    /// Reads up to `buffer.count` bytes; 0 at the end, and from where gzip data is cut off or
    /// damaged (``interruption`` then says which, and the reader reports it at the offset it
    /// reached in the inflated FIT data). Throws ``FITError/unreadable(file:reason:)`` on a read
    /// error. The corresponding C function is `gzread(3)`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(FITError) -> Int {
        guard interruption == nil else { return 0 }
        do throws(GZipReadError) {
            return try input.read(into: buffer)
        } catch {
            switch error {
            case let .unreadable(reason): throw .unreadable(file: path, reason: reason)
            case .truncated: interruption = FITInputInterruption(isDamage: false, reason: error.reason)
            case .damaged: interruption = FITInputInterruption(isDamage: true, reason: error.reason)
            }
            return 0
        }
    }

    /// Why the bytes ended early: gzip data cut off or damaged.
    package private(set) var interruption: FITInputInterruption?

    /// Whether the file is gzip data (meaningful after the first read).
    package var isCompressed: Bool { input.isCompressed }

    /// How many bytes of the file zlib has consumed.
    package var consumed: Int64 { input.fileOffset }
}

/// Bytes in memory (tests, fuzzing), handed out as a file's would be.
package final class FITMemoryInput: FITByteSource {
    private let bytes: [UInt8]
    private var position = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(FITError) -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }

    package var isCompressed: Bool { false }
    package var consumed: Int64 { Int64(position) }
    package var interruption: FITInputInterruption? { nil }
}
