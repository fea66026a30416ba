/// How ``FITReader`` reads.
public struct FITReadOptions: Sendable, Hashable {
    /// Refuse a file with a bad CRC, or cut off or damaged partway, instead of reading what can be
    /// read and reporting the rest in ``FITReadSummary/issues``.
    public var strict: Bool

    /// Options; lenient unless `strict`.
    public init(strict: Bool = false) {
        self.strict = strict
    }
}

/// What the header of one FIT file says (a chained file has one per file).
public struct FITFileHeader: Sendable, Hashable {
    /// Which file of the chain, from 0.
    public var index: Int
    /// The offset of the header from the start of the input.
    public var offset: Int
    /// 12 or 14 (a larger size is read, its extra bytes passed over).
    public var size: Int
    /// The protocol version byte: major in the high four bits (`0x20` is 2.0).
    public var protocolVersion: UInt8
    /// The profile version the writer used (2132 is 21.32).
    public var profileVersion: UInt16
    /// How many bytes of records the header says follow it.
    public var dataSize: Int
    /// The header's own CRC, when its size is 14 and the writer filled it in (0 means not computed).
    public var headerCRC: UInt16?
    /// Whether the file CRC after the data matched: `nil` until the file's end is reached (and
    /// when it never was: a file cut off before it).
    public var fileCRCMatches: Bool?

    /// The protocol's major version (1 or 2).
    public var protocolMajorVersion: Int { Int(protocolVersion >> 4) }
}

/// What one read delivers, in file order: each FIT file of a chain begins with ``fileStart(_:)``,
/// then its data messages, then ``fileEnd(_:)`` when its CRC has been read (no `fileEnd` for a
/// file cut off or damaged before its end).
public enum FITEvent: Sendable {
    /// A FIT file's header was read.
    case fileStart(FITFileHeader)
    /// A data message.
    case message(FITMessage)
    /// A FIT file's data and CRC were read; ``FITFileHeader/fileCRCMatches`` says whether it matched.
    case fileEnd(FITFileHeader)
}

/// What a whole read found, returned by ``FITReader`` when it ends.
public struct FITReadSummary: Sendable, Hashable {
    /// The file, as given.
    public var file: String
    /// The headers of the FIT files read, in order (several for a chained file): the first
    /// ``maximumFilesListed``; ``fileCount`` counts them all.
    public var files: [FITFileHeader] = []
    /// How many FIT files the input chains (all of them, listed in ``files`` or not).
    public var fileCount = 0
    /// Definition messages read.
    public var definitions = 0
    /// Data messages delivered.
    public var messages = 0
    /// Data messages whose header was a compressed-timestamp header.
    public var compressedTimestampMessages = 0
    /// Bytes of FIT data read (decompressed, for a `.fit.gz`).
    public var bytes = 0
    /// Whether the file was gzip-compressed.
    public var compressed = false
    /// Problems a lenient read went past, in file order.
    public var issues: [FITIssue] = []

    /// An empty summary of `file`.
    public init(file: String) {
        self.file = file
    }

    /// The most headers ``files`` lists: a chain of empty 16-byte files must not grow the
    /// summary with the input.
    public static let maximumFilesListed = 1_000
}
