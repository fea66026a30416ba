#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import GRDB
import GRDBSQLite
import LocationCore
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Positions waiting to be delivered, in a SQLite file: each is appended before it is sent and
/// removed when its destination acknowledges it, so a crash, a reboot or an outage loses none.
///
/// ```swift
/// let outbox = try Outbox(path: Outbox.defaultPath())   // $XDG_STATE_HOME/swift-gps-facade/outbox.sqlite
/// let message = try outbox.append(fix, for: ["mqtt://broker.example"])
/// // ... once the broker acknowledged it:
/// try outbox.remove(message.id, for: "mqtt://broker.example")
/// ```
///
/// - **Bounded**: it holds at most ``capacity`` positions (by default 7 days at one a minute:
///   10,080). When full, the oldest is dropped to make room, and counted (``Summary/dropped``).
/// - **One copy per position**: a position for several destinations is stored once, with one
///   pending mark per destination; it goes when the last destination has it.
/// - **Private**: a new file is 0600 and the folders ``defaultPath(environment:)`` needs are made
///   0700, whatever the umask (as the workout store's).
/// - **Careful with other files**: a file that is not an outbox, or an outbox of a newer version,
///   is refused (``OutboxError/cannotOpen(path:reason:)``) and left exactly as it was.
/// - **Durable**: each append is a committed transaction in WAL mode before it returns; with
///   ``Durability/normal`` a killed process loses nothing, and a power cut at most the last
///   commits; ``Durability/full`` syncs each commit to the disk. A removal by `remove` is
///   committed at once; a ``LocationPublisher`` defers its removals into the next append's
///   transaction (at most 20 wait), so a live position costs one commit, and writes each
///   acknowledgement down at once in a journal beside the file (`outbox.sqlite-acknowledged`):
///   the next outbox opened on the file removes what it lists first, so a process killed at any
///   point sends nothing its destination acknowledged again (a power cut may: never loses one).
public final class Outbox: Sendable {
    /// How hard each commit holds on to the disk.
    ///
    /// What a commit costs (`scripts/bench publish`, 2-core machine shared with other builds): an
    /// append in its own transaction about 28 µs of CPU with ``normal`` and 65 µs with ``full``
    /// (plus the wait for the disk's sync, 0.1 ms and more of wall time); a live position
    /// published to MQTT at QoS 1 about 80 µs with ``normal`` and 160–190 µs with ``full``.
    public enum Durability: Sendable, Hashable {
        /// SQLite's `synchronous=NORMAL` in WAL mode: a killed process loses nothing, a power cut
        /// may lose the last commits (the log is synced at each checkpoint, not at each commit).
        /// The default.
        case normal
        /// `synchronous=FULL`: each commit is synced to the disk before it returns; a power cut
        /// loses nothing committed.
        case full
    }

    /// What the outbox holds, at a glance.
    public struct Summary: Sendable, Hashable {
        /// Positions waiting for at least one destination.
        public var queued: Int
        /// The time of the oldest of them.
        public var oldest: Date?
        /// The time of the newest of them.
        public var newest: Date?
        /// Positions dropped since the outbox was made, because it was full.
        public var dropped: Int
    }

    /// The outbox's file, or `nil` in memory.
    public let path: String?
    /// The most positions it holds.
    public let capacity: Int

    let writer: DatabaseQueue
    let logger: Logger
    /// Where acknowledgements are written down before their removal is committed (`nil` in memory).
    private let journal: AcknowledgementJournal?
    /// Called by ``append(_:for:)`` just before its transaction: for a test, the moment a read
    /// from another thread may come between an append and its commit.
    package let appendWillBegin = Locked<(@Sendable () -> Void)?>(nil)
    /// The number of positions in the table, kept beside it (the writer is serial).
    private let state: Locked<State>

