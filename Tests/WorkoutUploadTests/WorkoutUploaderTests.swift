import Foundation
import GPSCore
import Testing
import Workout
import WorkoutSimulators
@testable import WorkoutUpload

/// The upload queue's promise, on a server model of the test's own that can fail at every step:
/// a workout queued is never lost and never arrives twice, whatever broke when.
@Suite struct WorkoutUploaderTests {
    /// A server that keeps what it got, and fails as told: before it reads the file, after it
    /// kept it (the answer lost), or by refusing.
    final class Server: WorkoutUploadDestination {
        enum Fault: Sendable { case unreachableBefore, lostAnswerAfterKeeping, refusesAsData, refusesCredentials, rateLimited }
        struct State: Sendable {
            var kept: [UUID] = []
            var sends = 0
            var finds = 0
            var faults: [Fault] = []
        }
        let name = "test://server"
        let state = Locked(State())

        func file(for workout: WorkoutRecord, in store: WorkoutStore) async throws -> UploadFile {
            UploadFile(format: "gpx", data: try await store.exportData(workout.id, format: .gpx))
        }

        func send(_ file: UploadFile, of workout: WorkoutRecord) async throws(UploadError) -> UploadOutcome {
            let fault = state.withLock { state -> Fault? in
                state.sends += 1
                return state.faults.isEmpty ? nil : state.faults.removeFirst()
            }
            switch fault {
            case .unreachableBefore?: throw .unreachable(reason: "no route to host", mayHaveArrived: false)
            case .lostAnswerAfterKeeping?:
                state.withLock { $0.kept.append(workout.id) }
                throw .unreachable(reason: "connection reset after the upload", mayHaveArrived: true)
            case .refusesAsData?: throw .refused(reason: "no tracks in gpx file")
            case .refusesCredentials?: throw .refusedCredentials(reason: "invalid token")
            case .rateLimited?: throw .rateLimited(until: Date(timeIntervalSince1970: 2_000_000_000), reason: "429")
            case nil:
                state.withLock { $0.kept.append(workout.id) }
                return .done(RemoteWorkout(id: "r-\(workout.id.uuidString.prefix(4))"))
            }
        }

        func find(_ workout: WorkoutRecord) async throws(UploadError) -> RemoteWorkout? {
            state.withLock { state in
                state.finds += 1
                return state.kept.contains(workout.id) ? RemoteWorkout(id: "r-\(workout.id.uuidString.prefix(4))") : nil
            }
        }
    }

