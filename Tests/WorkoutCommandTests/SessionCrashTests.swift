import Foundation
import Simulators
import Testing
import TestSupport
@testable import Workout

/// `workout record` killed with SIGKILL at moments through a replay: the store opens with
/// integrity, nothing shows before recovery, and recovery keeps every point the session had
/// written by then (it writes at most about a second behind the fixes).
@Suite("kill -9 while recording: the session is recovered", .serialized, .timeLimit(.minutes(3)))
struct SessionCrashTests {
    @Test(arguments: [5, 20, 40, 60, 85])
    func killedWhileRecording(afterPoints: Int) async throws {
        let folder = NSTemporaryDirectory() + "session-crash-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/workouts.sqlite"
        let walk = Repository.fixture("gpx/greenwich-walk.gpx").path
        let recorder = try ChildProcess(
            Repository.builtExecutable("workout").path,
            ["record", "--store", store, "--simulate", walk, "--speed", "20", "--activity", "walking", "--auto-lap", "100"])
        // Wait until the session has written that many points (it stages them as it goes).
        var written = 0
        var watcher: WorkoutStore?
        await waitUntil {
            if watcher == nil, FileManager.default.fileExists(atPath: store) { watcher = try? WorkoutStore(path: store) }
            written = (try? await watcher?.storageCounts().stagedPoints) ?? written
            return written >= afterPoints || recorder.exitStatus != nil
        }
        recorder.send(signal: SIGKILL)
        let status = await recorder.waitUntilExit()
        try #require(status == 128 + SIGKILL, "the recording ended before the kill: \(status) \(recorder.lines(.error))")

        let reopened = try WorkoutStore(path: store)
        #expect(try await reopened.checkIntegrity() == [])
        #expect(try await reopened.workouts().isEmpty, "nothing shows before recovery")
        let sessions = try await reopened.interruptedSessions()
        #expect(sessions.count == 1)
        let session = try #require(sessions.first)
        #expect(session.points >= written, "every point written before the kill is there")
        let workout = try #require(try await reopened.end(session))
        #expect(try await reopened.workouts().map(\.id) == [workout.id])
        #expect(try await reopened.route(of: workout.id)?.pointCount == session.points)
        #expect(try await reopened.interruptedSessions().isEmpty)
        let counts = try await reopened.storageCounts()
        #expect(counts.stagedPoints + counts.stagedRoutes + counts.stagedWorkouts == 0)
    }
}
