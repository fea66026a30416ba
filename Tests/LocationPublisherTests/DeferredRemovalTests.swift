import Foundation
import GPSCore
import LocationCore
@testable import LocationPublisher
import SimulatorsCore
import Testing

/// A delivered live position's removal is committed with the next append (or at a drain's end),
/// not on its own: a crash before that commit sends it again, and loses nothing. Each "crash" here
/// is a second outbox opened on the same file while the first still holds its removals in memory:
/// what the next run would find.
@Suite(.timeLimit(.minutes(1))) struct DeferredRemovalTests {
    static let mqtt = "mqtt://broker"

    /// A fresh folder for an outbox file, removed at the end.
    static func withOutboxFile(_ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder.path + "/outbox.sqlite")
    }

    /// The times of the positions the next run would find for `destination`.
    static func queuedTimes(at path: String, for destination: String) throws -> [Date] {
        let reopened = try Outbox(path: path)
        return try reopened.next(for: destination, order: .oldestFirst, limit: 1_000).map(\.time)
    }

    @Test func anAcknowledgedRemovalIsCommittedWithTheNextAppend() async throws {
        try await Self.withOutboxFile { path in
            let outbox = try Outbox(path: path)
            let fixes = track(3)
            let first = try outbox.append(fixes[0], for: [Self.mqtt])
            try outbox.acknowledge([first.id], for: Self.mqtt, destinations: 1)
            // Gone from the counts at once, still in the file.
            #expect(outbox.quickSummary().count == 0)
            #expect(try Self.queuedTimes(at: path, for: Self.mqtt) == [fixes[0].time])
            // The next append commits it in its own transaction.
            try outbox.append(fixes[1], for: [Self.mqtt])
            #expect(try Self.queuedTimes(at: path, for: Self.mqtt) == [fixes[1].time])
            #expect(outbox.quickSummary().count == 1)
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
            #expect(try Self.queuedTimes(at: path, for: Self.mqtt).first == fixes[1].time)
            // The limit: the acknowledgement that reaches it commits them all.
            let batch = messages[1...Outbox.deferredRemovalLimit].map(\.id)
            try outbox.acknowledge(Array(batch.dropLast()), for: Self.mqtt, destinations: 1)
            #expect(try Self.queuedTimes(at: path, for: Self.mqtt).count == fixes.count - 1)
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

    /// Live positions through a publisher: after a crash the next run re-sends only positions
    /// that were appended and delivered (at most the last few), and nothing is missing; a drain's
    /// end commits the removals.
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
            // Each removal went with the next append: only the last one waits.
            #expect(found == [fixes[7].time])
            #expect(Set(found).isSubset(of: Set(delivered)))
            // Nothing lost: every position was delivered, or is still in the file.
            #expect(Set(delivered).union(found) == Set(fixes.compactMap(\.time)))
            let end = await publisher.drain(timeout: .seconds(30))
            await running.value
            #expect(end.queued == 0)
            #expect(try Self.queuedTimes(at: path, for: destination.name).isEmpty)
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
            #expect(try !Self.queuedTimes(at: path, for: destination.name).isEmpty)
            running.cancel()
            await running.value
            #expect(try Self.queuedTimes(at: path, for: destination.name).isEmpty)
        }
    }
}