    /// A store holding `count` runs, each queued for `server`.
    static func queued(_ count: Int, for server: Server) async throws -> (WorkoutStore, [UUID]) {
        let store = try WorkoutStore.inMemory()
        var ids: [UUID] = []
        for index in 0..<count {
            let run = SyntheticRun(index: index, points: 20)
            _ = try await store.saveWorkout(run.workout, samples: run.samples, route: run.route)
            try await store.enqueueUpload(of: run.workout.id, to: server.name, at: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
            ids.append(run.workout.id)
        }
        return (store, ids)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func uploader(_ store: WorkoutStore, _ server: Server, at now: Date = WorkoutUploaderTests.now) -> WorkoutUploader {
        WorkoutUploader(store: store, destination: server, now: { now }, pause: { _ in })
    }

    @Test func everyQueuedWorkoutArrivesOnce() async throws {
        let server = Server()
        let (store, ids) = try await Self.queued(3, for: server)
        let report = try await uploader(store, server).run()
        #expect(report.done.map(\.workoutID) == ids && report.waiting.isEmpty && report.refused.isEmpty)
        #expect(server.state.withLock { $0.kept } == ids)
        #expect(try await store.uploads().allSatisfy { $0.state == .done && $0.attempts == 1 && $0.remoteID != nil && $0.format == "gpx" })
        let again = try await uploader(store, server).run()
        #expect(again.done.isEmpty && server.state.withLock { $0.sends } == 3, "a done entry is never sent again")
    }

    /// The answer lost after the server kept the file: the entry stays `sending`, and the next run
    /// finds it at the server instead of sending it again.
    @Test func aLostAnswerIsAskedAboutNotSentAgain() async throws {
        let server = Server()
        server.state.withLock { $0.faults = [.lostAnswerAfterKeeping] }
        let (store, ids) = try await Self.queued(1, for: server)
        let first = try await uploader(store, server).run()
        #expect(first.waiting.map(\.state) == [.sending])
        #expect(first.waiting.first?.nextAttempt == Self.now.addingTimeInterval(30))
        let early = try await uploader(store, server, at: Self.now.addingTimeInterval(29)).run()
        #expect(early.waiting.count == 1 && server.state.withLock { $0.finds } == 0, "not before its back-off")
        let second = try await uploader(store, server, at: Self.now.addingTimeInterval(30)).run()
        #expect(second.foundAtServer.map(\.workoutID) == ids && second.done.count == 1)
        #expect(server.state.withLock { ($0.kept, $0.sends, $0.finds) } == (ids, 1, 1))
    }

    /// A failure before the file went out leaves the entry pending, not asked about.
    @Test func aFailureBeforeTheFileWentOutIsSentAgain() async throws {
        let server = Server()
        server.state.withLock { $0.faults = [.unreachableBefore] }
        let (store, ids) = try await Self.queued(1, for: server)
        let first = try await uploader(store, server).run()
        #expect(first.waiting.map(\.state) == [.pending] && first.waiting.first?.lastError == "no route to host")
        let second = try await uploader(store, server, at: Self.now.addingTimeInterval(3_600)).run()
        #expect(second.done.map(\.workoutID) == ids && second.foundAtServer.isEmpty)
        #expect(server.state.withLock { ($0.kept, $0.sends, $0.finds) } == (ids, 2, 0))
        #expect(try await store.uploads().first?.attempts == 2)
    }

    /// A process that died between marking the entry and the server's answer: a crash leaves
    /// `sending`, whichever side of the upload it died on; the next run asks, and sends only what
    /// the server has not.
    @Test(arguments: [true, false])
    func aCrashMidUploadLosesNothingAndSendsNothingTwice(serverKeptIt: Bool) async throws {
        let server = Server()
        let (store, ids) = try await Self.queued(1, for: server)
        var entry = try #require(try await store.uploads().first)
        entry.state = .sending
        entry.attempts = 1
        try await store.updateUpload(entry)
        if serverKeptIt { server.state.withLock { $0.kept = ids } }
        let report = try await uploader(store, server).run()
        #expect(report.done.map(\.workoutID) == ids)
        #expect(server.state.withLock { $0.kept } == ids, "once at the server")
        #expect(server.state.withLock { $0.sends } == (serverKeptIt ? 0 : 1))
    }

    /// Refused as data: kept as refused with the reason, and the others still go. Refused
    /// credentials stop the run with the rest kept; a rate limit waits for its window.
    @Test func refusalsAreKeptAndStopWhatTheyShould() async throws {
        let server = Server()
        server.state.withLock { $0.faults = [.refusesAsData] }
        let (store, ids) = try await Self.queued(3, for: server)
        let report = try await uploader(store, server).run()
        #expect(report.refused.map(\.workoutID) == [ids[0]] && report.refused.first?.lastError == "no tracks in gpx file")
        #expect(report.done.map(\.workoutID) == Array(ids[1...]))

        let (other, otherIDs) = try await Self.queued(3, for: server)
        server.state.withLock { $0.faults = [.refusesCredentials] }
        let stopped = try await uploader(other, server).run()
        #expect(stopped.credentialsRefused == "invalid token" && stopped.done.isEmpty)
        #expect(stopped.waiting.map(\.workoutID) == otherIDs, "every entry kept")
        #expect(try await other.uploads().map(\.state) == [.pending, .pending, .pending])

        server.state.withLock { $0.faults = [.rateLimited] }
        let limited = try await uploader(other, server).run()
        #expect(limited.done.isEmpty && limited.waiting.count == 3)
        #expect(try await other.uploads().map(\.nextAttempt) == Array(repeating: Date(timeIntervalSince1970: 2_000_000_000), count: 3),
                "the window is the destination's: every entry waits for it, not only the one that met it")
        let sends = server.state.withLock { $0.sends }
        let early = try await uploader(other, server).run()
        #expect(early.waiting.count == 3 && server.state.withLock { $0.sends } == sends, "nothing sent before the window ends")

        // Queued again, a refused entry starts over; a done one stays done.
        try await store.enqueueUpload(of: ids[0], to: server.name)
        try await store.enqueueUpload(of: ids[1], to: server.name)
        #expect(try await store.uploads().map(\.state) == [.pending, .done, .done])
    }

    /// A workout deleted takes its queue entries with it.
    @Test func aDeletedWorkoutLeavesTheQueue() async throws {
        let server = Server()
        let (store, ids) = try await Self.queued(2, for: server)
        try await store.deleteWorkout(id: ids[0])
        #expect(try await store.uploads().map(\.workoutID) == [ids[1]])
        await #expect(throws: WorkoutStoreError.self) { try await store.enqueueUpload(of: ids[0], to: server.name) }
    }
}
