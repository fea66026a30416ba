#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPX

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
        try withoutActuallyEscaping(handler) { handler throws(TCXError) in
            let core = TCXParseCore(file: path, options: options, handler: handler)
            try XMLChunkedRead.read(fileAt: path, into: core, root: "TrainingCenterDatabase", progress: progress, explained: Self.explained)
            return core.summary
        }
    }

    /// Reads TCX from bytes in memory (tests, fuzzing); `name` stands for the file in errors.
    public func read(data: Data, name: String, handler: (TCXEvent) throws -> Void) throws(TCXError) -> TCXReadSummary {
        try withoutActuallyEscaping(handler) { handler throws(TCXError) in
            let core = TCXParseCore(file: name, options: options, handler: handler)
            try XMLChunkedRead.read(data: data, into: core, root: "TrainingCenterDatabase", explained: Self.explained)
            return core.summary
        }
    }

    /// libxml2's message, as the GPX reader explains it, for a TCX file.
    static func explained(_ message: String) -> String {
        GPXReader.explained(message).replacing("GPX", with: "TCX")
    }
}

extension TCXError: XMLReadFailure {}
