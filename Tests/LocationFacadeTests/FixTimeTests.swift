import Foundation
import LocationCore
import Simulators
import Testing

/// The fixes' time, for dating samples beside them: the system clock before the first fix, then
/// the latest fix's time and the time since it came, never going back.
struct FixTimeTests {
    private let recorded = Date(timeIntervalSince1970: 1_262_304_000)  // 2010-01-01: a replay's dates

    @Test func beforeAFixItIsTheFallbackThenTheFixesTime() async {
        let source = HandFedSource()
        let clock = VirtualClock()
        let time = FixTime(following: source, clock: clock, fallback: { Date(timeIntervalSince1970: 5) })
        #expect(time.now() == Date(timeIntervalSince1970: 5))
        #expect(!time.hasFix)

        source.send(Location(latitude: 1, longitude: 2))  // no time: says nothing of the time
        #expect(!time.hasFix)
        source.send(Location(latitude: 1, longitude: 2, time: recorded))
        #expect(time.now() == recorded)
        await clock.advance(by: .milliseconds(250))
        #expect(time.now() == recorded.addingTimeInterval(0.25))
        source.send(Location(latitude: 1, longitude: 2, time: recorded.addingTimeInterval(1)))
        #expect(time.now() == recorded.addingTimeInterval(1))
    }

    @Test func aReplayPlayedFasterRunsTimeFaster() async {
        let source = HandFedSource()
        let clock = VirtualClock()
        let time = FixTime(following: source, rate: 10, clock: clock)
        source.send(Location(latitude: 1, longitude: 2, time: recorded))
        await clock.advance(by: .milliseconds(50))
        #expect(time.now() == recorded.addingTimeInterval(0.5))
    }

    @Test func timeNeverGoesBack() async {
        let source = HandFedSource()
        let clock = VirtualClock()
        let time = FixTime(following: source, clock: clock)
        source.send(Location(latitude: 1, longitude: 2, time: recorded))
        await clock.advance(by: .milliseconds(1100))
        let late = time.now()
        #expect(late == recorded.addingTimeInterval(1.1))
        // The next fix came a little earlier than the clock says: the time waits for it.
        source.send(Location(latitude: 1, longitude: 2, time: recorded.addingTimeInterval(1)))
        #expect(time.now() == late)
        await clock.advance(by: .milliseconds(200))
        #expect(time.now() == recorded.addingTimeInterval(1.2))
        // A repeated or older fix does not move it.
        source.send(Location(latitude: 1, longitude: 2, time: recorded))
        #expect(time.now() == recorded.addingTimeInterval(1.2))
    }

    @Test func cancelledItGoesOnFromTheLatestFix() async {
        let source = HandFedSource()
        let clock = VirtualClock()
        let time = FixTime(following: source, clock: clock)
        source.send(Location(latitude: 1, longitude: 2, time: recorded))
        time.cancel()
        source.send(Location(latitude: 1, longitude: 2, time: recorded.addingTimeInterval(100)))
        await clock.advance(by: .seconds(2))
        #expect(time.now() == recorded.addingTimeInterval(2))
        #expect(source.observerCount == 0)
    }
}

/// A source whose fixes the test sends, on the test's own task.
private final class HandFedSource: LocationSource {
    private let observers = LocationObservers()

    func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
        observers.add(handler)
    }

    func send(_ location: Location) {
        observers.send(.location(location))
    }

    var observerCount: Int { observers.isEmpty ? 0 : 1 }

    func start() {}
    func stop() {}
    func requestLatestFix() {}
}
