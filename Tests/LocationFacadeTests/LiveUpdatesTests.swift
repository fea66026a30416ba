import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Unit tier: `liveUpdates()`, CoreLocation's `CLLocationUpdate.liveUpdates()` in our terms, and the
/// accuracy filter it shares with `updates()`, on a virtual clock.
@Suite("Live updates", .timeLimit(.minutes(1)))
struct LiveUpdatesTests {
    static func fix(accuracy: Double?, latitude: Double) -> Location {
        LocationManagerTests.fix(accuracy: accuracy, latitude: latitude)
    }

    /// Reads `stream` into a list the test can look at while it runs.
    final class Reader<Element: Sendable>: Sendable {
        let elements = Watched<[Element]>([])
        let task: Task<Void, any Error>

        init(_ stream: AsyncThrowingStream<Element, any Error>) {
            let elements = self.elements
            task = Task {
                for try await element in stream { elements.change { $0.append(element) } }
            }
        }

        var read: [Element] { elements.value }

        /// Waits until `count` elements have been read: each one read wakes it.
        func waitFor(_ count: Int) async {
            await elements.waitUntil { $0.count >= count }
        }
    }

    @Test func updatesCarryTheFixesThatMeetTheDesiredAccuracy() async throws {
        let (source, clock) = (FakeLocationSource(), VirtualClock())
        let manager = LocationManager(source: source, clock: clock)
        let plain = Reader(manager.updates(desiredAccuracy: 10, buffering: .all))
        let live = Reader(manager.liveUpdates(desiredAccuracy: 10, buffering: .all))
        defer { plain.task.cancel(); live.task.cancel() }
        await source.waitUntilStarted()
        source.send(.location(Self.fix(accuracy: 25, latitude: 1)))
        source.send(.location(Self.fix(accuracy: nil, latitude: 2)))
        source.send(.location(Self.fix(accuracy: 10, latitude: 3)))
        source.send(.location(Self.fix(accuracy: 4, latitude: 4)))
        await plain.waitFor(2)
        await live.waitFor(2)
        #expect(plain.read.map(\.latitude) == [3, 4], "as requestLocation(desiredAccuracy:) judges them")
        #expect(live.read == [LocationUpdate(location: Self.fix(accuracy: 10, latitude: 3).simulated),
                              LocationUpdate(location: Self.fix(accuracy: 4, latitude: 4).simulated)])
        #expect(live.read.allSatisfy { !$0.locationUnavailable })
    }

    /// A car drives 30 s at 10 m/s, stands 30 s at a light (its receiver wandering 2 m, reporting
    /// a Doppler speed near 0, or no speed at all as a GGA-only receiver), and drives on: the
    /// updates say it is stationary from 10 s into the stop (the default rule: below 0.5 m/s for
    /// 10 s) to its end, and not before or after. Without a reported speed the flag follows the
    /// fixes 3 s late: a speed worked out from positions needs the fixes 3 s after it.
    @Test(arguments: [true, false])
    func updatesSayWhenTheDeviceIsStationary(reportsSpeed: Bool) async throws {
        let (source, clock) = (FakeLocationSource(), VirtualClock())
        let manager = LocationManager(source: source, clock: clock)
        #expect(manager.configuration.stationaryRule == .standingStill && MotionRule.standingStill.speedThreshold == 0.5)
        let live = Reader(manager.liveUpdates(buffering: .all))
        defer { live.task.cancel() }
        await source.waitUntilStarted()
        var random = SeededRandom(seed: 5)
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        for second in 0..<80 {
            let stopped = (30..<60).contains(second)
            let east = 10 * Double(min(second, 30) + max(0, second - 59))
            let wander = stopped ? (random.uniform(-2, 2), random.uniform(-2, 2)) : (0, 0)
            source.send(.location(Location(
                latitude: 48.2 + wander.1 / 111_195, longitude: 16.37 + (east + wander.0) / 74_100, horizontalAccuracy: 4,
                speed: reportsSpeed ? (stopped ? random.uniform(0, 0.1) : 10) : nil,
                time: start + Double(second), receivedAt: start + Double(second), mode: .fix2D)))
        }
        await live.waitFor(80)
        let stationary = live.read.enumerated().filter(\.element.isStationary).map(\.offset)
        // Slow since the last moving fix (29): stopped once that lasts 10 s, at fix 39, to the
        // last slow fix (59). Worked out from positions, a speed takes the fixes 3 s either side:
        // the stop is seen up to 3 s later at each end, and told 3 s after the fix.
        let (first, last) = reportsSpeed ? (39...39, 59...59) : (39...46, 56...62)
        #expect(stationary.first.map(first.contains) == true, "\(stationary)")
        #expect(stationary.last.map(last.contains) == true, "\(stationary)")
        #expect(stationary.count >= 12 && stationary.count == (stationary.last! - stationary.first! + 1), "one stretch: \(stationary)")
    }

    @Test func anUpdateSaysSoOnceWhenNoUsableFixHasComeForTenSeconds() async throws {
        let (source, clock) = (FakeLocationSource(), VirtualClock())
        let manager = LocationManager(source: source, clock: clock)
        #expect(manager.configuration.unavailableAfter == .seconds(10), "the documented default")
        let live = Reader(manager.liveUpdates(desiredAccuracy: 10))
        defer { live.task.cancel() }
        await source.waitUntilStarted()
        await clock.advance(by: .seconds(4))
        source.send(.location(Self.fix(accuracy: 5, latitude: 1)))       // usable: 10 s from now
        await live.waitFor(1)
        await clock.advance(by: .seconds(6))
        source.send(.location(Self.fix(accuracy: 50, latitude: 2)))      // not usable: changes nothing
        await clock.advance(by: .seconds(4) - .nanoseconds(1))
        #expect(live.read.count == 1, "not yet: 10 s since the last usable fix is a nanosecond away")
        await clock.advance(by: .nanoseconds(1))
        await live.waitFor(2)
        #expect(live.read.last == LocationUpdate(location: nil, locationUnavailable: true))
        await clock.advance(by: .seconds(30))
        #expect(live.read.count == 2, "said once")

        source.send(.location(Self.fix(accuracy: 5, latitude: 3)))
        await live.waitFor(3)
        #expect(live.read.last?.location?.latitude == 3 && live.read.last?.locationUnavailable == false)
        await clock.advance(by: .seconds(10))
        await live.waitFor(4)
        #expect(live.read.last?.locationUnavailable == true, "and again after the next silence")
    }

    @Test func aStreamThatHasHadNoFixSaysSoTheConfiguredTimeAfterItBegan() async throws {
        let (source, clock) = (FakeLocationSource(startBehavior: .hangs), VirtualClock())
        let manager = LocationManager(source: source, clock: clock, configuration: .init(unavailableAfter: .seconds(3)))
        let live = Reader(manager.liveUpdates())
        defer { live.task.cancel() }
        await source.waitUntilStarted()
        await clock.advance(by: .seconds(3) - .nanoseconds(1))
        #expect(live.read.isEmpty)
        await clock.advance(by: .nanoseconds(1))
        await live.waitFor(1)
        #expect(live.read == [LocationUpdate(location: nil, locationUnavailable: true)])
    }

    @Test func liveUpdatesEndWithTheErrorWhenTheSourceIsUnreachable() async throws {
        let error = LocationError.unreachable(host: "h", port: 1, reason: "the host name does not resolve")
        let (source, clock) = (FakeLocationSource(startBehavior: .fails(error)), VirtualClock())
        let manager = LocationManager(source: source, clock: clock)
        await #expect(throws: error) {
            for try await _ in manager.liveUpdates() {}
        }
    }
}
