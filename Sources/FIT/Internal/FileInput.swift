import CZlib
#if canImport(Glibc)
import Glibc
#endif

// The one file that sees zlib. The FIT reader takes its bytes from a `FITByteSource`: a file read
// through gzread (plain or gzip-compressed alike), or bytes in memory.

/// Where the reader's bytes come from.
package protocol FITByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FITError) -> Int
    /// Whether the bytes are inflated from gzip data.
    var isCompressed: Bool { get }
    /// How many bytes of the underlying file have been consumed (compressed bytes for a `.gz`).
    var consumed: Int64 { get }
}

/// A file read through zlib (`gzopen(3)`, `gzread(3)`), which inflates gzip data and passes any
/// other file through unchanged: whether it was compressed is known from its magic bytes, not its
/// name.
package final class FITFileInput: FITByteSource {
    private let file: gzFile
    private let path: String

    /// Opens `path`. Throws ``FITError/unreadable(file:reason:)`` when it cannot be opened. The
    /// corresponding C function is `gzopen(3)`.
    package init(path: String) throws(FITError) {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw .unreadable(file: path, reason: "it is a folder")
        }
        guard let file = czlib_gzopen(path) else {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        self.file = file
        self.path = path
    }

    deinit {
        czlib_gzclose(file)
    }

    /// Reads up to `buffer.count` bytes; 0 at the end. Throws ``FITError/unreadable(file:reason:)``
    /// on a read error and ``FITError/malformed(file:offset:reason:)`` on damaged or cut-off gzip
    /// data (offset 0: the compressed stream has no offset in the FIT data). The corresponding C
    /// function is `gzread(3)`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(FITError) -> Int {
        guard buffer.count > 0 else { return 0 }
        let count = czlib_gzread(file, buffer.baseAddress, UInt32(min(buffer.count, Int(Int32.max))))
        let code = czlib_gzerrnum(file)
        if count == 0, code == Z_BUF_ERROR {
            throw .malformed(file: path, offset: 0, reason: "the compressed file is truncated: it ends before its gzip stream does")
        }
        if count < 0 {
            let message = czlib_gzerror(file).map { String(cString: $0) }.map { text in
                text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
            }
            if code == Z_DATA_ERROR {
                throw .malformed(file: path, offset: 0, reason: "the compressed data is damaged (\(message ?? "zlib data error"))")
            }
            throw .unreadable(file: path, reason: message ?? String(cString: strerror(errno)))
        }
        return Int(count)
    }

    /// Whether the file is gzip data (meaningful after the first read). The C function is `gzdirect(3)`.
    package var isCompressed: Bool { czlib_gzdirect(file) == 0 }

    /// How many bytes of the file zlib has consumed (`gzoffset(3)`).
    package var consumed: Int64 { Int64(czlib_gzoffset(file)) }

    /// The file's first `count` bytes, decompressed when it is gzip data (fewer when it is
    /// shorter): for telling a file's format from its content.
    package static func head(of path: String, count: Int) throws(FITError) -> [UInt8] {
        let input = try FITFileInput(path: path)
        var bytes: [UInt8]
        var filled = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { buffer.deallocate() }
        while filled < count {
            let read = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if read == 0 { break }
            filled += read
        }
        bytes = Array(buffer.prefix(filled))
        return bytes
    }
}

/// Bytes in memory (tests, fuzzing), handed out as a file's would be.
final class FITMemoryInput: FITByteSource {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FITError) -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }

    var isCompressed: Bool { false }
    var consumed: Int64 { Int64(position) }
}