    private struct State: Sendable {
        var count: Int
        var nextMemoryID: Int64 = -1
        var droppedSinceOpen = 0
        /// Acknowledged positions whose removal is not committed yet (`acknowledge(_:for:destinations:)`).
        var deferred = DeferredRemovals()
        /// The positions that the removals being committed now take away: left out of the counts
        /// until the commit's result is counted, in the same lock, so that a status read during
        /// the commit does not count them again (a status stream then ended on one queued).
        var committingGone = 0
        /// The acknowledgements written to the journal since it was last emptied.
        var journalLines = 0

        /// The positions queued, the removals deferred or being committed left out.
        var queued: Int { max(0, count - deferred.gone - committingGone) }

        /// Takes the deferred removals out, to be committed, with the journal's length then.
        mutating func takeRemovals() -> TakenRemovals {
            defer { deferred = DeferredRemovals() }
            committingGone += deferred.gone
            return TakenRemovals(removals: deferred, journalLines: journalLines)
        }

        /// Counts a commit of `taken` that removed `gone` positions, and empties the journal when
        /// everything it lists was in `taken`.
        mutating func committed(_ taken: TakenRemovals, gone: Int, journal: AcknowledgementJournal?) {
            committingGone -= taken.removals.gone
            count -= gone
            if journalLines > 0 && journalLines == taken.journalLines {
                journal?.clear()
                journalLines = 0
            }
        }

        /// Puts back `taken`, whose commit failed.
        mutating func notCommitted(_ taken: DeferredRemovals) {
            committingGone -= taken.gone
            deferred.merge(taken)
        }
    }

    /// Removals taken out to be committed, and how many lines the journal had then.
    struct TakenRemovals: Sendable {
        var removals = DeferredRemovals()
        var journalLines = 0
    }

    /// Removals waiting for a commit: per destination the acknowledged ids, and per id how many
    /// destinations acknowledged it of how many it was appended for.
    struct DeferredRemovals: Sendable {
        var ids: [String: [Int64]] = [:]
        var acknowledgements: [Int64: (count: Int, needed: Int)] = [:]
        var count = 0
        /// The positions every destination acknowledged: gone once committed.
        var gone: Int { acknowledgements.values.count { $0.count >= $0.needed } }
        var isEmpty: Bool { count == 0 }

        mutating func add(_ id: Int64, for destination: String, of destinations: Int) {
            ids[destination, default: []].append(id)
            count += 1
            acknowledgements[id, default: (0, destinations)].count += 1
        }

        /// Puts back removals that could not be committed.
        mutating func merge(_ other: DeferredRemovals) {
            for (destination, list) in other.ids { ids[destination, default: []] += list }
            count += other.count
            for (id, acknowledged) in other.acknowledgements {
                acknowledgements[id, default: (0, acknowledged.needed)].count += acknowledged.count
            }
        }
    }

    /// The most acknowledged positions whose removal waits for a commit
    /// (`acknowledge(_:for:destinations:)`): a crash re-sends at most these.
    static let deferredRemovalLimit = 20

    /// The default capacity: 7 days at one position a minute.
    public static let defaultCapacity = 7 * 24 * 60

    /// Opens (creating if needed) the outbox at `path`; its folder must exist.
    ///
    /// - Throws: ``OutboxError/cannotOpen(path:reason:)`` when the folder is missing, the file is
    ///   not an outbox or is a newer version's (both left untouched), or SQLite cannot open it.
    public convenience init(
        path: String, capacity: Int = Outbox.defaultCapacity, durability: Durability = .normal,
        logger: Logger = Logger(label: "swift-gps-facade.outbox")
    ) throws(OutboxError) {
        try self.init(location: path, capacity: capacity, durability: durability, logger: logger)
    }

    /// Opens (creating if needed) the outbox at ``defaultPath(environment:)``, creating its
    /// folders 0700 whatever the umask (`swift-gps-facade` and any missing above it, such as
    /// `~/.local/state`); folders that exist keep their permissions.
    public convenience init(
        environment: [String: String] = ProcessInfo.processInfo.environment, capacity: Int = Outbox.defaultCapacity,
        durability: Durability = .normal, logger: Logger = Logger(label: "swift-gps-facade.outbox")
    ) throws(OutboxError) {
        let path = Self.defaultPath(environment: environment)
        do {
            try PrivateFiles.createFolder(PrivateFiles.parent(of: path))
        } catch {
            throw .cannotOpen(path: path, reason: error.reason)
        }
        try self.init(location: path, capacity: capacity, durability: durability, logger: logger)
    }

