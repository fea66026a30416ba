#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        try withoutActuallyEscaping(handler) { handler throws(GPXError) in
            let core = GPXParseCore(file: path, options: options, handler: handler)
            try XMLChunkedRead.read(fileAt: path, into: core, root: "gpx", progress: progress, explained: Self.explained)
            return core.summary
        }
    }

    /// Reads GPX from bytes in memory (tests, fuzzing), as ``read(fileAt:progress:handler:)``
    /// reads a file; `name` stands for the file in errors. The bytes must be XML, not gzip data.
    public func read(
        data: Data, name: String, handler: (GPXEvent) throws -> Void
    ) throws(GPXError) -> GPXReadSummary {
        try withoutActuallyEscaping(handler) { handler throws(GPXError) in
            let core = GPXParseCore(file: name, options: options, handler: handler)
            try XMLChunkedRead.read(data: data, into: core, root: "gpx", explained: Self.explained)
            return core.summary
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
}

extension GPXError: XMLReadFailure {}
