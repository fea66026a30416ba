#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GZipFiles

/// Reads GPX 1.0 and 1.1 files as a stream of ``GPXEvent``s, in constant memory whatever the
/// file's size: the file is read in 256 KB chunks (through zlib, so `.gpx.gz` files are read
/// directly) and fed to libxml2's SAX2 push parser.
///
/// ```swift
/// var totals = TrackStatistics()
/// let summary = try GPXReader().read(fileAt: "ride.gpx.gz") { event in
///     switch event {
///     case .segmentStart: totals.startSegment()
///     case .trackPoint(let point): totals.add(point)
///     default: break
///     }
/// }
/// print(summary.trackPoints, totals.distance, summary.skipped)
/// ```
///
/// What it accepts: the GPX namespaces 1.0 and 1.1 or none at all; UTF-8 (with or without BOM),
/// ISO-8859-1 and the other encodings libxml2 converts; the extensions listed on ``GPXPoint``,
/// found by namespace URI whatever their prefix. Elements in other namespaces are ignored, except
/// the children of a point's `<extensions>`, kept as XML text in ``GPXPoint/unknownExtensions``.
///
/// What it refuses: any DOCTYPE, entity declaration or entity reference other than the five
/// predefined ones and character references (``GPXError/refused(file:line:column:reason:)``), so
/// neither external entities (XXE) nor entity expansion (billion laughs) can happen; nesting and
/// text beyond ``GPXReadOptions`` (``GPXError/limitExceeded(file:line:column:reason:)``).
///
/// Invalid values: a point whose position, elevation or time is invalid (latitude 91, an
/// OpenTracks pause marker at latitude 100 or 200, `<ele>abc</ele>`, a time that is not RFC 3339)
/// is skipped; any other invalid value is dropped and its point kept. Both are listed in
/// ``GPXReadSummary/skipped``, or fail the read with ``GPXError/invalidValue(file:line:column:reason:)``
/// in ``GPXReadOptions/strict`` mode.
public struct GPXReader: Sendable {
    /// The size of the chunks read from the file and fed to the parser.
    static let chunkSize = 256 * 1024

    public var options: GPXReadOptions

    public init(options: GPXReadOptions = GPXReadOptions()) {
        self.options = options
    }

    /// Reads the file at `path` (plain, or gzip-compressed whatever its name), calling `handler`
    /// for each event in file order, on the caller's thread.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - progress: called after each chunk with the bytes of the file read so far (compressed
    ///     bytes for a `.gz`) and the file's size when known.
    ///   - handler: receives the events; when it throws, reading stops with
    ///     ``GPXError/handlerFailed(file:line:reason:)``.
    /// - Returns: the counts, the skipped points and values, the encoding and compression.
    /// - Throws: ``GPXError``: `unreadable`, `malformed`, `refused`, `limitExceeded`,
    ///   `invalidValue` (strict mode) or `handlerFailed`.
    public func read(
        fileAt path: String,
        progress: ((_ bytesRead: Int64, _ totalBytes: Int64?) -> Void)? = nil,
        handler: (GPXEvent) throws -> Void
    ) throws(GPXError) -> GPXReadSummary {
        let input: GZipReader
        do throws(GZipReadError) {
            input = try GZipReader(path: path)
        } catch {
            throw error.gpxError(file: path)
        }
        var status = stat()
        let total: Int64? = stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        return try withoutActuallyEscaping(handler) { handler throws(GPXError) in
            let core = GPXParseCore(file: path, options: options, handler: handler)
            var first = true
            while true {
                let count: Int
                do throws(GZipReadError) {
                    count = try input.read(into: buffer)
                } catch {
                    throw error.gpxError(file: path)
                }
                if first {
                    if count == 0 { throw Self.empty(path) }
                    core.summary.compressed = input.isCompressed
                    first = false
                }
                try feed(core, UnsafeRawBufferPointer(rebasing: buffer[..<count]), final: count == 0)
                progress?(min(input.fileOffset, total ?? .max), total)
                if count == 0 { break }
            }
            return try finish(core)
        }
    }

    /// Reads GPX from bytes in memory (tests, fuzzing), as ``read(fileAt:progress:handler:)``
    /// reads a file; `name` stands for the file in errors. The bytes must be XML, not gzip data.
    public func read(
        data: Data, name: String, handler: (GPXEvent) throws -> Void
    ) throws(GPXError) -> GPXReadSummary {
        try withoutActuallyEscaping(handler) { handler throws(GPXError) in
            if data.isEmpty { throw Self.empty(name) }
            let core = GPXParseCore(file: name, options: options, handler: handler)
            var failure: GPXError?
            data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                var offset = 0
                do throws(GPXError) {
                    repeat {
                        let end = min(offset + Self.chunkSize, bytes.count)
                        try feed(core, UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), final: end == bytes.count)
                        offset = end
                    } while offset < bytes.count
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            return try finish(core)
        }
    }

    private static func empty(_ file: String) -> GPXError {
        .malformed(file: file, line: 1, column: 1, reason: "the document is empty")
    }

    private func feed(_ core: GPXParseCore, _ bytes: UnsafeRawBufferPointer, final: Bool) throws(GPXError) {
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
                reason: Self.explained(last?.message ?? "the XML is not well formed"))
        }
    }

    /// libxml2's message, with what it means for a GPX file where its words do not say.
    package static func explained(_ message: String) -> String {
        switch message {
        case "Document is empty", "Start tag expected, '<' not found":
            "it is not XML (it does not begin with markup), so not a GPX file"
        case "internal error: Huge input lookup":
            "a tag or text longer than libxml2's limit of 10,000,000 bytes (a point with a million attributes?), far past any GPX file's"
        default:
            message
        }
    }

    private func finish(_ core: GPXParseCore) throws(GPXError) -> GPXReadSummary {
        if let error = core.error { throw error }
        guard core.sawRoot else {
            throw .malformed(file: core.file, line: core.parser.line, column: core.parser.column,
                             reason: "the document has no <gpx> element")
        }
        return core.summary
    }
}

extension GZipReadError {
    /// The error as GPX's: a file that cannot be read, or damaged compressed data (bad data, not
    /// an unreadable file: exit 65, not 66), at no line.
    func gpxError(file: String) -> GPXError {
        switch self {
        case let .unreadable(reason): .unreadable(file: file, reason: reason)
        case .truncated, .damaged: .malformed(file: file, line: 0, column: 0, reason: reason)
        }
    }
}