    /// A new, empty outbox in memory: it disappears with the value. For tests and benchmarks.
    public static func inMemory(capacity: Int = Outbox.defaultCapacity) throws(OutboxError) -> Outbox {
        try Outbox(location: nil, capacity: capacity, durability: .normal, logger: Logger(label: "swift-gps-facade.outbox"))
    }

    private init(location path: String?, capacity: Int, durability: Durability, logger: Logger) throws(OutboxError) {
        precondition(capacity > 0, "an outbox needs room for at least one position")
        self.path = path
        self.capacity = capacity
        self.logger = logger
        let name = path ?? ":memory:"
        var configuration = Configuration()
        configuration.label = "Outbox"
        configuration.busyMode = .timeout(10)
        let synchronous = durability == .full ? "FULL" : "NORMAL"
        configuration.prepareDatabase { db in
            // The write-ahead log's files stay when the connection closes, as the workout store's
            // do: a WAL database needs its shared-memory file even to be read, and on a full disk
            // a new one cannot be made. (SQLite makes both with the database file's mode: 0600.)
            var persist: Int32 = 1
            _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
            if db.configuration.readonly { return }
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        do {
            if let path {
                try Self.checkFile(path, configuration: configuration)
            }
            writer = try path.map { try DatabaseQueue(path: $0, configuration: configuration) } ?? DatabaseQueue(configuration: configuration)
            try writer.writeWithoutTransaction { db in
                if path != nil { try db.execute(sql: "PRAGMA journal_mode = WAL") }
                try db.inTransaction(.immediate) {
                    try Self.createSchema(db)
                    return .commit
                }
            }
            // What the last run acknowledged and was killed before committing goes first.
            if let path {
                let acknowledged = AcknowledgementJournal.read(outboxPath: path)
                if !acknowledged.isEmpty {
                    try writer.writeWithoutTransaction { db in
                        try db.inTransaction(.immediate) {
                            _ = try Self.removeRows(acknowledged, db)
                            return .commit
                        }
                    }
                }
                journal = try AcknowledgementJournal(outboxPath: path)
                journal?.clear()
            } else {
                journal = nil
            }
            let count = try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0 }
            state = Locked(State(count: count))
        } catch let error as PrivateFiles.Failure {
            throw .cannotOpen(path: name, reason: error.reason)
        } catch let error as OutboxError {
            throw error
        } catch {
            throw .cannotOpen(path: name, reason: Self.reason(error))
        }
    }

