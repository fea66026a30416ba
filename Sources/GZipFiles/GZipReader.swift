import CZlib
#if canImport(Glibc)
import Glibc
#endif

// The one file that sees zlib. The FIT, GPX and TCX readers read files through `GZipReader` and
// turn its `GZipReadError` into their own errors, which name the file and the place in it.

/// Why a ``GZipReader`` could not go on.
package enum GZipReadError: Error, Sendable, Hashable {
    /// The file could not be opened or read; `reason` is the system's (or zlib's) message.
    case unreadable(reason: String)
    /// The gzip stream stops before its end (the file was cut off), after `delivered` bytes of
    /// its data were handed out.
    case truncated(delivered: Int64)
    /// The compressed data is damaged (`reason` is zlib's message), after `delivered` bytes of
    /// its data were handed out.
    case damaged(delivered: Int64, reason: String)

    /// What went wrong, as a clause the formats' errors quote: "the compressed file is truncated: ...".
    package var reason: String {
        switch self {
        case let .unreadable(reason): reason
        case .truncated: "the compressed file is truncated: it ends before its gzip stream does"
        case let .damaged(_, reason): "the compressed data is damaged (\(reason))"
        }
    }
}

/// A file read through zlib (`gzopen(3)`, `gzread(3)`), which inflates gzip data and passes any
/// other file through unchanged: whether it was compressed is known from its magic bytes, never
/// its name. The readers of the FIT, GPX and TCX modules take their bytes from it, in chunks.
///
/// ```swift
/// let input = try GZipReader(path: "ride.fit.gz")
/// var buffer = [UInt8](repeating: 0, count: 64 * 1024)
/// let count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }   // 0 at the end
/// ```
package final class GZipReader {
    private let file: gzFile
    private let path: String
    /// Bytes handed out so far (inflated bytes for gzip data).
    package private(set) var delivered: Int64 = 0

    /// Opens `path`. Throws ``GZipReadError/unreadable(reason:)`` when it cannot be opened. The
    /// corresponding C function is `gzopen(3)`.
    package init(path: String) throws(GZipReadError) {
        guard let file = czlib_gzopen(path) else {
            throw .unreadable(reason: String(cString: strerror(errno)))
        }
        self.file = file
        self.path = path
    }

    deinit {
        czlib_gzclose(file)
    }

    /// Reads up to `buffer.count` bytes; 0 at the end. Throws ``GZipReadError/unreadable(reason:)``
    /// on a read error, ``GZipReadError/truncated(delivered:)`` when gzip data stops before its
    /// stream's end, and ``GZipReadError/damaged(delivered:reason:)`` on corrupt gzip data; the
    /// bytes before either were handed out by earlier calls. The corresponding C function is `gzread(3)`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(GZipReadError) -> Int {
        guard buffer.count > 0 else { return 0 }
        let count = czlib_gzread(file, buffer.baseAddress, UInt32(min(buffer.count, Int(Int32.max))))
        let code = czlib_gzerrnum(file)
        if count <= 0, code == Z_BUF_ERROR {
            throw .truncated(delivered: delivered)
        }
        if count < 0 {
            // zlib's message starts with the path; the formats' errors name the file already.
            let message = czlib_gzerror(file).map { String(cString: $0) }.map { text in
                text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
            }
            if code == Z_DATA_ERROR {
                throw .damaged(delivered: delivered, reason: message ?? "zlib data error")
            }
            throw .unreadable(reason: message ?? String(cString: strerror(errno)))
        }
        delivered += Int64(count)
        return Int(count)
    }

    /// Whether the file is gzip data (meaningful after the first read). The C function is `gzdirect(3)`.
    package var isCompressed: Bool { czlib_gzdirect(file) == 0 }

    /// How many bytes of the file zlib has consumed (compressed bytes for gzip data): for
    /// progress against the file's size. The C function is `gzoffset(3)`.
    package var fileOffset: Int64 { Int64(czlib_gzoffset(file)) }

    /// The file's first `count` bytes, inflated when it is gzip data (fewer when it is shorter,
    /// or its gzip data stops or is damaged before): for telling a file's format from its content.
    package static func head(of path: String, count: Int) throws(GZipReadError) -> [UInt8] {
        let input = try GZipReader(path: path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { buffer.deallocate() }
        var filled = 0
        while filled < count {
            let read: Int
            do throws(GZipReadError) {
                read = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            } catch {
                guard case .unreadable = error else { break }
                throw error
            }
            if read == 0 { break }
            filled += read
        }
        return Array(buffer.prefix(filled))
    }
}
