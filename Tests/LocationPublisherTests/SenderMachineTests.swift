import Foundation
@testable import LocationPublisher
import Testing

/// The publisher's sender machine driven alone: no outbox, destination, clock or task.
@Suite struct SenderMachineTests {
    private static func message(_ id: Int64) -> PositionMessage {
        var message = PositionMessage(id: id, time: Date(timeIntervalSince1970: Double(id)), latitude: 1, longitude: 2, trigger: .ping)
        message.createdAt = Date(timeIntervalSince1970: 0)  // the same message each time it is made
        return message
    }

    @Test func aSenderReadsUntilItFindsNothingThenIsHandedEachPositionAppended() {
        var machine = SenderMachine(destinations: ["broker", "server"], batchSize: 3)
        let first = machine.beginRound("broker")
        #expect(!first.caughtUp && first.handed.isEmpty, "it reads the outbox first: a backlog may wait")
        machine.appended(Self.message(1))
        #expect(machine.phases["broker"] == .reading, "a position appended while it reads is read from the outbox")
        machine.foundNothing("broker")
        #expect(machine.phases["broker"] == .waiting && !machine.allWaiting, "the other still reads")
        machine.foundNothing("server")
        #expect(machine.allWaiting)
        machine.appended(Self.message(2))
        machine.appended(Self.message(3))
        let round = machine.beginRound("broker")
        #expect(round.caughtUp && round.handed.map(\.id) == [2, 3])
        let next = machine.beginRound("broker")
        #expect(next.caughtUp && next.handed.isEmpty, "handed once")
        #expect(machine.phases["server"] == .caughtUp(handed: [Self.message(2), Self.message(3)]))
    }

    @Test func aSenderABatchBehindReadsTheOutboxAgainAndOneThatFailsToo() {
        var machine = SenderMachine(destinations: ["broker"], batchSize: 2)
        machine.foundNothing("broker")
        for id: Int64 in 1...2 { machine.appended(Self.message(id)) }
        #expect(machine.phases["broker"] == .caughtUp(handed: [Self.message(1), Self.message(2)]))
        machine.appended(Self.message(3))
        #expect(machine.phases["broker"] == .reading, "a batch behind: the outbox has them in order")
        machine.foundNothing("broker")
        machine.appended(Self.message(4))
        machine.failed("broker")
        let round = machine.beginRound("broker")
        #expect(!round.caughtUp && round.handed.isEmpty, "what was handed is in the outbox, read after the backoff")
    }

    @Test func aPositionHeldInMemoryIsSentFirstAndTheOneItReplacesCountsAsDropped() {
        var machine = SenderMachine(destinations: ["broker", "server"], batchSize: 20)
        machine.foundNothing("broker")
        machine.heldInMemory(Self.message(-1))
        machine.heldInMemory(Self.message(-2))
        #expect(machine.droppedInMemory == 2, "one replaced for each destination")
        let round = machine.beginRound("broker")
        #expect(!round.caughtUp && round.held?.id == -2)
        machine.foundNothing("broker")
        #expect(machine.phases["broker"] == .reading, "not waiting while a position is held for it")
        machine.delivered(-1, to: "broker")
        #expect(machine.held["broker"]?.id == -2, "an older id is not the one held")
        machine.delivered(-2, to: "broker")
        machine.foundNothing("broker")
        #expect(machine.phases["broker"] == .waiting && machine.held["broker"] == nil && !machine.allWaiting)
        machine.delivered(-2, to: "server")
        machine.foundNothing("server")
        #expect(machine.allWaiting)
    }

    @Test func anUnknownDestinationChangesNothing() {
        var machine = SenderMachine(destinations: ["broker"], batchSize: 20)
        machine.foundNothing("elsewhere")
        machine.failed("elsewhere")
        #expect(machine.phases == ["broker": .reading])
    }
}