    /// `$XDG_STATE_HOME/swift-gps-facade/outbox.sqlite`, or `~/.local/state/...` when
    /// `XDG_STATE_HOME` is unset, empty or not absolute (the XDG base directory spec's state
    /// folder: data that should persist between restarts but is not worth a backup).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var base = environment["XDG_STATE_HOME"] ?? ""
        if !base.hasPrefix("/") {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.homeFolder()
            base = home + "/.local/state"
        }
        return base + "/swift-gps-facade/outbox.sqlite"
    }

    /// The user's home folder from the password database, for a process without `HOME`.
    private static func homeFolder() -> String {
        guard let entry = getpwuid(getuid()), let folder = entry.pointee.pw_dir else { return "/" }
        return String(cString: folder)
    }

    // MARK: - Writing

    /// Keeps `location` for each of `destinations`, dropping the oldest positions when full.
    ///
    /// - Returns: the message, with its row id.
    /// - Throws: ``OutboxError/diskFull(path:)`` when the disk is full (nothing was kept), or
    ///   ``OutboxError/databaseFailed(operation:path:reason:)``.
    @discardableResult
    public func append(
        _ location: Location, trigger: PublishTrigger = .timer, battery: Int? = nil, createdAt: Date = Date(),
        for destinations: [String]
    ) throws(OutboxError) -> PositionMessage {
        var message = PositionMessage(id: 0, location: location, trigger: trigger, battery: battery, createdAt: createdAt)
        try append(&message, for: destinations)
        return message
    }

    /// Keeps `message` for each of `destinations` and sets its ``PositionMessage/id``.
    ///
    /// Acknowledged positions whose removal was deferred (`acknowledge(_:for:destinations:)`)
    /// are removed in the same transaction: a live position costs one commit.
    public func append(_ message: inout PositionMessage, for destinations: [String]) throws(OutboxError) {
        let stored = message
        appendWillBegin.withLock { $0 }?()
        var taken = TakenRemovals()
        do {
            let (id, dropped, gone) = try transaction(.immediate) { db -> (Int64, Int, Int) in
                // Taken inside the transaction, not before it: a read on another thread between
                // the two found them still pending, and the sender sent them a second time.
                let excess: Int
                (excess, taken) = state.withLock { state in (state.count + 1 - capacity, state.takeRemovals()) }
                let gone = try Self.removeRows(taken.removals.ids, db)
                var dropped = 0
                if excess - gone.count > 0 {
                    let oldest = try Int64.fetchAll(
                        db.cachedStatement(sql: "SELECT id FROM message ORDER BY time, id LIMIT ?"), arguments: [excess - gone.count])
                    for id in oldest {
                        try db.cachedStatement(sql: "DELETE FROM pending WHERE message = ?").execute(arguments: [id])
                        try db.cachedStatement(sql: "DELETE FROM message WHERE id = ?").execute(arguments: [id])
                    }
                    dropped = oldest.count
                    try db.cachedStatement(sql: "UPDATE counter SET value = value + ? WHERE name = 'dropped'").execute(arguments: [dropped])
                }
                try db.cachedStatement(sql: """
                        INSERT INTO message (time, latitude, longitude, altitude, h_accuracy, v_accuracy, speed, course, trigger, battery, created_at,
                            event, region, region_time)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """).execute(arguments: [
                        stored.time.timeIntervalSince1970, stored.latitude, stored.longitude, stored.altitude,
                        stored.horizontalAccuracy, stored.verticalAccuracy, stored.speed, stored.course,
                        stored.trigger.rawValue, stored.battery, stored.createdAt.timeIntervalSince1970,
                        stored.transition?.event.rawValue, stored.transition?.region, stored.transition?.regionCreatedAt.timeIntervalSince1970,
                    ])
                let id = db.lastInsertedRowID
                for destination in destinations {
                    try db.cachedStatement(sql: "INSERT INTO pending (destination, time, message) VALUES (?, ?, ?)")
                        .execute(arguments: [destination, stored.time.timeIntervalSince1970, id])
                }
                return (id, dropped, gone.count)
            }
            message.id = id
            state.withLock { state in
                state.committed(taken, gone: gone, journal: journal)
                state.count += 1 - dropped
                state.droppedSinceOpen += dropped
            }
            if dropped > 0 {
                logger.warning("The outbox is full: dropped the oldest positions", metadata: [
                    "outbox.path": "\(path ?? ":memory:")", "outbox.dropped": "\(dropped)", "outbox.capacity": "\(capacity)",
                ])
            }
        } catch {
            // Nothing was committed: the deferred removals wait for the next commit.
            state.withLock { $0.notCommitted(taken.removals) }
            throw mapped(error, operation: "appending a position")
        }
    }

    /// Marks `id` delivered to `destination`; the position goes when no destination waits for it.
    /// Removing what is not there does nothing.
    public func remove(_ id: Int64, for destination: String) throws(OutboxError) {
        try remove([id], for: destination)
    }

    /// Marks each of `ids` delivered to `destination`, in one transaction (one commit for a
    /// batch the destination acknowledged); a position goes when no destination waits for it.
    /// Removing what is not there does nothing. Removals deferred by
    /// `acknowledge(_:for:destinations:)` are committed with them.
    public func remove(_ ids: [Int64], for destination: String) throws(OutboxError) {
        let stored = ids.filter { $0 > 0 }
        let any = state.withLock { state in
            // Counted as one of one: the count comes from the rows the commit deletes.
            for id in stored { state.deferred.add(id, for: destination, of: 1) }
            return !state.deferred.isEmpty
        }
        guard any else { return }
        try commitDeferred(operation: "removing a delivered position")
    }

    /// Marks each of `ids` delivered to `destination` (one of `destinations` that the positions
    /// were appended for) and commits the removal later: with the next ``append(_:for:)``, in its
    /// transaction; when `deferredRemovalLimit` wait; before the outbox is read
    /// (``next(for:order:limit:)``, ``count(for:)``, ``summary()``); by
    /// `commitDeferredRemovals()`; or when the outbox is released. A live position then costs
    /// one commit, not two. The counts (`quickSummary()`) leave them out at once.
    ///
    /// They are written down at once in the acknowledgement journal: a process killed before the
    /// commit leaves them there, and the next outbox opened on the file removes them first, so
    /// they are not sent again (see `AcknowledgementJournal`).
    func acknowledge(_ ids: [Int64], for destination: String, destinations: Int) throws(OutboxError) {
        let stored = ids.filter { $0 > 0 }
        guard !stored.isEmpty else { return }
        let (full, journalFailed) = state.withLock { state -> (Bool, Bool) in
            // Written down under the lock that takes the removals to commit: a commit empties the
            // journal only when no line came after the removals it took.
            let written = journal?.record(stored, for: destination) ?? true
            state.journalLines += stored.count
            for id in stored { state.deferred.add(id, for: destination, of: destinations) }
            return (state.deferred.count >= Self.deferredRemovalLimit, !written)
        }
        if journalFailed {
            logger.warning("Cannot write down acknowledgements; a crash before their commit sends those positions again", metadata: [
                "outbox.path": "\(path ?? ":memory:")",
            ])
        }
        if full { try commitDeferredRemovals() }
    }

    /// Commits the removals deferred by `acknowledge(_:for:destinations:)`, if any.
    func commitDeferredRemovals() throws(OutboxError) {
        guard !state.withLock({ $0.deferred.isEmpty }) else { return }
        try commitDeferred(operation: "removing delivered positions")
    }

    deinit {
        try? commitDeferredRemovals()  // failing, they are sent again: at-least-once allows it
    }

    /// Commits the removals deferred now (an append may have taken them meanwhile: then nothing).
    private func commitDeferred(operation: String) throws(OutboxError) {
        var taken = TakenRemovals()
        do {
            let gone = try transaction(.immediate) { db in
                taken = state.withLock { $0.takeRemovals() }
                return try Self.removeRows(taken.removals.ids, db).count
            }
            state.withLock { $0.committed(taken, gone: gone, journal: journal) }
        } catch {
            state.withLock { $0.notCommitted(taken.removals) }
            throw mapped(error, operation: operation)
        }
    }

    /// Deletes the pending marks of `removals` and the positions no destination waits for; returns
    /// the ids of those. Inside a transaction.
    private static func removeRows(_ removals: [String: [Int64]], _ db: Database) throws -> [Int64] {
        var gone: [Int64] = []
        for (destination, ids) in removals {
            for id in ids {
                try db.cachedStatement(sql: "DELETE FROM pending WHERE destination = ? AND message = ?").execute(arguments: [destination, id])
                guard db.changesCount > 0 else { continue }
                try db.cachedStatement(sql: """
                    INSERT INTO delivered (destination, time) SELECT ?, time FROM message WHERE id = ?
                    ON CONFLICT (destination) DO UPDATE SET time = max(time, excluded.time)
                    """).execute(arguments: [destination, id])
                try db.cachedStatement(sql: "DELETE FROM message WHERE id = ? AND NOT EXISTS (SELECT 1 FROM pending WHERE message = ?)")
                    .execute(arguments: [id, id])
                if db.changesCount > 0 { gone.append(id) }
            }
        }
        return gone
    }

    private enum TransactionKind {
        case immediate, deferred
    }

    /// Runs `body` in one transaction begun and committed by prepared statements.
    ///
    /// Not GRDB's `write` and `read`: they compile `BEGIN` and `COMMIT` each time, and `read`
    /// sets `PRAGMA query_only` on and off, which expires every prepared statement of the
    /// connection, so each cached statement was compiled again on its next use: about half the
    /// CPU of a live position went to SQLite's parser.
    private func transaction<T>(_ kind: TransactionKind, _ body: (Database) throws -> T) throws -> T {
        try writer.writeWithoutTransaction { db in
            try db.cachedStatement(sql: kind == .immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED").execute()
            do {
                let result = try body(db)
                try db.cachedStatement(sql: "COMMIT").execute()
                return result
            } catch {
                if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK").execute() }  // the error thrown below says what failed
                throw error
            }
        }
    }

    /// A negative id for a message kept only in memory (see ``PositionMessage/id``).
    func memoryID() -> Int64 {
        state.withLock { state in
            defer { state.nextMemoryID -= 1 }
            return state.nextMemoryID
        }
    }

    // MARK: - Reading

    /// The next position to send to `destination`, in `order`, or `nil` when none waits.
    ///
    /// With ``DeliveryOrder/newestFirstThenBacklog`` that is the newest position when it is newer
    /// than any delivered to `destination` (the live one, or the newest after an outage), else the
    /// oldest waiting.
    public func next(for destination: String, order: DeliveryOrder = .newestFirstThenBacklog) throws(OutboxError) -> PositionMessage? {
        try next(for: destination, order: order, limit: 1).first
    }

    /// The next `limit` positions to send to `destination`, in `order`, in one read: what
    /// ``next(for:order:)`` would return one after the other if each were removed in turn.
    ///
    /// With ``DeliveryOrder/newestFirstThenBacklog`` that is the newest position when it is newer
    /// than any delivered to `destination`, then the oldest waiting.
    public func next(for destination: String, order: DeliveryOrder = .newestFirstThenBacklog, limit: Int) throws(OutboxError) -> [PositionMessage] {
        precondition(limit > 0, "next(for:order:limit:) needs a limit of at least 1")
        try commitDeferredRemovals()
        do {
            return try transaction(.deferred) { db -> [PositionMessage] in
                let newest = "SELECT message FROM pending WHERE destination = ? ORDER BY time DESC, message DESC LIMIT ?"
                let oldest = "SELECT message FROM pending WHERE destination = ? AND message != ? ORDER BY time, message LIMIT ?"
                var ids: [Int64]
                switch order {
                case .oldestFirst:
                    ids = try Int64.fetchAll(db.cachedStatement(sql: oldest), arguments: [destination, 0, limit])
                case .newestFirst:
                    ids = try Int64.fetchAll(db.cachedStatement(sql: newest), arguments: [destination, limit])
                case .newestFirstThenBacklog:
                    let top = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT message, time FROM pending WHERE destination = ? ORDER BY time DESC, message DESC LIMIT 1"),
                        arguments: [destination])
                    guard let top else { return [] }
                    let delivered = try Double.fetchOne(
                        db.cachedStatement(sql: "SELECT time FROM delivered WHERE destination = ?"), arguments: [destination])
                    let topTime: Double = top["time"]
                    // Once the newest is delivered, the delivered time is its: the rest is backlog.
                    if delivered.map({ topTime > $0 }) ?? true {
                        let first: Int64 = top["message"]
                        ids = [first]
                        if limit > 1 {
                            ids += try Int64.fetchAll(db.cachedStatement(sql: oldest), arguments: [destination, first, limit - 1])
                        }
                    } else {
                        ids = try Int64.fetchAll(db.cachedStatement(sql: oldest), arguments: [destination, 0, limit])
                    }
                }
                let statement = try db.cachedStatement(sql: "SELECT * FROM message WHERE id = ?")
                return try ids.compactMap { id in try Row.fetchOne(statement, arguments: [id]).map(Self.message) }
            }
        } catch {
            throw mapped(error, operation: "reading the next positions")
        }
    }

    /// How many positions wait for `destination` (for any destination when `nil`).
    public func count(for destination: String? = nil) throws(OutboxError) -> Int {
        guard let destination else { return state.withLock { $0.queued } }
        try commitDeferredRemovals()
        do {
            return try transaction(.deferred) { db in
                try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM pending WHERE destination = ?"), arguments: [destination]) ?? 0
            }
        } catch {
            throw mapped(error, operation: "counting the queued positions")
        }
    }

    /// What the outbox holds: how many positions, the oldest's and newest's times, how many were dropped.
    public func summary() throws(OutboxError) -> Summary {
        try commitDeferredRemovals()
        do {
            return try transaction(.deferred) { db in
                let row = try Row.fetchOne(db, sql: "SELECT count(*) AS n, min(time) AS oldest, max(time) AS newest FROM message")
                let dropped = try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE name = 'dropped'") ?? 0
                let oldest: Double? = row?["oldest"]
                let newest: Double? = row?["newest"]
                return Summary(
                    queued: row?["n"] ?? 0, oldest: oldest.map { Date(timeIntervalSince1970: $0) },
                    newest: newest.map { Date(timeIntervalSince1970: $0) }, dropped: dropped)
            }
        } catch {
            throw mapped(error, operation: "reading its summary")
        }
    }

    /// The number of positions, the oldest's time and the positions dropped since the outbox
    /// opened, without counting rows: what a status line reads after each change. Positions
    /// acknowledged by every destination are left out, their removal committed or not; the
    /// oldest's time may be one of those until it is.
    func quickSummary() -> (count: Int, oldest: Date?, dropped: Int) {
        let (count, dropped) = state.withLock { ($0.queued, $0.droppedSinceOpen) }
        guard count > 0 else { return (0, nil, dropped) }
        let oldest = try? writer.writeWithoutTransaction { db in try Double.fetchOne(db.cachedStatement(sql: "SELECT min(time) FROM message")) }  // a status line: no oldest time rather than none
        return (count, oldest.flatMap { $0 }.map { Date(timeIntervalSince1970: $0) }, dropped)
    }

    private static func message(_ row: Row) -> PositionMessage {
        var transition: RegionTransition?
        if let event = (row["event"] as String?).flatMap(RegionTransition.Event.init(rawValue:)) {
            transition = RegionTransition(
                event: event, region: row["region"] ?? "", regionCreatedAt: Date(timeIntervalSince1970: row["region_time"] ?? 0))
        }
        return PositionMessage(
            id: row["id"], time: Date(timeIntervalSince1970: row["time"]), latitude: row["latitude"], longitude: row["longitude"],
            altitude: row["altitude"], horizontalAccuracy: row["h_accuracy"], verticalAccuracy: row["v_accuracy"],
            speed: row["speed"], course: row["course"], trigger: PublishTrigger(rawValue: row["trigger"]) ?? .timer,
            battery: row["battery"], createdAt: Date(timeIntervalSince1970: row["created_at"]), transition: transition)
    }

    private func mapped(_ error: any Error, operation: String) -> OutboxError {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            return .diskFull(path: path ?? ":memory:")
        }
        return .databaseFailed(operation: operation, path: path ?? ":memory:", reason: Self.reason(error))
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}

/// The order in which an outbox's positions go out. A ``LocationPublisher`` uses it for a backlog
/// (after a failure, or a queue from a previous run) and sends live positions in time order.
public enum DeliveryOrder: String, Sendable, Hashable, CaseIterable {
    /// The newest position first when it is newer than any delivered (so a map shows where the
    /// device is now), then the backlog oldest first. The default.
    case newestFirstThenBacklog = "newest-first"
    /// Strictly in time order: the backlog, then the live position.
    case oldestFirst = "oldest-first"
    /// Always the newest first: the backlog goes out backwards.
    case newestFirst = "newest-only-first"
}
