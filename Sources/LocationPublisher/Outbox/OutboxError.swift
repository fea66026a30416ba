/// Why the ``Outbox`` could not do what it was asked.
public enum OutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened: its folder is missing or not writable, it is not an outbox
    /// (another program's database, left untouched), or a newer version's outbox (left untouched).
    case cannotOpen(path: String, reason: String)
    /// The disk under the outbox is full: the position was not kept on disk. The publisher still
    /// sends the newest position from memory.
    case diskFull(path: String)
    /// SQLite failed in another way while `operation` ran.
    case databaseFailed(operation: String, path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "cannot open the outbox \(path): \(reason)"
        case let .diskFull(path):
            "the disk under the outbox \(path) is full: new positions are not kept on disk (the newest is still sent); free some space"
        case let .databaseFailed(operation, path, reason):
            "the outbox \(path) failed while \(operation): \(reason)"
        }
    }
}
