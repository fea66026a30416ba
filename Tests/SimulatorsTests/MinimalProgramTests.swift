import Foundation
import Simulators
import Testing
import TestSupport

/// The README's minimal program, built as the `where-am-i` example, answers from a recording.
@Test(.timeLimit(.minutes(1))) func theMinimalProgramPrintsAPositionFromARecording() async throws {
    let walk = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Recordings/greenwich-walk.gpx")
    let program = try ChildProcess(Repository.builtExecutable("where-am-i").path, [walk.path])
    #expect(await program.waitUntilExit() == 0, "\(program.lines(.error))")
    #expect(program.lines() == ["51.477928 -0.001545 (simulated)"])
}
