import Foundation
import GRDB
import LocationCore
import LocationPublisher
import Testing
import TestSupport

@Suite struct OutboxTests {
    static let mqtt = "mqtt://broker"
    static let http = "https://server"

    @Test func theNewestGoesFirstThenTheBacklogInTimeOrder() throws {
        let outbox = try Outbox.inMemory()
        let fixes = track(5)
        for fix in fixes { try outbox.append(fix, for: [Self.mqtt]) }
        var order: [Date] = []
        while let message = try outbox.next(for: Self.mqtt) {
            order.append(message.time)
            try outbox.remove(message.id, for: Self.mqtt)
        }
        #expect(order == [fixes[4]] .compactMap(\.time) + fixes[0..<4].compactMap(\.time))
        // A live position after that is newer than any delivered: it goes at once.
        let live = track(1, from: 1_700_000_100)[0]
        try outbox.append(live, for: [Self.mqtt])
        #expect(try outbox.next(for: Self.mqtt)?.time == live.time)
    }

    @Test func theOtherOrdersAreWhatTheySay() throws {
        let outbox = try Outbox.inMemory()
        let fixes = track(3)
        for fix in fixes { try outbox.append(fix, for: [Self.mqtt]) }
        #expect(try outbox.next(for: Self.mqtt, order: .oldestFirst)?.time == fixes[0].time)
        #expect(try outbox.next(for: Self.mqtt, order: .newestFirst)?.time == fixes[2].time)
        #expect(try outbox.next(for: "elsewhere") == nil)
    }

    /// A batch read is what reading one at a time, removing each, would give, in every order;
    /// a batch removal takes exactly the ids it is given, in one go.
    @Test(arguments: DeliveryOrder.allCases)
    func aBatchIsTheOrderOneAtATimeWouldGive(order: DeliveryOrder) throws {
        let one = try Outbox.inMemory()
        let batched = try Outbox.inMemory()
        let fixes = track(7)
        for fix in fixes {
            try one.append(fix, for: [Self.mqtt])
            try batched.append(fix, for: [Self.mqtt])
        }
        var expected: [Date] = []
        while let message = try one.next(for: Self.mqtt, order: order) {
            expected.append(message.time)
            try one.remove(message.id, for: Self.mqtt)
        }
        var times: [Date] = []
        while true {
            let batch = try batched.next(for: Self.mqtt, order: order, limit: 3)
            if batch.isEmpty { break }
            #expect(batch.count == min(3, fixes.count - times.count))
            times += batch.map(\.time)
            try batched.remove(batch.map(\.id), for: Self.mqtt)
        }
        #expect(times == expected)
        #expect(Set(times).count == fixes.count)
        #expect(try batched.count() == 0)
    }

    @Test func aBatchRemovalLeavesWhatItWasNotGiven() throws {
        let outbox = try Outbox.inMemory()
        let messages = try track(4).map { try outbox.append($0, for: [Self.mqtt, Self.http]) }
        try outbox.remove([messages[0].id, messages[2].id, 9_999, -1], for: Self.mqtt)
        #expect(try outbox.count(for: Self.mqtt) == 2)
        #expect(try outbox.count(for: Self.http) == 4)
        #expect(try outbox.next(for: Self.mqtt, order: .oldestFirst, limit: 10).map(\.id) == [messages[1].id, messages[3].id])
        try outbox.remove(messages.map(\.id), for: Self.http)
        #expect(try outbox.count() == 2)
    }

    @Test func aPositionStaysUntilEveryDestinationHasIt() throws {
        let outbox = try Outbox.inMemory()
        let message = try outbox.append(track(1)[0], for: [Self.mqtt, Self.http])
        try outbox.remove(message.id, for: Self.mqtt)
        #expect(try outbox.count() == 1)
        #expect(try outbox.count(for: Self.mqtt) == 0)
        #expect(try outbox.next(for: Self.http)?.id == message.id)
        try outbox.remove(message.id, for: Self.http)
        #expect(try outbox.count() == 0)
        #expect(try outbox.summary().queued == 0)
    }

    @Test func aFullOutboxDropsTheOldestAndCountsThem() throws {
        let outbox = try Outbox.inMemory(capacity: 5)
        let fixes = track(8)
        for fix in fixes { try outbox.append(fix, for: [Self.mqtt]) }
        let summary = try outbox.summary()
        #expect(summary.queued == 5)
        #expect(summary.dropped == 3)
        #expect(summary.oldest == fixes[3].time)
        #expect(summary.newest == fixes[7].time)
        #expect(try outbox.next(for: Self.mqtt, order: .oldestFirst)?.time == fixes[3].time)
    }

