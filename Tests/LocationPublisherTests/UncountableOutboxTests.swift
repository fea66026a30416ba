import Foundation
import GRDB
import LocationPublisher
import SimulatorsCore
import Testing

extension PublisherTests {
    /// An outbox that cannot be counted when the publisher is made (a damaged file) is said at
    /// once, in the status, as a failed append is: it used to be passed over without a word, and
    /// what it held taken for no backlog.
    @Test func anOutboxThatCannotBeCountedIsSaidAtOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("outbox.sqlite").path
        let outbox = try Outbox(path: path)
        try DatabaseQueue(path: path).writeWithoutTransaction { db in try db.execute(sql: "DROP TABLE pending") }
        let destination = FakeDestination()
        let publisher = LocationPublisher(source: Self.silentSource(), outbox: outbox, destinations: [destination], clock: StepClock())
        let said = publisher.status.outboxError
        #expect(said == .databaseFailed(operation: "counting the queued positions", path: path, reason: "no such table: pending"), "\(String(describing: said))")
    }
}
