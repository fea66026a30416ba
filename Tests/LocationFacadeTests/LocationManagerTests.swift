import Clocks
import Foundation
import LocationFacade
import Simulators
import Testing
import TestSupport

/// Unit tier: LocationManager over a hand-driven source, on a test clock.
@Suite("LocationManager", .timeLimit(.minutes(1)))
struct LocationManagerTests {
    /// A fix with the measurements its mode gives (an altitude and a vertical accuracy in 3D, when
    /// it has an accuracy), as gpsd's whole epoch: one a request takes at once. Incomplete ones,
    /// and the wait for the rest of their epoch, are `EpochTests`'.
    static func fix(_ mode: FixMode = .fix3D, accuracy: Double? = 5, latitude: Double = 51.5, second: Double = 0) -> Location {
        Location(
            latitude: latitude, longitude: -0.12, altitude: mode == .fix3D ? 30 : nil, horizontalAccuracy: accuracy,
            verticalAccuracy: mode == .fix3D ? accuracy.map { $0 * 2 } : nil,
            time: Date(timeIntervalSince1970: 1_714_557_600 + second), receivedAt: Date(timeIntervalSince1970: 0), mode: mode)
    }

    @Test func returnsTheFirstFixThatMeetsTheMinimumMode() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        async let result = manager.requestLocation(timeout: .seconds(10), minimumMode: .fix3D)
        await source.waitUntilStarted()
        source.send(.noFix(device: nil, time: nil))
        source.send(.location(Self.fix(.fix2D, latitude: 1)))
        source.send(.location(Self.fix(.fix3D, latitude: 2)))
        source.send(.location(Self.fix(.fix3D, latitude: 3)))
        let location = try await result
        #expect(location.latitude == 2)
        #expect(location.isSimulated)
    }

    @Test func desiredAccuracyIsAnUpperBoundAndAnUnknownAccuracyDoesNotMeetIt() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        async let result = manager.requestLocation(timeout: .seconds(10), desiredAccuracy: 10)
        await source.waitUntilStarted()
        source.send(.location(Self.fix(accuracy: 25, latitude: 1)))
        source.send(.location(Self.fix(accuracy: nil, latitude: 2)))
        source.send(.location(Self.fix(accuracy: 10, latitude: 3)))
        #expect(try await result.latitude == 3)
    }

    @Test func timesOutAtTheDeadlineNotBeforeWithTheBestFixSeen() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        async let result = manager.requestLocation(timeout: .seconds(5), minimumMode: .fix3D, desiredAccuracy: 3)
        await source.waitUntilStarted()
        source.send(.location(Self.fix(.fix2D, accuracy: 8, latitude: 1)))
        source.send(.location(Self.fix(.fix3D, accuracy: 12, latitude: 2)))
        source.send(.location(Self.fix(.fix2D, accuracy: 8, latitude: 3)))
        await clock.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(manager.waitingRequestCount == 1)
        await clock.advance(by: .nanoseconds(1))
        do {
            _ = try await result
            Issue.record("expected a timeout")
        } catch let LocationError.timedOut(after, best, _) {
            #expect(after == .seconds(5))
            #expect(best?.latitude == 3, "the most accurate, then the newest")
        }
        await clock.advance(by: manager.configuration.sourceGracePeriod)
        await source.waitUntilStopped()
        #expect(manager.waitingRequestCount == 0)
    }

    @Test func aFixAtTheVeryInstantOfTheDeadlineIsTooLate() async throws {
        let (source, clock) = (FakeLocationSource(), HeldClock())
        let manager = LocationManager(source: source, clock: clock)
        let request = Task { try await manager.requestLocation(timeout: .seconds(5), desiredAccuracy: 10) }
        await source.waitUntilStarted()
        source.send(.location(Self.fix(accuracy: 50, latitude: 1)))
        clock.set(to: .seconds(5))  // the deadline; its timer is held and has not run
        source.send(.location(Self.fix(accuracy: 1, latitude: 2)))
        await #expect(throws: LocationError.timedOut(after: .seconds(5), best: Self.fix(accuracy: 50, latitude: 1).simulated)) {
            try await request.value
        }
    }

    @Test func aFixJustBeforeTheDeadlineIsInTime() async throws {
        let (source, clock) = (FakeLocationSource(), HeldClock())
        let manager = LocationManager(source: source, clock: clock)
        async let result = manager.requestLocation(timeout: .seconds(5))
        await source.waitUntilStarted()
        clock.set(to: .seconds(5) - .nanoseconds(1))
        source.send(.location(Self.fix(latitude: 7)))
        #expect(try await result.latitude == 7)
    }

    @Test func cancelBeforeTheRequestReachesTheSource() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await manager.requestLocation(timeout: .seconds(10))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(source.startCount == 0)
        #expect(manager.waitingRequestCount == 0)
    }

    @Test func cancelWhileWaitingResumesAtOnceAndStopsTheSource() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        let task = Task { try await manager.requestLocation(timeout: .seconds(10)) }
        await source.waitUntilStarted()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(manager.waitingRequestCount == 0)
        await clock.advance(by: manager.configuration.sourceGracePeriod)
        await source.waitUntilStopped()
        #expect(source.stopCount == 1)
    }

    @Test func cancelAfterTheAnswerChangesNothing() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        let task = Task { try await manager.requestLocation(timeout: .seconds(10)) }
        await source.waitUntilStarted()
        source.send(.location(Self.fix(latitude: 4)))
        let location = try await task.value
        task.cancel()
        #expect(location.latitude == 4)
        #expect(try await task.value.latitude == 4)
    }

    @Test func concurrentCallersEachGetTheirOwnAnswer() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        async let any2D = manager.requestLocation(timeout: .seconds(10))
        async let precise3D = manager.requestLocation(timeout: .seconds(10), minimumMode: .fix3D, desiredAccuracy: 5)
        let short = Task { try await manager.requestLocation(timeout: .seconds(2), minimumMode: .fix3D, desiredAccuracy: 1) }
        await manager.waitUntil(waitingRequests: 3)
        source.send(.location(Self.fix(.fix2D, accuracy: 3, latitude: 1)))
        source.send(.location(Self.fix(.fix3D, accuracy: 8, latitude: 2)))
        source.send(.location(Self.fix(.fix3D, accuracy: 4, latitude: 3)))
        #expect(try await any2D.latitude == 1)
        #expect(try await precise3D.latitude == 3)
        await clock.advance(by: .seconds(2))
        await #expect(throws: LocationError.timedOut(after: .seconds(2), best: Self.fix(.fix2D, accuracy: 3, latitude: 1).simulated)) {
            try await short.value
        }
        #expect(source.startCount == 1)
    }

    @Test func maximumAgeReturnsAFreshCachedFixAtOnceWithoutStartingTheSource() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        async let first = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.fix(latitude: 9, second: -86_400 * 365)))  // GPS time a year old
        _ = try await first
        await clock.advance(by: manager.configuration.sourceGracePeriod)
        await source.waitUntilStopped()
        await clock.advance(by: .seconds(3))
        let cached = try await manager.requestLocation(timeout: .seconds(10), maximumAge: .seconds(8))
        #expect(cached.latitude == 9, "freshness is when it was received, not its GPS time")
        #expect(source.startCount == 1)
    }

    @Test func maximumAgeAsksTheSourceAndJudgesItsCacheByAge() async throws {
        let (source, clock) = (FakeLocationSource(latestFix: Self.fix(latitude: 5), latestFixAge: .seconds(2)), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        let fresh = try await manager.requestLocation(timeout: .seconds(10), maximumAge: .seconds(2))
        #expect(fresh.latitude == 5)
        #expect(source.pollCount == 1)

        await clock.advance(by: .seconds(40))  // the manager's own copy is now 42 s old
        source.latestFixAge = .seconds(60)
        async let stale = manager.requestLocation(timeout: .seconds(10), maximumAge: .seconds(30))
        await source.waitUntil(polls: 2)
        await manager.waitUntil(waitingRequests: 1)
        source.send(.location(Self.fix(latitude: 6)))
        #expect(try await stale.latitude == 6, "a stale cache is passed over for the next live fix")
    }

    @Test func withoutMaximumAgeACachedFixIsNotAnAnswer() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        async let result = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.cachedLocation(Self.fix(latitude: 1), age: .zero))
        source.send(.location(Self.fix(latitude: 2)))
        #expect(try await result.latitude == 2)
    }

    @Test func anUnreachableSourceFailsAtOnceNotAtTheDeadline() async throws {
        let error = LocationError.unreachable(host: "10.1.2.3", port: 2947, reason: "the TCP connection was refused or failed")
        let (source, clock) = (FakeLocationSource(startBehavior: .fails(error)), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        // The clock never moves: a manager that waited for the deadline would hang here.
        await #expect(throws: error) { try await manager.requestLocation(timeout: .seconds(60)) }
    }

    @Test func afterConnectingTheManagerKeepsTryingUntilTheDeadline() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        async let result = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.error(.connectionLost(host: "h", port: 1, reason: "gpsd closed the connection")))
        source.send(.error(.unreachable(host: "h", port: 1, reason: "the TCP connection was refused or failed")))
        source.send(.error(.malformedData(excerpt: "x", reason: "not a JSON object")))
        await clock.advance(by: .seconds(9))
        #expect(manager.waitingRequestCount == 1)
        source.send(.location(Self.fix(latitude: 8)))
        #expect(try await result.latitude == 8)
    }

    @Test func theSourceStopsAGracePeriodAfterNoOneWaits() async throws {
        let (source, clock) = (FakeLocationSource(), VirtualClock())   // its advances wait for the grace timer
        let manager = LocationManager(source: source, clock: clock)
        #expect(manager.configuration.sourceGracePeriod == .seconds(5), "the documented default")
        async let result = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.fix()))
        _ = try await result
        await clock.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(source.isStarted && source.stopCount == 0, "still running just before the grace period ends")
        await clock.advance(by: .nanoseconds(1))
        await source.waitUntilStopped()
        #expect((source.startCount, source.stopCount) == (1, 1))
        #expect(manager.latestLocation?.latitude == 51.5)
    }

    @Test func withoutAGracePeriodTheSourceStopsWhenNoOneWaits() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock, configuration: .init(sourceGracePeriod: .zero))
        async let result = manager.requestLocation(timeout: .seconds(10))
        await source.waitUntilStarted()
        source.send(.location(Self.fix()))
        _ = try await result
        await source.waitUntilStopped()
        #expect((source.startCount, source.stopCount) == (1, 1))
    }

    // MARK: - Streams

    @Test func updatesDeliverFixesWithTheirModeAndDistanceFilter() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        var iterator = manager.updates(minimumMode: .fix3D, distanceFilter: 100, buffering: .all).makeAsyncIterator()
        await source.waitUntilStarted()
        source.send(.location(Self.fix(latitude: 51.5)))
        source.send(.location(Self.fix(.fix2D, latitude: 51.6)))        // 2D: filtered
        source.send(.location(Self.fix(latitude: 51.5005)))             // 56 m away: filtered
        source.send(.location(Self.fix(latitude: 51.501)))              // 111 m away
        #expect(try await iterator.next()?.latitude == 51.5)
        #expect(try await iterator.next()?.latitude == 51.501)
    }

    @Test func aSlowConsumerGetsTheNewestFixNotABacklog() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        var iterator = manager.updates().makeAsyncIterator()
        await source.waitUntilStarted()
        for latitude in 1...5 { source.send(.location(Self.fix(latitude: Double(latitude)))) }
        #expect(try await iterator.next()?.latitude == 5)
        source.send(.location(Self.fix(latitude: 6)))
        #expect(try await iterator.next()?.latitude == 6)
    }

    @Test func cancellingTheConsumerStopsTheWatch() async throws {
        let (source, clock) = (FakeLocationSource(), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        let consumer = Task {
            var count = 0
            for try await _ in manager.updates() { count += 1 }
            return count
        }
        await source.waitUntilStarted()
        source.send(.location(Self.fix()))
        consumer.cancel()
        _ = try await consumer.value
        await manager.waitUntil(streams: 0)  // the grace period begins
        await clock.advance(by: manager.configuration.sourceGracePeriod)
        await source.waitUntilStopped()
        #expect(source.stopCount == 1)
    }

    @Test func updatesEndWithTheErrorWhenTheSourceIsUnreachable() async throws {
        let error = LocationError.unreachable(host: "h", port: 1, reason: "the host name does not resolve")
        let (source, clock) = (FakeLocationSource(startBehavior: .fails(error)), TestClock())
        let manager = LocationManager(source: source, clock: clock)
        await #expect(throws: error) {
            for try await _ in manager.updates() {}
        }
    }
}

extension Location {
    /// This fix as a fake source delivers it: marked simulated.
    var simulated: Location {
        var copy = self
        copy.isSimulated = true
        return copy
    }
}
