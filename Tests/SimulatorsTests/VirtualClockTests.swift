import Foundation
import LocationFacade
import Simulators
import Testing

/// The virtual clock steps the replay device's player (a paced task): an advance returns with
/// everything due by then done, however long the player's observers take, and advances taken at
/// once take turns.
@Suite("Virtual clock", .timeLimit(.minutes(1)))
struct VirtualClockTests {
    /// An observer that takes its time (or a thread the system has set aside) does not make an
    /// advance return early: it waits for the player to go back to sleep, not for a number of yields.
    @Test func anAdvanceWaitsForAPlayerWithASlowObserver() async {
        let clock = VirtualClock()
        let track = SyntheticTrack.generate(count: 5)
        let device = ReplayLocationSource(locations: track, clock: clock)
        let slow = device.addObserver { event in
            guard case .location = event else { return }
            let busyUntil = ContinuousClock.now.advanced(by: .milliseconds(20))
            while ContinuousClock.now < busyUntil {}
        }
        defer { slow.cancel() }
        let recorder = LocationEventRecorder(observing: device)
        device.start()
        await clock.advance(by: .zero)
        #expect(recorder.log.locations.count == 1, "the first fix is due at once")
        for second in 1...4 {
            await clock.advance(by: .seconds(1))
            #expect(recorder.log.locations.map(\.time) == track.prefix(second + 1).map(\.time))
        }
    }

    /// `run()` waits for a player just started to reach its first sleep, then plays it to its end.
    @Test func runPlaysAReplayToItsEnd() async {
        let clock = VirtualClock()
        let track = SyntheticTrack.generate(count: 600)
        let device = ReplayLocationSource(locations: track, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        device.start()
        await clock.run()
        #expect(recorder.log.locations.count == 600)
        #expect(device.hasPlayedToEnd)
        #expect(clock.now.offset == .seconds(599))
    }

    /// Two advances called at once take turns: the clock ends where both together take it, with
    /// every fix due by then played, in order.
    @Test func advancesCalledAtOnceTakeTurns() async {
        let clock = VirtualClock()
        let track = SyntheticTrack.generate(count: 20)
        let device = ReplayLocationSource(locations: track, clock: clock)
        let recorder = LocationEventRecorder(observing: device)
        device.start()
        async let first: Void = clock.advance(by: .seconds(4))
        async let second: Void = clock.advance(by: .seconds(6))
        _ = await (first, second)
        #expect(clock.now.offset == .seconds(10))
        #expect(recorder.log.locations.map(\.time) == track.prefix(11).map(\.time))
    }
}
