import Foundation
import Testing
import Workout
@testable import WorkoutCommand

/// The keys of `workout record` on a terminal: space pauses or resumes, `l` ends a lap, and a
/// press the session refuses is said to the rider (it was ignored, and a pause that did not
/// happen looked like one that did).
@Suite struct SessionKeysTests {
    @Test func aPressTheSessionRefusesIsSaid() async throws {
        let session = WorkoutSession(
            store: try WorkoutStore.inMemory(), samples: [], configuration: .init(activityType: .cycling),
            now: { Date(timeIntervalSince1970: 1_700_000_000) })
        #expect(SessionKeys.press(UInt8(ascii: " "), on: session) == "Cannot pause a workout session that is not started.")
        #expect(SessionKeys.press(UInt8(ascii: "l"), on: session) == "Cannot lap a workout session that is not started.")
        #expect(SessionKeys.press(UInt8(ascii: "x"), on: session) == nil, "not a key of the session's")
        try session.start()
        #expect(SessionKeys.press(UInt8(ascii: " "), on: session) == nil)
        #expect(session.state == .paused)
        #expect(SessionKeys.press(UInt8(ascii: " "), on: session) == nil)
        #expect(session.state == .running)
        #expect(SessionKeys.press(UInt8(ascii: "L"), on: session) == nil)
        try await session.discard()
        #expect(SessionKeys.press(UInt8(ascii: " "), on: session) == "Cannot pause a workout session that is discarded.")
    }
}
