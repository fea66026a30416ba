#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GZipFiles

/// The errors of a reader that ``XMLChunkedRead`` feeds (`GPXError`, `TCXError`): the two cases it
/// makes itself. Each format's error enum has them as cases.
package protocol XMLReadFailure: Error {
    /// The file cannot be read.
    static func unreadable(file: String, reason: String) -> Self
    /// The document is not well-formed, or not the format's (`line` 0: at no line).
    static func malformed(file: String, line: Int, column: Int, reason: String) -> Self
}

extension XMLReadFailure {
    /// The gzip reader's error as the format's: a file that cannot be read, or damaged compressed
    /// data (bad data, not an unreadable file: exit 65, not 66), at no line.
    static func reading(_ error: GZipReadError, file: String) -> Self {
        switch error {
        case let .unreadable(reason): .unreadable(file: file, reason: reason)
        case .truncated, .damaged: .malformed(file: file, line: 0, column: 0, reason: error.reason)
        }
    }
}

/// A format's SAX receiver as ``XMLChunkedRead`` drives it: its parser, the first error it met
/// (a refusal, a limit, a strict invalid value, its handler's), and whether it saw its root.
package protocol XMLDocumentCore: AnyObject {
    associatedtype Failure: XMLReadFailure
    /// The file, as errors name it.
    var file: String { get }
    /// The push parser feeding this receiver.
    var parser: XMLPushParser! { get }
    /// The first error met; reading stops at it.
    var error: Failure? { get }
    /// Whether the document's root element was seen.
    var sawRoot: Bool { get }
    /// Whether the input was gzip-compressed, for the summary.
    var compressed: Bool { get set }
}

/// The chunked read the XML readers share: a file through zlib (plain or gzip, whatever its name)
/// or bytes in memory, fed to libxml2's push parser 256 KB at a time, in constant memory.
package enum XMLChunkedRead {
    /// The size of the chunks read and fed to the parser.
    package static let chunkSize = 256 * 1024

    /// Feeds the file at `path` to `core`'s parser, calling `progress` after each chunk with the
    /// bytes of the file read (compressed bytes for a `.gz`) and its size when known; then checks
    /// that the document had its root (`root`, as named in the error).
    package static func read<Core: XMLDocumentCore>(
        fileAt path: String, into core: Core, root: String,
        progress: ((_ bytesRead: Int64, _ totalBytes: Int64?) -> Void)?, explained: (String) -> String
    ) throws(Core.Failure) {
        let input: GZipReader
        do throws(GZipReadError) {
            input = try GZipReader(path: path)
        } catch {
            throw .reading(error, file: path)
        }
        var status = stat()
        let total: Int64? = stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var first = true
        while true {
            let count: Int
            do throws(GZipReadError) {
                count = try input.read(into: buffer)
            } catch {
                throw .reading(error, file: path)
            }
            if first {
                if count == 0 { throw empty(path) }
                core.compressed = input.isCompressed
                first = false
            }
            try feed(core, UnsafeRawBufferPointer(rebasing: buffer[..<count]), final: count == 0, explained: explained)
            progress?(min(input.fileOffset, total ?? .max), total)
            if count == 0 { break }
        }
        try finish(core, root: root)
    }

    /// Feeds `data` (XML, not gzip data) to `core`'s parser as ``read(fileAt:into:root:progress:explained:)``
    /// feeds a file.
    package static func read<Core: XMLDocumentCore>(
        data: Data, into core: Core, root: String, explained: (String) -> String
    ) throws(Core.Failure) {
        if data.isEmpty { throw empty(core.file) }
        var failure: Core.Failure?
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            do throws(Core.Failure) {
                repeat {
                    let end = min(offset + chunkSize, bytes.count)
                    try feed(core, UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), final: end == bytes.count, explained: explained)
                    offset = end
                } while offset < bytes.count
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        try finish(core, root: root)
    }

    private static func empty<Failure: XMLReadFailure>(_ file: String) -> Failure {
        .malformed(file: file, line: 1, column: 1, reason: "the document is empty")
    }

    private static func feed<Core: XMLDocumentCore>(
        _ core: Core, _ bytes: UnsafeRawBufferPointer, final: Bool, explained: (String) -> String
    ) throws(Core.Failure) {
        switch core.parser.parse(bytes, final: final) {
        case .ok:
            break
        case .stopped:
            throw core.error ?? .malformed(file: core.file, line: 0, column: 0, reason: "the parser stopped")
        case let .unavailable(reason):
            throw .unreadable(file: core.file, reason: reason)
        case .malformed:
            if let error = core.error { throw error }
            let last = core.parser.lastError
            throw .malformed(
                file: core.file, line: last?.line ?? core.parser.line, column: last?.column ?? core.parser.column,
                reason: explained(last?.message ?? "the XML is not well formed"))
        }
    }

    private static func finish<Core: XMLDocumentCore>(_ core: Core, root: String) throws(Core.Failure) {
        if let error = core.error { throw error }
        guard core.sawRoot else {
            throw .malformed(file: core.file, line: core.parser.line, column: core.parser.column, reason: "the document has no <\(root)> element")
        }
    }
}
