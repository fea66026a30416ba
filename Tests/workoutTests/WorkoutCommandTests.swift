import Testing

@testable import workout

@Suite struct WorkoutCommandTests {
    @Test func commandNameIsWorkout() {
        #expect(WorkoutCommand.configuration.commandName == "workout")
    }
}
