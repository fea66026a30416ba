#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Reads FIT files (`.fit`, and `.fit.gz` whatever the name) as a stream of ``FITEvent``s, in
/// constant memory whatever the file's size, written from the published FIT protocol (no code of
/// Garmin's SDK).
///
/// ```swift
/// var records = 0
/// let summary = try FITReader().read(fileAt: "ride.fit") { event in
///     if case .message(let message) = event, message.globalNumber == FITMessageNumber.record { records += 1 }
/// }
/// print(records, summary.issues)
/// ```
///
/// What it reads: 12- and 14-byte headers (and the header's CRC), definition and data messages
/// under their local message types, little- and big-endian definitions, compressed-timestamp
/// record headers (a 5-bit offset from the last full `timestamp`), developer fields (described
/// by the `field_description` messages before them; their values are kept, raw when undescribed),
/// fields whose size is not a multiple of their base type (read as bytes), and chained FIT files
/// (one file after another's CRC), each with its own definitions.
///
/// What it does with damage, leniently (the default): a bad header or file CRC is reported in
/// ``FITReadSummary/issues`` and the read goes on, as Garmin's decoder and gpsbabel do; a file
/// cut off partway, a data message under a local type no definition gave, a record running past
/// the data the header declares, or bytes after a chain's file that are not another FIT file stop
/// the read there, with what came before delivered and the issue reported with its offset. So
/// does a `.fit.gz` whose gzip data is cut off or damaged partway: what it inflates to is read, and
/// the offset is where the inflated FIT data stops (a cut plain `.fit` reads the same). In
/// ``FITReadOptions/strict`` mode each of these throws instead. A file that does not begin with a
/// FIT header throws ``FITError/notFIT(file:reason:)`` in either mode.
public struct FITReader: Sendable {
    /// The size of the chunks read from the file, and the most a record can take (a data message
    /// of 255 fields and 255 developer fields of 255 bytes each is under 130 KB).
    static let bufferSize = 256 * 1024

    /// How it reads.
    public var options: FITReadOptions

    /// A reader; lenient unless `options` say strict.
    public init(options: FITReadOptions = FITReadOptions()) {
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
    ///     ``FITError/handlerFailed(file:offset:reason:)``.
    /// - Returns: the headers, counts and issues.
    /// - Throws: ``FITError``.
    public func read(
        fileAt path: String,
        progress: ((_ bytesRead: Int64, _ totalBytes: Int64?) -> Void)? = nil,
        handler: (FITEvent) throws -> Void
    ) throws(FITError) -> FITReadSummary {
        let input = try FITFileInput(path: path)
        var status = stat()
        let total: Int64? = stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
        return try withoutActuallyEscaping(handler) { handler throws(FITError) in
            let core = FITDecodingCore(file: path, options: options, source: input, handler: handler)
            core.progress = progress.map { report in { consumed in report(min(consumed, total ?? .max), total) } }
            return try core.run()
        }
    }

    /// Reads FIT bytes in memory (tests, fuzzing), as ``read(fileAt:progress:handler:)`` reads a
    /// file; `name` stands for the file in errors. The bytes must be FIT, not gzip data.
    public func read(data: [UInt8], name: String, handler: (FITEvent) throws -> Void) throws(FITError) -> FITReadSummary {
        try withoutActuallyEscaping(handler) { handler throws(FITError) in
            try FITDecodingCore(file: name, options: options, source: FITMemoryInput(data), handler: handler).run()
        }
    }

    /// Reads FIT bytes from `source`, as ``read(data:name:handler:)`` reads bytes in memory: for
    /// the fuzzer, whose source hands its bytes out in chunks of sizes the input decides.
    package func read(source: some FITByteSource, name: String, handler: (FITEvent) throws -> Void) throws(FITError) -> FITReadSummary {
        try withoutActuallyEscaping(handler) { handler throws(FITError) in
            try FITDecodingCore(file: name, options: options, source: source, handler: handler).run()
        }
    }

    /// The messages of a file in memory, read whole: for tests and small files.
    public func messages(of data: [UInt8], name: String = "data") throws(FITError) -> (messages: [FITMessage], summary: FITReadSummary) {
        var messages: [FITMessage] = []
        let summary = try read(data: data, name: name) { event in
            if case let .message(message) = event { messages.append(message) }
        }
        return (messages, summary)
    }

    /// Whether `bytes` (a file's first 12 bytes or more) begin as a FIT file: a header size of 12
    /// or more and the `.FIT` signature.
    public static func looksLikeFIT(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(12))
        return head.count == 12 && head[0] >= 12 && head[8...11].elementsEqual(".FIT".utf8)
    }
}
