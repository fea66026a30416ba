@testable import LocationCore
import Testing

/// The manager's source machine driven alone: no clock, lock, thread or source; times are given.
@Suite struct SourceMachineTests {
    private static let grace = Duration.seconds(5)

    /// The machine and what its last event asked for, as words (tasks have no equality).
    private struct Driven {
        var machine = SourceMachine()

        mutating func wanted(_ wanted: Bool, lingers: Bool = true, grace: Duration = SourceMachineTests.grace, at now: Duration = .zero) -> [String] {
            Self.names(machine.wanted(wanted, lingers: lingers, gracePeriod: grace, now: now))
        }

        /// Whether the source runs or lingers.
        var isStarted: Bool {
            if case .stopped = machine.phase { false } else { true }
        }

        mutating func graceEnded(_ token: UInt64) -> [String] {
            Self.names(machine.graceEnded(token: token))
        }

        static func names(_ actions: [SourceAction]) -> [String] {
            actions.map {
                switch $0 {
                case .start: "start"
                case .stop: "stop"
                case .requestLatestFix: "poll"
                case let .startGraceTimer(token, until): "grace \(token) until \(until)"
                case .cancel: "cancel"
                }
            }
        }
    }

    private static let refused = LocationError.unreachable(host: "gpsd", port: 2947, reason: "refused")

    @Test func theFirstWaiterStartsItAndTheLastLeavesItLingeringUntilItsTimerEnds() {
        var driven = Driven()
        let first = driven.wanted(true, at: .seconds(1))
        let second = driven.wanted(true, at: .seconds(2))
        let last = driven.wanted(false, at: .seconds(3))
        #expect(first == ["start"] && second == [] && last == ["grace 1 until 8.0 seconds"])
        guard case .lingering(1, nil, false) = driven.machine.phase else { Issue.record("\(driven.machine.phase)"); return }
        let kept = driven.machine.graceTimerStarted(Task {}, token: 1)
        let otherTimer = driven.graceEnded(2)
        let itsTimer = driven.graceEnded(1)
        let again = driven.graceEnded(1)
        #expect(kept && otherTimer == [] && itsTimer == ["stop"] && again == [])
        #expect(!driven.isStarted)
    }

    @Test func aWaiterWithinTheGracePeriodFindsItRunningAndItsTimerCancelled() {
        var driven = Driven()
        _ = driven.wanted(true)
        _ = driven.wanted(false)
        let kept = driven.machine.graceTimerStarted(Task {}, token: 1)
        let comeBack = driven.wanted(true, at: .seconds(1))
        let oldTimer = driven.graceEnded(1)
        let late = driven.machine.graceTimerStarted(Task {}, token: 1)
        #expect(kept && comeBack == ["cancel"] && oldTimer == [], "no second start; the old timer stops nothing")
        #expect(!late, "a timer made late for a lingering that ended is not kept")
    }

    @Test func withNoGracePeriodOrAfterAFailureForGoodItStopsAtOnce() {
        var driven = Driven()
        _ = driven.wanted(true, grace: .zero)
        let noGrace = driven.wanted(false, grace: .zero)
        _ = driven.wanted(true)
        let forGood = driven.wanted(false, lingers: false)
        _ = driven.wanted(true)
        _ = driven.wanted(false)
        let kept = driven.machine.graceTimerStarted(Task {}, token: 1)  // the first lingering: the stops before it made none
        let lingeringForGood = driven.wanted(false, lingers: false)
        #expect(noGrace == ["stop"] && forGood == ["stop"] && kept && lingeringForGood == ["cancel", "stop"])
    }

    @Test func anUnreachableSourceFailsWaitersAtOnceOnlyBeforeItConnectedSinceItsStart() {
        var driven = Driven()
        _ = driven.wanted(true)
        let beforeConnecting = driven.machine.failed(Self.refused)
        #expect(beforeConnecting && driven.machine.lastError != nil)
        driven.machine.connectionChanged(connected: true)
        let afterConnecting = driven.machine.failed(.unreachable(host: "gpsd", port: 2947, reason: "lost"))
        let refusal = driven.machine.failed(.notAuthorized(service: "GeoClue", reason: "no"))
        #expect(!afterConnecting, "it connected once: left to its reconnects")
        #expect(refusal, "a refusal fails them whenever it comes")

        // Lost while lingering, then wanted again: as if started now, with no connection.
        driven.machine.connectionChanged(connected: false)
        _ = driven.wanted(false)
        _ = driven.wanted(true)
        #expect(driven.machine.lastError == nil, "a start forgets the last error")
        let lostWhileLingering = driven.machine.failed(Self.refused)
        // Connected while lingering, then wanted again: it has connected.
        _ = driven.wanted(false)
        driven.machine.connectionChanged(connected: true)
        _ = driven.wanted(true)
        let connectedWhileLingering = driven.machine.failed(Self.refused)
        #expect(lostWhileLingering && !connectedWhileLingering)
    }

    @Test func aRestartForgetsTheConnectionOfTheRunBefore() {
        var driven = Driven()
        _ = driven.wanted(true, grace: .zero)
        driven.machine.connectionChanged(connected: true)
        _ = driven.wanted(false, grace: .zero)
        driven.machine.connectionChanged(connected: false)
        _ = driven.wanted(true, grace: .zero)
        let fails = driven.machine.failed(Self.refused)
        #expect(fails)
    }

    @Test func shuttingDownSaysWhetherItWasStartedAndGivesTheGraceTimer() {
        var driven = Driven()
        let never = driven.machine.shutDown()
        _ = driven.wanted(true)
        _ = driven.wanted(false)
        let kept = driven.machine.graceTimerStarted(Task {}, token: 1)
        let lingering = driven.machine.shutDown()
        #expect(!never.wasStarted && never.timer == nil)
        #expect(kept && lingering.wasStarted && lingering.timer != nil && !driven.isStarted)
    }
}

/// The queue of things done outside a lock in order, by one caller at a time, driven alone.
@Suite struct InOrderQueueTests {
    @Test func oneCallerHasTheTurnAndTakesWhatOthersQueuedMeanwhile() {
        var queue = InOrderQueue<Int>()
        let nothingToDo = queue.beginTurn()
        queue.append(1)
        let first = queue.beginTurn()
        queue.append(2)
        let another = queue.beginTurn()
        #expect(!nothingToDo && first && !another, "another caller leaves its element to the one in turn")
        let one = queue.next()
        queue.append(contentsOf: [3, 4])
        let two = queue.next()
        let rest = queue.nextBatch()
        let end = queue.next()
        #expect(one == 1 && two == 2 && rest == [3, 4] && end == nil)
        queue.append(5)
        let next = queue.beginTurn()
        let five = queue.nextBatch()
        let ended = queue.nextBatch()
        #expect(next && five == [5] && ended == nil, "the turn ended, so the next caller has it")
    }
}
