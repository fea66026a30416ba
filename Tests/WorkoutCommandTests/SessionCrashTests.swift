import Foundation
import Simulators
import Testing
import TestSupport
@testable import Workout

/// `workout record` from the fake gpsd, killed with SIGKILL at 20 moments through the walk
/// (drawn once from a fixed seed, so every run kills at the same ones): the store opens with
/// integrity, nothing shows before recovery, and recovery keeps every fix the fake sent. The fake
/// sends the walk up to the moment and then nothing more, keeping the connection, so the kill comes
/// once the recorder has written what it got, however loaded the machine (the session writes
/// within about a second of the session's clock: `SessionWritingTests` hold it to that on a
/// virtual clock). A test that raced the fake's real-time replay ended, on a busy machine, after
/// the recording had.
@Suite("kill -9 while recording: the session is recovered", .timeLimit(.minutes(5)))
struct SessionCrashTests {
    static let walk = Fixtures.greenwichWalk().fixes
    /// The fake plays the walk (a fix a second) this many times faster than it was recorded.
    static let speed = 10.0
    static let moments: [Int] = {
        var random = SeededRandom(seed: 20_261_125)
        return (0..<20).map { _ in Int.random(in: 2..<(walk.count - 5), using: &random) }
    }()

    @Test(arguments: moments)
    func killedWhileRecording(afterPoints: Int) async throws {
        let folder = NSTemporaryDirectory() + "session-crash-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/workouts.sqlite"
        let sent = afterPoints + 1
        let gpsd = FakeGPSDServer(script: .fixes(Array(Self.walk.prefix(sent))), pace: .recorded(speed: Self.speed))
        let port = try gpsd.start()
        defer { gpsd.shutdown() }
        let recorder = try ChildProcess(
            Repository.builtExecutable("workout").path,
            ["record", "127.0.0.1:\(port)", "--store", store, "--activity", "walking", "--auto-lap", "100", "--heart-rate-simulate", "7"])
        // Wait until the session has written every point the fake sent (it stages them as it goes;
        // the last once a second of the session's clock shows no next one comes).
        var written = 0
        var watcher: WorkoutStore?
        await waitUntil {
            if watcher == nil, FileManager.default.fileExists(atPath: store) { watcher = try? WorkoutStore(path: store) }
            written = (try? await watcher?.storageCounts().stagedPoints) ?? written
            return written >= sent || recorder.exitStatus != nil
        }
        #expect(gpsd.status.sentReports == sent)
        recorder.send(signal: SIGKILL)
        let status = await recorder.waitUntilExit()
        try #require(status == 128 + SIGKILL, "the recording ended before the kill: \(status) \(recorder.lines(.error))")

        let reopened = try WorkoutStore(path: store)
        #expect(try await reopened.checkIntegrity() == [])
        #expect(try await reopened.workouts().isEmpty, "nothing shows before recovery")
        let sessions = try await reopened.interruptedSessions()
        #expect(sessions.count == 1)
        let session = try #require(sessions.first)
        #expect(session.points == sent, "every fix sent, written before the kill, is there: \(session.points) of \(sent)")
        let workout = try #require(try await reopened.end(session))
        #expect(try await reopened.workouts().map(\.id) == [workout.id])
        #expect(try await reopened.route(of: workout.id)?.pointCount == session.points)
        #expect(try await reopened.interruptedSessions().isEmpty)
        let counts = try await reopened.storageCounts()
        #expect(counts.stagedPoints + counts.stagedRoutes + counts.stagedWorkouts == 0)
    }
}
