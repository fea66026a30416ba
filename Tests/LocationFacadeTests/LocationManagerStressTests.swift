import Clocks
import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// A seeded randomized test of LocationManager: many scenarios, each an interleaving of requests,
/// fixes, no-fix reports, errors, disconnects, cancellations and clock steps. After every step it
/// checks that each call has returned at most once, never before it should and never after its
/// deadline; at the end, that every call returned and no continuation is left waiting.
///
/// A continuation resumed twice traps (the test process dies, failing the run); one leaked leaves a
/// call that never returns, which the end-of-scenario check reports as a failure rather than a hang.
///
/// Its time limit only stops a run that hangs outside the scenarios' own bounded waits: its
/// 10,000 scenarios take 41 s alone (24 s of it in the kernel, waking the pool's threads), and
/// took over 5 minutes in a fresh-clone run's parallel stage, shared with a whole package's tests,
/// and 13.6 minutes (818 s) once the upload tests and their stand-ins joined that stage beside the
/// ThreadSanitizer build; 704 s in another, the stage's last test by four minutes. It stays in the
/// parallel stage, where the ThreadSanitizer run takes it too (the stage of its own is not run
/// under TSan), in eight parts that run side by side.
@Suite("LocationManager under random interleavings", .timeLimit(.minutes(20)))
struct LocationManagerStressTests {
    /// Scenarios per run; under ThreadSanitizer (slower by an order of magnitude) fewer.
    static let scenarios = ProcessInfo.processInfo.environment["STRESS_SCENARIOS"].flatMap(Int.init) ?? 10_000

    /// The parts the scenarios are run in, side by side: one test of 10,000 scenarios one after
    /// the other was the last to end in the parallel stage (704 s in a fresh-clone run, where the
    /// next took 447 s), mostly waiting its turn on a core for each of its thread wakes. Under
    /// ThreadSanitizer its 1,000 run in one part, as before (172 s for that whole stage): in the run
    /// that tried eight there, they ended after 184 s and a test beside them ran past its limit.
    static let parts = ThreadSanitizer.isRunning ? 1 : 8

    /// Every scenario's seed, from one seeded sequence: the same scenarios whatever the parts.
    static let seeds: [UInt64] = {
        var random = SeededRandom(seed: 0x5EED_2026)
        return (0..<scenarios).map { _ in random.next() }
    }()

    @Test(arguments: 0..<parts)
    func everyCallReturnsExactlyOnceAndNeverAfterItsDeadline(part: Int) async throws {
        var operations = 0
        var calls = 0
        let mine = Array(stride(from: part, to: Self.scenarios, by: Self.parts))
        for scenario in mine {
            var scenarioRun = Scenario(seed: Self.seeds[scenario])
            let outcome = await scenarioRun.run()
            operations += outcome.operations
            calls += outcome.calls
            if !outcome.problems.isEmpty {
                Issue.record("scenario \(scenario): \(outcome.problems.joined(separator: "; "))")
                return
            }
        }
        // Each scenario makes at least one operation and, on the whole, more than one call.
        #expect(operations >= mine.count)
        #expect(calls > mine.count)
    }
}

private final class OutcomeLog: Sendable {
    let values = Locked<[Int: Scenario.Outcome]>([:])
}

/// One random scenario against a fresh manager, fake source and test clock.
private struct Scenario {
    struct Call {
        var criteria: (mode: FixMode, accuracy: Double?)
        var maximumAge: Duration?
        var deadline: Duration
        var cancelled = false
    }

    enum Outcome: Sendable {
        case fix(Location)
        case timedOut
        case unreachable
        case cancelled
        case other(String)
    }

