import Foundation
import GPSCore
import LocationCore
import LocationPublisher
import SimulatorsCore
import Testing
import TestSupport

/// The product's recording destination, under the name these tests have always used.
typealias FakeDestination = RecordingDestination

@Suite(.timeLimit(.minutes(1))) struct PublisherTests {
    static func silentSource() -> FakeLocationSource {
        FakeLocationSource()
    }

    /// The same time and place twice (a receiver's epoch reported twice) is published once; the
    /// same time elsewhere (another receiver) is not a repeat.
    @Test func aRepeatedInputIsPublishedOnce() async throws {
        let destination = FakeDestination()
        let source = FakeLocationSource()
        let publisher = LocationPublisher(source: source, outbox: try .inMemory(), destinations: [destination], clock: StepClock())
        let running = Task { await publisher.run() }
        let fixes = track(2)
        var elsewhere = fixes[1]
        elsewhere.latitude += 0.001
        for fix in [fixes[0], fixes[0], fixes[1], fixes[1], elsewhere] { source.send(.location(fix)) }
        await publisher.waitForStatus { $0.sent == 3 }
        _ = await publisher.drain(timeout: .seconds(5))
        await running.value
        #expect(destination.state.withLock { $0.delivered.map(\.latitude) } == [fixes[0].latitude, fixes[1].latitude, elsewhere.latitude])
    }

    @Test func aFailedDeliveryIsTriedAgainAfterTheBackoffOnTheClock() async throws {
        let clock = StepClock()
        let destination = FakeDestination()
        destination.state.withLock { $0.failure = .unreachable(destination: destination.name, reason: "connection refused") }
        let publisher = LocationPublisher(
            source: Self.silentSource(), outbox: try .inMemory(), destinations: [destination],
            configuration: .init(backoff: Backoff(initial: .seconds(1), maximum: .seconds(4))), clock: clock)
        let running = Task { await publisher.run() }
        publisher.publish(track(1)[0])
        // 1 s after the first failure, then 2 s, then 4 s, then 4 s.
        var now = Duration.zero
        for (attempt, delay) in [(1, 1), (2, 2), (3, 4), (4, 4)] {
            await destination.state.waitUntil { $0.attempts == attempt }
            let deadlines = await clock.waitForSleepers()
            #expect(deadlines == [now + .seconds(delay)], "after attempt \(attempt)")
            now += .seconds(delay)
            clock.set(to: now - .milliseconds(1))
            #expect(clock.sleeperCount == 1, "still waiting just before the deadline")
            #expect(destination.state.withLock { $0.attempts } == attempt)
            if attempt == 4 { destination.state.withLock { $0.failure = nil } }
            clock.set(to: now)
        }
        await destination.state.waitUntil { $0.delivered.count == 1 }
        let status = await publisher.waitForStatus { $0.queued == 0 && $0.lastError == nil }
        #expect(status?.sent == 1)
        running.cancel()
        await running.value
    }

    /// A sender a few positions behind a live source, with no failure, sends them in time order:
    /// the newest-first rule is for a backlog (seen under ThreadSanitizer: 24, 27, 25, 26).
    @Test func positionsQueuedBehindASlowDeliveryGoInTimeOrder() async throws {
        let destination = FakeDestination()
        let source = FakeLocationSource()
        let publisher = LocationPublisher(source: source, outbox: try .inMemory(), destinations: [destination], clock: StepClock())
        let running = Task { await publisher.run() }
        await source.waitUntilStarted()
        let fixes = track(5)
        destination.state.withLock { $0.holding = true }
        source.send(.location(fixes[0]))
        await destination.state.waitUntil { $0.waiting == 1 }
        for fix in fixes.dropFirst() { source.send(.location(fix)) }
        destination.state.withLock { $0.holding = false }
        await destination.state.waitUntil { $0.delivered.count == 5 }
        #expect(destination.state.withLock { $0.delivered.map(\.time) } == fixes.map(\.time))
        running.cancel()
        await running.value
    }

    /// After a failure the newest position goes first, then the backlog in time order; once the
    /// backlog is sent, live positions go in time order again.
    @Test func afterAFailureTheNewestGoesFirstThenTheBacklog() async throws {
        let clock = StepClock()
        let destination = FakeDestination()
        let source = FakeLocationSource()
        let publisher = LocationPublisher(
            source: source, outbox: try .inMemory(), destinations: [destination],
            configuration: .init(backoff: Backoff(initial: .seconds(1), maximum: .seconds(1))), clock: clock)
        let running = Task { await publisher.run() }
        await source.waitUntilStarted()
        let fixes = track(7)
        destination.state.withLock { $0.failure = .unreachable(destination: destination.name, reason: "connection refused") }
        source.send(.location(fixes[0]))
        await destination.state.waitUntil { $0.attempts == 1 }
        _ = await clock.waitForSleepers()
        for fix in fixes[1...3] { source.send(.location(fix)) }
        destination.state.withLock { $0.failure = nil }
        clock.set(to: .seconds(1))
        await destination.state.waitUntil { $0.delivered.count == 4 }
        // Caught up: the next positions, held behind a slow delivery, go in time order.
        destination.state.withLock { $0.holding = true }
        source.send(.location(fixes[4]))
        await destination.state.waitUntil { $0.waiting == 1 }
        for fix in fixes[5...] { source.send(.location(fix)) }
        destination.state.withLock { $0.holding = false }
        await destination.state.waitUntil { $0.delivered.count == 7 }
        let order = [3, 0, 1, 2, 4, 5, 6].map { fixes[$0].time }
        #expect(destination.state.withLock { $0.delivered.map(\.time) } == order)
        running.cancel()
        await running.value
    }

    @Test func aRejectedPositionIsDroppedAndCountedAndTheNextGoes() async throws {
        let destination = FakeDestination()
        destination.state.withLock { $0.rejectNext = true }
        let outbox = try Outbox.inMemory()
        let publisher = LocationPublisher(
            source: Self.silentSource(), outbox: outbox, destinations: [destination],
            configuration: .init(order: .oldestFirst), clock: StepClock())
        let fixes = track(2)
        for fix in fixes { publisher.publish(fix) }
        let running = Task { await publisher.run() }
        let status = await publisher.waitForStatus { $0.queued == 0 && $0.sent == 1 }
        #expect(status?.rejected == 1)
        #expect(destination.state.withLock { $0.delivered.map(\.time) } == [fixes[1].time])
        running.cancel()
        await running.value
    }

    @Test func aDrainThatRunsOutOfTimeKeepsTheQueue() async throws {
        let clock = StepClock()
        let destination = FakeDestination()
        destination.state.withLock { $0.failure = .unreachable(destination: destination.name, reason: "timed out") }
        let outbox = try Outbox.inMemory()
        let publisher = LocationPublisher(
            source: Self.silentSource(), outbox: outbox, destinations: [destination],
            configuration: .init(backoff: Backoff(initial: .seconds(60), maximum: .seconds(60))), clock: clock)
        for fix in track(3) { publisher.publish(fix) }
        let running = Task { await publisher.run() }
        _ = await clock.waitForSleepers()   // the sender's backoff
        let draining = Task { await publisher.drain(timeout: .seconds(30)) }
        let deadlines = await clock.waitForSleepers(2)
        #expect(deadlines == [.seconds(30), .seconds(60)])
        clock.set(to: .seconds(30))
        let end = await draining.value
        await running.value
        #expect(end.queued == 3)
        #expect(end.isFinished)
        #expect(try outbox.count() == 3)
    }

    @Test func aDrainReturnsOnceEverythingIsDelivered() async throws {
        let destination = FakeDestination()
        let source = FakeLocationSource()
        let publisher = LocationPublisher(source: source, outbox: try .inMemory(), destinations: [destination], clock: StepClock())
        let running = Task { await publisher.run() }
        await source.waitUntilStarted()
        for fix in track(5) { source.send(.location(fix)) }
        let end = await publisher.drain(timeout: .seconds(30))
        await running.value
        #expect(end.queued == 0)
        #expect(end.sent == 5)
        #expect(destination.state.withLock { $0.delivered.count } == 5)
        // The source is stopped: what it sends now is not taken.
        source.send(.location(track(1, from: 1_800_000_000)[0]))
        #expect(publisher.status.queued == 0)
    }

    @Test(.enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root"))
    func aFullDiskIsSaidAndTheNewestPositionStillGoesOut() async throws {
        let disk = try TinyDisk(megabytes: 1)
        defer { disk.unmount() }
        let outbox = try Outbox(path: disk.path + "/outbox.sqlite")
        let destination = FakeDestination()
        destination.state.withLock { $0.failure = .unreachable(destination: destination.name, reason: "down") }
        let clock = StepClock()
        let publisher = LocationPublisher(
            source: Self.silentSource(), outbox: outbox, destinations: [destination],
            configuration: .init(backoff: Backoff(initial: .seconds(1), maximum: .seconds(1))), clock: clock)
        let running = Task { await publisher.run() }
        let filler = disk.path + "/filler"
        disk.fill(filler)
        // Enough positions to need pages the disk no longer has.
        for fix in track(400) { publisher.publish(fix) }
        let full = await publisher.waitForStatus { $0.outboxError != nil }
        #expect(full?.outboxError == .diskFull(path: disk.path + "/outbox.sqlite"))
        #expect(full?.outboxError?.description.contains("is full") == true)
        let newest = track(1, from: 1_700_001_000)[0]
        publisher.publish(newest)
        // The sender failed once and waits out its backoff; the destination is back after it.
        let deadline = await clock.waitForSleepers()
        destination.state.withLock { $0.failure = nil }
        clock.set(to: deadline[0])
        await destination.state.waitUntil { $0.delivered.contains { $0.time == newest.time } }
        #expect(destination.state.withLock { $0.delivered.first?.time } == newest.time, "the newest first, from memory")
        try FileManager.default.removeItem(atPath: filler)
        publisher.publish(track(1, from: 1_700_002_000)[0])
        let recovered = await publisher.waitForStatus { $0.outboxError == nil }
        #expect(recovered != nil)
        running.cancel()
        await running.value
    }
}

@Suite struct PublishFilterTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func fix(seconds: Double, east metres: Double = 0, accuracy: Double? = 5, speed: Double? = nil) -> Location {
        Location(
            latitude: 51.4778, longitude: -0.0014 + metres / 69_400, horizontalAccuracy: accuracy, speed: speed,
            time: start.addingTimeInterval(seconds))
    }

    @Test func everyFixPassesTheDefaults() {
        let filter = PublishFilter()
        #expect(filter.trigger(for: Self.fix(seconds: 0), after: nil) == .timer)
        #expect(filter.trigger(for: Self.fix(seconds: 0.1), after: Self.fix(seconds: 0)) == .timer)
    }

    @Test func theIntervalIsTheLeastTimeBetweenTwo() {
        let filter = PublishFilter(minimumInterval: .seconds(30))
        #expect(filter.trigger(for: Self.fix(seconds: 29.9), after: Self.fix(seconds: 0)) == nil)
        #expect(filter.trigger(for: Self.fix(seconds: 30), after: Self.fix(seconds: 0)) == .timer)
    }

    @Test func standingStillPublishesPingsAtTheSlowerRate() {
        let filter = PublishFilter(minimumDistance: 50, stationaryInterval: .seconds(600))
        let last = Self.fix(seconds: 0)
        #expect(filter.trigger(for: Self.fix(seconds: 10, east: 60), after: last) == .timer)
        #expect(filter.trigger(for: Self.fix(seconds: 10, east: 40), after: last) == nil)
        #expect(filter.trigger(for: Self.fix(seconds: 599, east: 40), after: last) == nil)
        #expect(filter.trigger(for: Self.fix(seconds: 600, east: 40), after: last) == .ping)
        let slow = PublishFilter(stationarySpeed: 0.5, stationaryInterval: .seconds(600))
        #expect(slow.trigger(for: Self.fix(seconds: 10, east: 60, speed: 0.2), after: last) == nil)
        #expect(slow.trigger(for: Self.fix(seconds: 10, east: 60, speed: 1), after: last) == .timer)
    }

    @Test func theAccuracyGateDropsWorseFixes() {
        let filter = PublishFilter(maximumAccuracy: 100)
        #expect(filter.trigger(for: Self.fix(seconds: 0, accuracy: 100.5), after: nil) == nil)
        #expect(filter.trigger(for: Self.fix(seconds: 0, accuracy: 100), after: nil) == .timer)
        #expect(filter.trigger(for: Self.fix(seconds: 0, accuracy: nil), after: nil) == .timer)
        #expect(filter.trigger(for: Location(latitude: 91, longitude: 0), after: nil) == nil)
    }
}

extension PublisherTests {
    /// A drain asked for before run started (SIGINT at start-up) still sends what is queued.
    @Test func aDrainBeforeRunSendsTheQueue() async throws {
        let destination = FakeDestination()
        let publisher = LocationPublisher(source: FakeLocationSource(), outbox: try .inMemory(), destinations: [destination], clock: StepClock())
        for fix in track(2) { publisher.publish(fix) }
        let draining = Task { await publisher.drain(timeout: .seconds(30)) }
        await publisher.run()
        let end = await draining.value
        #expect(end.queued == 0)
        #expect(destination.state.withLock { $0.delivered.count } == 2)
        await publisher.run()   // finished: returns at once
    }
}
