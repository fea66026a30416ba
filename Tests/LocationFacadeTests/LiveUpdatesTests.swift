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
        let elements = Locked<[Element]>([])
        let task: Task<Void, any Error>

        init(_ stream: AsyncThrowingStream<Element, any Error>) {
            let elements = self.elements
            task = Task {
                for try await element in stream { elements.withLock { $0.append(element) } }
            }
        }

        var read: [Element] { elements.withLock { $0 } }

        func waitFor(_ count: Int) async {
            await waitUntil { read.count >= count }
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