    @Test func theFileIsPrivateAndKeepsItsQueueAcrossOpenings() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let state = base.appendingPathComponent("state").path
        let environment = ["XDG_STATE_HOME": state, "HOME": "/nonexistent"]
        let path = Outbox.defaultPath(environment: environment)
        #expect(path == state + "/swift-gps-facade/outbox.sqlite")
        do {
            let outbox = try Outbox(environment: environment, capacity: 2)
            for fix in track(3) { try outbox.append(fix, for: [Self.mqtt]) }
        }
        // Made by this process under its umask (022 here), yet only its owner can read them.
        #expect(FileModes.of(state) == 0o700)
        #expect(FileModes.of(state + "/swift-gps-facade") == 0o700)
        #expect(FileModes.of(path) == 0o600)
        #expect(FileModes.of(path + "-wal") == 0o600)
        let reopened = try Outbox(path: path, capacity: 2)
        #expect(try reopened.count() == 2)
        #expect(try reopened.summary().dropped == 1)
    }

    @Test func anotherProgramsDatabaseIsRefusedUntouched() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("notes.sqlite").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO note (text) VALUES ('keep me')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: OutboxError.self) { try Outbox(path: path) }
        #expect(error?.description.contains("not an outbox but another program's database (tables: note)") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let text = folder.appendingPathComponent("notes.txt").path
        try "not a database at all, but long enough to be read as one's header.........................".write(
            toFile: text, atomically: true, encoding: .utf8)
        let textBefore = try Data(contentsOf: URL(fileURLWithPath: text))
        #expect(throws: OutboxError.self) { try Outbox(path: text) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: text)) == textBefore)
    }

    @Test func aNewerVersionsOutboxIsRefusedUntouched() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("outbox.sqlite").path
        do {
            let outbox = try Outbox(path: path)
            try outbox.append(track(1)[0], for: [Self.mqtt])
        }
        // What a later version would write: its schema version 3 (and its WAL checkpointed).
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA user_version = 3")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: OutboxError.self) { try Outbox(path: path) }
        #expect(error?.description.contains("written by a newer version of swift-gps-facade (outbox version 3)") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// A version-1 outbox (positions only, from before transitions) is brought up to version 2
    /// when opened, its queue kept, and then holds transitions too.
    @Test func aVersionOneOutboxIsUpgradedWithItsQueue() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("outbox.sqlite").path
        let fix = track(1)[0]
        // Version 1's schema, as its code wrote it, with one position queued.
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TABLE message (id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, latitude REAL NOT NULL,
                    longitude REAL NOT NULL, altitude REAL, h_accuracy REAL, v_accuracy REAL, speed REAL, course REAL,
                    trigger TEXT NOT NULL, battery INTEGER, created_at REAL NOT NULL);
                CREATE INDEX message_by_time ON message (time, id);
                CREATE TABLE pending (destination TEXT NOT NULL, time REAL NOT NULL, message INTEGER NOT NULL,
                    PRIMARY KEY (destination, time, message)) WITHOUT ROWID;
                CREATE INDEX pending_by_message ON pending (message);
                CREATE TABLE delivered (destination TEXT PRIMARY KEY, time REAL NOT NULL);
                CREATE TABLE counter (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                INSERT INTO counter (name, value) VALUES ('dropped', 0);
                INSERT INTO message (time, latitude, longitude, trigger, created_at) VALUES (\(fix.time!.timeIntervalSince1970), 51.5, -0.1, 't', 0);
                INSERT INTO pending (destination, time, message) VALUES ('\(Self.mqtt)', \(fix.time!.timeIntervalSince1970), 1);
                PRAGMA application_id = \(0x4750_534F);
                PRAGMA user_version = 1;
                """)
        }
        let outbox = try Outbox(path: path)
        #expect(try outbox.next(for: Self.mqtt).map(\.time) == fix.time)
        var transition = PositionMessage(
            id: 0, location: fix, transition: RegionTransition(event: .leave, region: "harbour", regionCreatedAt: Date(timeIntervalSince1970: 1_600_000_000)))
        transition.time = fix.time!.addingTimeInterval(5)
        try outbox.append(&transition, for: [Self.mqtt])
        #expect(try outbox.next(for: Self.mqtt, order: .oldestFirst, limit: 5).map(\.transition) == [nil, transition.transition])
        let version = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == 2)
    }

    @Test func aMissingFolderIsNamed() {
        let error = #expect(throws: OutboxError.self) { try Outbox(path: "/nonexistent-folder/outbox.sqlite") }
        #expect(error?.description.contains("the folder /nonexistent-folder does not exist") == true)
    }
}