    var random: SeededRandom
    /// Half the scenarios stand for gpsd, which reports epochs in parts: requests then hold fixes
    /// that lack what their mode gives, and wait for the rest of their epoch.
    let source: FakeLocationSource
    let clock = TestClock()
    let manager: LocationManager
    let start: TestClock<Duration>.Instant
    var calls: [Call] = []
    var tasks: [Task<Void, Never>] = []
    let outcomes = OutcomeLog()
    var checked: Set<Int> = []
    /// Latitudes of the fixes sent, with when, so a returned fix can be traced.
    var sent: [Double: Duration] = [:]
    var unreachableSent = false
    var problems: [String] = []
    var operations = 0

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
        source = FakeLocationSource(reportsEpochsInParts: seed % 2 == 0)
        manager = LocationManager(source: source, clock: clock)
        start = clock.now
    }

    var now: Duration { start.duration(to: clock.now) }

    mutating func run() async -> (operations: Int, calls: Int, problems: [String]) {
        let steps = Int(random.next() % 12) + 4
        for _ in 0..<steps {
            await step()
            operations += 1
            await settle()
            if !problems.isEmpty { break }
        }
        // Past every deadline, every call must have returned.
        await clock.advance(by: .seconds(11))
        await settle()
        for index in calls.indices where !checked.contains(index) {
            problems.append("call \(index) never returned (deadline \(calls[index].deadline), now \(now))")
        }
        if manager.waitingRequestCount != 0 {
            problems.append("\(manager.waitingRequestCount) continuations are still stored")
        }
        for task in tasks { task.cancel() }
        return (operations, calls.count, problems)
    }

    mutating func step() async {
        switch random.next() % 10 {
        case 0, 1, 2:
            await startCall()
        case 3, 4:
            let latitude = Double(sent.count + 1)
            let mode: FixMode = random.next() % 3 == 0 ? .fix2D : .fix3D
            let accuracy: Double? = random.next() % 4 == 0 ? nil : random.uniform(1, 30)
            sent[latitude] = now
            source.send(.location(Location(latitude: latitude, longitude: 0, horizontalAccuracy: accuracy, mode: mode)))
        case 5:
            source.send(.noFix(device: nil, time: nil))
        case 6:
            switch random.next() % 3 {
            case 0:
                unreachableSent = true
                source.send(.error(.unreachable(host: "h", port: 1, reason: "refused")))
            case 1:
                source.send(.error(.connectionLost(host: "h", port: 1, reason: "gpsd closed the connection")))
            default:
                source.send(.error(.malformedData(excerpt: "x", reason: "not a JSON object")))
            }
        case 7:
            let states: [ConnectionState] = [.connecting(attempt: 2), .waitingToReconnect(after: .seconds(1), attempt: 2), .watching]
            source.send(.connectionChanged(states[Int(random.next() % 3)]))
        case 8:
            if !tasks.isEmpty {
                let index = Int(random.next() % UInt64(tasks.count))
                calls[index].cancelled = true
                tasks[index].cancel()
            }
        default:
            let step = Duration.milliseconds(Int64(random.next() % 3000))
            await clock.advance(by: step)
        }
    }

    mutating func startCall() async {
        let timeout = Duration.milliseconds(Int64(random.next() % 10_000) + 1)
        let mode: FixMode = random.next() % 2 == 0 ? .fix2D : .fix3D
        let accuracy: Double? = random.next() % 2 == 0 ? nil : random.uniform(2, 20)
        let maximumAge: Duration? = random.next() % 3 == 0 ? .milliseconds(Int64(random.next() % 5000)) : nil
        let index = calls.count
        calls.append(Call(criteria: (mode, accuracy), maximumAge: maximumAge, deadline: now + timeout))
        let before = manager.waitingRequestCount
        let finishedBefore = outcomes.values.withLock { $0.count }
        let (manager, outcomes) = (self.manager, self.outcomes)
        tasks.append(Task {
            let outcome: Outcome
            do {
                let location = try await manager.requestLocation(
                    timeout: timeout, maximumAge: maximumAge, minimumMode: mode, desiredAccuracy: accuracy)
                outcome = .fix(location)
            } catch is CancellationError {
                outcome = .cancelled
            } catch LocationError.timedOut {
                outcome = .timedOut
            } catch LocationError.unreachable {
                outcome = .unreachable
            } catch {
                outcome = .other("\(error)")
            }
            outcomes.values.withLock { outcomes in
                precondition(outcomes[index] == nil, "call \(index) returned twice")
                outcomes[index] = outcome
            }
        })
        // Wait until the call is registered (waiting) or already answered (from the cache).
        await waitFor { manager.waitingRequestCount > before || outcomes.values.withLock { $0.count } > finishedBefore }
    }

    /// Waits until every call the manager has let go of has recorded its outcome, and every call
    /// whose deadline has passed has returned (its timer task may not have run yet), then checks them.
    mutating func settle() async {
        let manager = self.manager
        let outcomes = self.outcomes
        let expected = calls.count
        let due = Set(calls.indices.filter { calls[$0].deadline <= now })
        await waitFor {
            let finished = outcomes.values.withLock { $0 }
            return finished.count + manager.waitingRequestCount >= expected && due.isSubset(of: finished.keys)
        }
        let finished = outcomes.values.withLock { $0 }
        for (index, outcome) in finished where !checked.contains(index) {
            checked.insert(index)
            check(index, outcome)
        }
        for index in calls.indices where !checked.contains(index) && calls[index].deadline <= now {
            problems.append("call \(index) has not returned at \(now), after its deadline \(calls[index].deadline)")
        }
    }

    mutating func check(_ index: Int, _ outcome: Outcome) {
        let call = calls[index]
        switch outcome {
        case let .fix(location):
            if location.mode < call.criteria.mode {
                problems.append("call \(index) got a \(location.mode) fix but asked for \(call.criteria.mode)")
            }
            if let accuracy = call.criteria.accuracy, (location.horizontalAccuracy ?? .infinity) > accuracy {
                problems.append("call \(index) got accuracy \(location.horizontalAccuracy ?? .nan) but asked for \(accuracy)")
            }
            if let sentAt = sent[location.latitude], sentAt >= call.deadline {
                problems.append("call \(index) got a fix sent at \(sentAt), after its deadline \(call.deadline)")
            }
        case .timedOut:
            if now < call.deadline {
                problems.append("call \(index) timed out at \(now), before its deadline \(call.deadline)")
            }
        case .unreachable:
            if !unreachableSent { problems.append("call \(index) failed as unreachable, but no such error was sent") }
        case .cancelled:
            if !call.cancelled { problems.append("call \(index) was cancelled, but nobody cancelled it") }
        case let .other(error):
            problems.append("call \(index) failed with \(error)")
        }
    }

    /// Yields until `condition` holds, for at most five seconds of real time, so a leak fails
    /// instead of hanging (and a busy machine does not fail a correct manager).
    func waitFor(_ condition: @Sendable () -> Bool) async {
        let limit = ContinuousClock.now.advanced(by: .seconds(5))
        while ContinuousClock.now < limit {
            if condition() { return }
            await Task.yield()
        }
    }
}
