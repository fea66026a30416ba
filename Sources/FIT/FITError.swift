/// Why ``FITReader`` could not read a file, or (strict mode) refused one: each case names the
/// file and the byte offset where reading stopped, and reads as a sentence a person can act on.
public enum FITError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(file: String, reason: String)
    /// The file does not begin as a FIT file does (a 12- or 14-byte header ending in `.FIT`).
    case notFIT(file: String, reason: String)
    /// The file is damaged at `offset`: a record that cannot be decoded (a data message under a
    /// local type no definition gave, a record running past the data the header declares),
    /// bytes after a file of a chain that are not another FIT file, or damaged compressed data
    /// (`offset`: where the inflated FIT data stops).
    case malformed(file: String, offset: Int, reason: String)
    /// The file ends at `offset`, inside a record, a header or before its CRC (for a `.fit.gz`
    /// whose gzip data is cut off, the offset in the inflated FIT data).
    case truncated(file: String, offset: Int, reason: String)
    /// A CRC does not match (the header's, or the file's at `offset`): a lenient read reports it
    /// and goes on, as Garmin's decoder and gpsbabel do; a strict read refuses the file.
    case badCRC(file: String, offset: Int, reason: String)
    /// The event handler threw at `offset`; its error is described here.
    case handlerFailed(file: String, offset: Int, reason: String)

    /// The file the error is about.
    public var file: String {
        switch self {
        case let .unreadable(file, _), let .notFIT(file, _), let .malformed(file, _, _), let .truncated(file, _, _),
             let .badCRC(file, _, _), let .handlerFailed(file, _, _):
            file
        }
    }

    /// The byte offset where reading stopped, when there is one.
    public var offset: Int? {
        switch self {
        case .unreadable, .notFIT: nil
        case let .malformed(_, offset, _), let .truncated(_, offset, _), let .badCRC(_, offset, _),
             let .handlerFailed(_, offset, _):
            offset
        }
    }

    /// The error as one line: `ride.fit: byte 1542: the file's CRC is 0xb1d5, its content's 0x0a3c`.
    public var description: String {
        switch self {
        case let .unreadable(file, reason):
            "cannot read \(file): \(reason)"
        case let .notFIT(file, reason):
            "\(file): not a FIT file: \(reason)"
        case let .malformed(file, offset, reason):
            "\(file): byte \(offset): malformed FIT: \(reason)"
        case let .truncated(file, offset, reason):
            "\(file): byte \(offset): truncated: \(reason)"
        case let .badCRC(file, offset, reason):
            "\(file): byte \(offset): bad CRC: \(reason)"
        case let .handlerFailed(file, offset, reason):
            "\(file): byte \(offset): stopped reading: \(reason)"
        }
    }
}

/// Something wrong with a file that a lenient read (the default) goes past: a bad CRC, a file
/// cut off or damaged partway (what came before is kept). Strict mode throws it as a ``FITError``.
public struct FITIssue: Sendable, Hashable, CustomStringConvertible {
    /// The problem, as the error strict mode throws.
    public var error: FITError

    /// The byte offset it was found at.
    public var offset: Int { error.offset ?? 0 }

    /// What a lenient read did about it, in a few words: "read on", "reading stopped here".
    public var consequence: String

    /// An issue.
    public init(_ error: FITError, consequence: String) {
        self.error = error
        self.consequence = consequence
    }

    /// The error and what was done: `...: bad CRC: ... (imported anyway)`.
    public var description: String {
        "\(error) (\(consequence))"
    }
}
