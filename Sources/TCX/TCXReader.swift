#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPX
import GZipFiles

/// Reads TCX files (Garmin Training Center Database v2, plain or `.tcx.gz`) as a stream of
/// ``TCXEvent``s, in constant memory whatever the file's size: the file is read in 256 KB chunks
/// and fed to libxml2's SAX2 push parser, through the GPX reader's bridge and with its safety.
///
/// ```swift
/// let summary = try TCXReader().read(fileAt: "run.tcx") { event in
///     if case let .trackpoint(point) = event { print(point.time.date, point.heartRate ?? .nan) }
/// }
/// print(summary.activities, summary.trackpoints, summary.skipped)
/// ```
///
/// What it reads: activities (`Sport`, `Id`, `Notes`, the creator's name) anywhere in the file (in
/// `<Activities>` or a `<MultiSportSession>`), their laps (`StartTime` and the totals, the
/// `TriggerMethod`, the ActivityExtension v2 `LX` averages), tracks, and track points (time,
/// position, altitude, distance, heart rate, cadence, and the ActivityExtension v2 `TPX` speed,
/// run cadence and watts, found by namespace URI whatever their prefix); courses, each whole with
/// its name, its track's positions (altitude, distance) and its course points (name, position,
/// `PointType`), as one ``TCXEvent/course(_:)``. Elements of other namespaces are ignored.
///
/// What it refuses: any DOCTYPE, entity declaration or entity reference other than the five
/// predefined ones (``TCXError/refused(file:line:column:reason:)``); nesting and text beyond
/// ``TCXReadOptions``. A point without a valid time is skipped, and an invalid value dropped,
/// each reported with its line in ``TCXReadSummary/skipped`` (in strict mode, each fails the read).
public struct TCXReader: Sendable {
    static let chunkSize = 256 * 1024

    /// How it reads.
    public var options: TCXReadOptions

    /// A reader; lenient unless `options` say strict.
    public init(options: TCXReadOptions = TCXReadOptions()) {
        self.options = options
    }

    /// Reads the file at `path` (plain, or gzip-compressed whatever its name), calling `handler`
    /// for each event in file order, on the caller's thread; `progress` after each chunk, with the
    /// bytes of the file read and its size when known.
    ///
    /// - Throws: ``TCXError``.
    public func read(
        fileAt path: String,
        progress: ((_ bytesRead: Int64, _ totalBytes: Int64?) -> Void)? = nil,
        handler: (TCXEvent) throws -> Void
    ) throws(TCXError) -> TCXReadSummary {
        let input: GZipReader
        do throws(GZipReadError) {
            input = try GZipReader(path: path)
        } catch {
            throw Self.converted(error, file: path)
        }
        var status = stat()
        let total: Int64? = stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        return try withoutActuallyEscaping(handler) { handler throws(TCXError) in
            let core = TCXParseCore(file: path, options: options, handler: handler)
            var first = true
            while true {
                let count: Int
                do throws(GZipReadError) {
                    count = try input.read(into: buffer)
                } catch {
                    throw Self.converted(error, file: path)
                }
                if first {
                    if count == 0 { throw TCXError.malformed(file: path, line: 1, column: 1, reason: "the document is empty") }
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

    /// Reads TCX from bytes in memory (tests, fuzzing); `name` stands for the file in errors.
    public func read(data: Data, name: String, handler: (TCXEvent) throws -> Void) throws(TCXError) -> TCXReadSummary {
        try withoutActuallyEscaping(handler) { handler throws(TCXError) in
            if data.isEmpty { throw TCXError.malformed(file: name, line: 1, column: 1, reason: "the document is empty") }
            let core = TCXParseCore(file: name, options: options, handler: handler)
            var failure: TCXError?
            data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                var offset = 0
                do throws(TCXError) {
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

    private func feed(_ core: TCXParseCore, _ bytes: UnsafeRawBufferPointer, final: Bool) throws(TCXError) {
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
                reason: GPXReader.explained(last?.message ?? "the XML is not well formed").replacing("GPX", with: "TCX"))
        }
    }

    private func finish(_ core: TCXParseCore) throws(TCXError) -> TCXReadSummary {
        if let error = core.error { throw error }
        guard core.sawRoot else {
            throw .malformed(file: core.file, line: core.parser.line, column: core.parser.column, reason: "the document has no <TrainingCenterDatabase> element")
        }
        return core.summary
    }

    /// The gzip reader's errors, as TCX's: damaged compressed data is bad data, at no line.
    static func converted(_ error: GZipReadError, file: String) -> TCXError {
        switch error {
        case let .unreadable(reason): .unreadable(file: file, reason: reason)
        case .truncated, .damaged: .malformed(file: file, line: 0, column: 0, reason: error.reason)
        }
    }
}
