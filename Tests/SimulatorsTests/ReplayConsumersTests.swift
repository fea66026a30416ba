import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Unit tier: what a replay on a virtual clock gives the consumers of a `LocationManager`: every
/// fix, in order, run after run, with the defaults; and one connection across a request and a
/// stream.
@Suite("Replays and their consumers on a virtual clock", .timeLimit(.minutes(2)))
struct ReplayConsumersTests {
    static let track = SyntheticTrack.generate(count: 300, seed: 25)

    /// The lines two consumers of the same replay write: one that works on each fix before it
    /// reads the next (CPU and a few task switches), one that reads as fast as it can; with the
    /// default buffering of `updates()` and `liveUpdates()`.
    func replayLines() async throws -> (working: [String], eager: [String]) {
        let clock = VirtualClock()
        // From 1 s on, so that both consumers are there before the first fix: a consumer that
        // joins after a fix came does not get it, on any clock.
        let timeline = Self.track.enumerated().map { index, fix in
            ReplayLocationSource.Entry(offset: .seconds(index + 1), event: .location(fix))
        }
        let device = ReplayLocationSource(timeline: timeline, clock: clock)
        let manager = LocationManager(source: device, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        let last = Self.track.last?.time
        let working = Task {
            var lines: [String] = []
            for try await fix in manager.updates() {
                var digest = 0.0
                for step in 0..<500 { digest += sin(fix.latitude * Double(step)) }
                for _ in 0..<3 { await Task.yield() }
                lines.append("\(fix.jsonLine) \(TextBytes.fixed(digest, decimals: 6))")
                if fix.time == last { break }
            }
            return lines
        }
        let eager = Task {
            var lines: [String] = []
            for try await update in manager.liveUpdates() {
                guard let fix = update.location else { continue }
                lines.append(fix.jsonLine)
                if fix.time == last { break }
            }
            return lines
        }
        await manager.waitUntil(streams: 2)
        await recorder.waitUntil { $0.states.contains(.watching) }
        await clock.advance(by: .seconds(301))
        return (try await working.value, try await eager.value)
    }

    @Test func theSameReplayGivesEveryConsumerEveryFixInOrderEveryRun() async throws {
        let first = try await replayLines()
        #expect(first.working.count == 300 && first.eager.count == 300)
        #expect(first.eager == Self.track.map { fix in
            var played = fix
            played.isSimulated = true
            return played.jsonLine
        })
        // Fifty runs; five under ThreadSanitizer, ten times slower there, where the runs beside
        // other tests took past the time limit (what TSan checks, the threads of one run, is in each).
        for run in 2...(ThreadSanitizer.isRunning ? 5 : 50) {
            let again = try await replayLines()
            #expect(again.working == first.working && again.eager == first.eager, "run \(run) differs")
        }
    }

    /// CoreLocation's "one fix, then follow": the request's answer, then every later fix of a
    /// replay with a gpsd restart in it, on one connection of the manager's.
    @Test func aRequestThenAStreamKeepsOneConnectionAndLosesNoFix() async throws {
        let clock = VirtualClock()
        let scenario = ReplayScenario.gpsdRestart(before: .seconds(10), downFor: .seconds(5), after: .seconds(10))
        let device = scenario.device(clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        let manager = LocationManager(source: device, clock: clock)
        let first = try await manager.requestLocation(timeout: .seconds(5))
        #expect(first.time == scenario.locations[0].time)
        await clock.advance(by: .seconds(3))   // within the grace period: the source runs on
        let rest = Task {
            var fixes: [Location] = []
            for try await fix in manager.updates() {
                fixes.append(fix)
                if fix.time == scenario.locations.last?.time { break }
            }
            return fixes
        }
        await manager.waitUntil(streams: 1)
        await clock.advance(by: .seconds(22))   // to 25 s: the last fix came at 24 s
        let fixes = try await rest.value
        #expect(fixes.map(\.time) == scenario.locations.dropFirst(4).map(\.time), "every fix from 4 s on: 16")
        #expect(!recorder.log.states.contains(.stopped), "never stopped")
        #expect(recorder.log.states.filter { $0 == .watching }.count == 2, "watching at the start, and again only after gpsd's own restart")
    }

    @Test func theSourceStopsWhenTheGracePeriodEndsOnTheVirtualClock() async throws {
        let clock = VirtualClock()
        let device = ReplayLocationSource(locations: Self.track, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        let manager = LocationManager(source: device, clock: clock)
        _ = try await manager.requestLocation(timeout: .seconds(5))
        await clock.advance(by: manager.configuration.sourceGracePeriod - .nanoseconds(1))
        #expect(!recorder.log.states.contains(.stopped))
        await clock.advance(by: .nanoseconds(1))
        #expect(recorder.log.states.last == .stopped, "stopped by the time the advance returns")
    }
}
