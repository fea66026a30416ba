import Foundation
import GPSCore
import GRDB
import LocationCore
@testable import LocationPublisher
import SimulatorsCore
import Testing

/// A delivered live position's removal is committed with the next append (or at a drain's end),
/// not on its own, and the acknowledgement is written down at once in the journal beside the
/// file: a crash before that commit neither loses the position nor sends it again. Each "crash"
/// here is a second outbox opened on the same file while the first still holds its removals in
/// memory: what the next run would find.
@Suite(.timeLimit(.minutes(1))) struct DeferredRemovalTests {
    static let mqtt = "mqtt://broker"

    /// A fresh folder for an outbox file, removed at the end.
    static func withOutboxFile(_ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder.path + "/outbox.sqlite")
    }

    /// The times of the positions the file itself holds for `destination`, read with SQLite alone
    /// (no outbox opened: the journal not applied).
    static func timesInFile(at path: String, for destination: String) throws -> [Date] {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: path, configuration: configuration).read { db in
            try Double.fetchAll(db, sql: "SELECT time FROM pending WHERE destination = ? ORDER BY time", arguments: [destination])
        }.map { Date(timeIntervalSince1970: $0) }
    }

    /// The times of the positions the next run would find for `destination`: an outbox opened on
    /// a copy of the files as they are now (the database, its log, the journal), as a process
    /// killed now would leave them, so that the outbox still open here keeps its own.
    static func queuedTimes(at path: String, for destination: String) throws -> [Date] {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: copy) }
        for suffix in ["", "-wal", "-shm", "-acknowledged"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy.path + "/outbox.sqlite" + suffix)
        }
        let reopened = try Outbox(path: copy.path + "/outbox.sqlite")
        return try reopened.next(for: destination, order: .oldestFirst, limit: 1_000).map(\.time)
    }

    @Test func anAcknowledgedRemovalIsCommittedWithTheNextAppend() async throws {
        try await Self.withOutboxFile { path in
            let outbox = try Outbox(path: path)
            let fixes = track(3)
            let first = try outbox.append(fixes[0], for: [Self.mqtt])
            try outbox.acknowledge([first.id], for: Self.mqtt, destinations: 1)
            // Gone from the counts at once, still in the file, written down in the journal.
            #expect(outbox.quickSummary().count == 0)
            #expect(try Self.timesInFile(at: path, for: Self.mqtt) == [fixes[0].time])
            #expect(AcknowledgementJournal.read(outboxPath: path) == [Self.mqtt: [first.id]])
            // The next append commits it in its own transaction, and empties the journal.
            try outbox.append(fixes[1], for: [Self.mqtt])
            #expect(try Self.timesInFile(at: path, for: Self.mqtt) == [fixes[1].time])
            #expect(AcknowledgementJournal.read(outboxPath: path).isEmpty)
            #expect(outbox.quickSummary().count == 1)
            #expect(try Self.queuedTimes(at: path, for: Self.mqtt) == [fixes[1].time])
        }
    }

    @Test func readingTheOutboxOrReachingTheLimitCommitsThem() async throws {
        try await Self.withOutboxFile { path in
            let outbox = try Outbox(path: path)
            let fixes = track(Outbox.deferredRemovalLimit + 2)
            let messages = try fixes.map { try outbox.append($0, for: [Self.mqtt]) }
            try outbox.acknowledge([messages[0].id], for: Self.mqtt, destinations: 1)
            // A read commits first: it never returns an acknowledged position.
            #expect(try outbox.next(for: Self.mqtt, order: .oldestFirst)?.time == fixes[1].time)
            #expect(try Self.timesInFile(at: path, for: Self.mqtt).first == fixes[1].time)
            // The limit: the acknowledgement that reaches it commits them all.
            let batch = messages[1...Outbox.deferredRemovalLimit].map(\.id)
            try outbox.acknowledge(Array(batch.dropLast()), for: Self.mqtt, destinations: 1)
            #expect(try Self.timesInFile(at: path, for: Self.mqtt).count == fixes.count - 1)
            try outbox.acknowledge([batch.last!], for: Self.mqtt, destinations: 1)
            #expect(try Self.queuedTimes(at: path, for: Self.mqtt) == [fixes.last!.time])
        }
    }

    @Test func aPositionForTwoDestinationsGoesOnlyWhenBothAcknowledged() async throws {
        try await Self.withOutboxFile { path in
            let outbox = try Outbox(path: path)
            let http = "https://server"
            let message = try outbox.append(track(1)[0], for: [Self.mqtt, http])
            try outbox.acknowledge([message.id], for: Self.mqtt, destinations: 2)
            #expect(outbox.quickSummary().count == 1)
            try outbox.acknowledge([message.id], for: http, destinations: 2)
            #expect(outbox.quickSummary().count == 0)
            try outbox.commitDeferredRemovals()
            #expect(try Outbox(path: path).count() == 0)
        }
    }

    @Test func releasingTheOutboxCommitsThem() async throws {
        try await Self.withOutboxFile { path in
            do {
                let outbox = try Outbox(path: path)
                let message = try outbox.append(track(1)[0], for: [Self.mqtt])
                try outbox.acknowledge([message.id], for: Self.mqtt, destinations: 1)
            }
            #expect(try Outbox(path: path).count() == 0)
        }
    }

    /// Live positions through a publisher: after a crash the next run sends nothing again (the
    /// last removal, still uncommitted in the file, is in the journal) and misses nothing; a
    /// drain's end commits the removals.
    @Test func aCrashAfterLiveDeliveriesResendsOnlyAppendedPositionsAndLosesNone() async throws {
        try await Self.withOutboxFile { path in
            let destination = FakeDestination()
            let source = FakeLocationSource()
            let outbox = try Outbox(path: path)
            let publisher = LocationPublisher(source: source, outbox: outbox, destinations: [destination], clock: StepClock())
            let running = Task { await publisher.run() }
            await source.waitUntilStarted()
            let fixes = track(8)
            for (index, fix) in fixes.enumerated() {
                await publisher.waitUntilCaughtUp(destination.name)
                source.send(.location(fix))
                await publisher.waitForStatus { $0.sent == index + 1 }
            }
            #expect(publisher.status.queued == 0)
            // The crash: what the next run would find.
            let found = try Self.queuedTimes(at: path, for: destination.name)
            let delivered = destination.state.withLock { $0.delivered.map(\.time) }
            #expect(delivered == fixes.compactMap(\.time))
            // Each removal went with the next append: only the last one waits in the file, and the
            // journal takes it away before the next run reads.
            #expect(try Self.timesInFile(at: path, for: destination.name) == [fixes[7].time])
            #expect(found.isEmpty)
            let end = await publisher.drain(timeout: .seconds(30))
            await running.value
            #expect(end.queued == 0)
            #expect(try Self.queuedTimes(at: path, for: destination.name).isEmpty)
        }
    }

    /// The race behind a position sent twice into a destination that never failed: an append took
    /// the acknowledged removals out to commit them before its transaction began, and a read on
    /// the sender's thread that came in between found the acknowledged position still pending
    /// (the outbox's `appendWillBegin` is that moment). Now the append takes them inside its
    /// transaction, and the read commits them itself.
    @Test func aReadBetweenAnAppendAndItsCommitNeverGetsAnAcknowledgedPosition() async throws {
        try await Self.withOutboxFile { path in
            let outbox = try Outbox(path: path)
            let fixes = track(2)
            let first = try outbox.append(fixes[0], for: [Self.mqtt])
            try outbox.acknowledge([first.id], for: Self.mqtt, destinations: 1)
            let read = Locked<[Int64]?>(nil)
            outbox.appendWillBegin.withLock { hook in
                hook = { read.withLock { $0 = (try? outbox.next(for: Self.mqtt, order: .oldestFirst, limit: 20))?.map(\.id) } }
            }
            try outbox.append(fixes[1], for: [Self.mqtt])
            #expect(read.withLock { $0 } == [], "the read between found the acknowledged position \(first.id)")
            #expect(try outbox.next(for: Self.mqtt, order: .oldestFirst, limit: 20).map(\.time) == [fixes[1].time])
        }
    }

    @Test func aRunEndedWithoutADrainCommitsTheRemovals() async throws {
        try await Self.withOutboxFile { path in
            let destination = FakeDestination()
            let source = FakeLocationSource()
            let publisher = LocationPublisher(source: source, outbox: try Outbox(path: path), destinations: [destination], clock: StepClock())
            let running = Task { await publisher.run() }
            await source.waitUntilStarted()
            await publisher.waitUntilCaughtUp(destination.name)
            for fix in track(3) { source.send(.location(fix)) }
            await publisher.waitForStatus { $0.sent == 3 }
            #expect(try !Self.timesInFile(at: path, for: destination.name).isEmpty)
            running.cancel()
            await running.value
            #expect(try Self.queuedTimes(at: path, for: destination.name).isEmpty)
        }
    }
}
