import Clocks
import Foundation
import LocationCore
import RegionMonitoring
import SimulatorsCore
import Testing

@Suite("A monitor following a source, on a test clock")
struct FollowingTests {
    @Test("Fixes from the source make events; silence past 10 s on the clock is the unknown event, dated on the fixes' time line")
    func followsAndWatches() async throws {
        let clock = TestClock()
        let source = FakeLocationSource()
        let monitor = RegionMonitor(rules: MonitoringRules(confirmation: .fixes(1), dwell: nil))
        monitor.add(try .circle(center: Walks.greenwich, radius: 100), identifier: "home")
        let following = monitor.follow(source, clock: clock, now: { Walks.start })
        defer { following.cancel() }
        var events = monitor.events.makeAsyncIterator()
        source.send(.location(Walks.fix(Walks.greenwich, at: 0)))
        #expect(await events.next()?.kind == .enter)
        await clock.advance(by: .seconds(9))
        source.send(.location(Walks.fix(Walks.greenwich, at: 9)))
        // 10 s after the first fix, but 1 s after the second: nothing yet.
        await clock.advance(by: .seconds(9.5))
        #expect(monitor.record(for: "home")?.state == .satisfied)
        await clock.advance(by: .seconds(1))
        let unknown = await events.next()
        #expect(unknown?.kind == .unknown)
        #expect(unknown?.date == Walks.start.addingTimeInterval(19))
        // Back, inside as before: no event, the state satisfied again.
        source.send(.location(Walks.fix(Walks.greenwich, at: 30)))
        #expect(monitor.record(for: "home")?.state == .satisfied)
        // Out: the next event is the exit (not a second unknown, nor an enter).
        source.send(.location(Walks.fix(Walks.greenwich.destination(bearing: 0, distance: 400), at: 31)))
        #expect(await events.next()?.kind == .exit)
    }
}
