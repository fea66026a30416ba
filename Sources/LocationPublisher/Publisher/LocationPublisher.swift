#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import LocationCore
import Logging

/// Sends the positions of a `LocationSource` to one or more destinations through a durable
/// ``Outbox``: each fix that passes the ``PublishFilter`` is appended to the outbox before it is
/// sent, and removed when its destination acknowledged it. An outage, a crash or a reboot loses
/// nothing: what waits goes out when the destination is back, in the configured
/// ``DeliveryOrder`` (by default the newest first, then the backlog in time order).
///
/// ```swift
/// let outbox = try Outbox(path: "/var/lib/tracker/outbox.sqlite")
/// let publisher = LocationPublisher(source: client, outbox: outbox, destinations: [broker])
/// let running = Task { await publisher.run() }
/// // ... when the source ends (a replay's end, SIGTERM):
/// let status = await publisher.drain(timeout: .seconds(30))
/// await running.value
/// print(status.queued == 0 ? "all delivered" : "\(status.queued) kept for the next run")
/// ```
///
/// ## Delivery
/// One task per destination reads a batch of messages from the outbox (up to 20), sends them with
/// ``PublishDestination/deliver(contentsOf:)`` (several in flight where the destination can) and
/// removes the acknowledged ones in one commit. Once it has sent all that waited, each new
/// position is handed to it as it is appended, and it sends it without reading it back; the
/// removal of an acknowledged live position is committed with the next position's append (or
/// when 20 wait, or when the drain or ``run()`` ends), so a live position costs one commit. A
/// crash before that commit sends those few positions again (they were appended, so none is
/// lost): at-least-once delivery, which OwnTracks' consumers de-duplicate by `tst`. A
/// ``PublishError/rejected(destination:reason:)`` message is dropped and counted; any other failure
/// keeps it, and the destination is tried again after a ``Backoff`` on the publisher's clock
/// (a test clock in tests). Status (``status``, ``statusUpdates()``) says what waits and what failed.
///
/// ## A full disk
/// When the outbox cannot be written (``OutboxError/diskFull(path:)``) the error is in the status
/// and logged, and the newest position is kept in memory and still sent: the map stays current
/// while the history of that time is lost.
public final class LocationPublisher: Sendable {
    /// What the publisher does besides its source, outbox and destinations.
    public struct Configuration: Sendable, Hashable {
        /// Which fixes are published.
        public var filter: PublishFilter
        /// The order a backlog goes out in: what waited from before ``LocationPublisher/run()``, or
        /// what piled up while a destination failed. Live positions, with no failure since the
        /// destination last caught up, go out in time order whatever this says.
        public var order: DeliveryOrder
        /// The wait before trying a destination again after a failure.
        public var backoff: Backoff

        /// The defaults: every fix, newest first then the backlog, 1 s to 60 s backoff.
        public init(filter: PublishFilter = PublishFilter(), order: DeliveryOrder = .newestFirstThenBacklog, backoff: Backoff = Backoff()) {
            self.filter = filter
            self.order = order
            self.backoff = backoff
        }
    }

    private enum Phase: Sendable, Hashable {
        case idle, running, draining, finished
    }

    private struct State: Sendable {
        var phase: Phase = .idle
        var lastPublished: Location?
        /// Moves each time a position is queued: waiting senders wake.
        var generation: UInt64 = 0
        /// Where each destination's sender stands, and what is held in memory for it.
        var senders: SenderMachine
        var sent = 0
        var rejected = 0
        var lastSent: Date?
        var lastError: PublishError?
        var outboxError: OutboxError?
    }

    /// The outbox the positions wait in.
    public let outbox: Outbox
    /// Where they go.
    public let destinations: [any PublishDestination]
    /// The filter, order and backoff.
    public let configuration: Configuration

    private let source: any LocationSource
    private let clock: ElapsedClock
    private let logger: Logger
    private let state: ObservedState<State>
    /// The publisher's observation of its source, from its making to the end of ``run()``.
    private let observation = Locked<LocationObservation?>(nil)
    /// The destinations that had positions waiting when the publisher was made: a backlog.
    private let backlog: Set<String>
    private let streams = Locked<[UInt64: AsyncStream<PublisherStatus>.Continuation]>([:])
    private let nextStreamID = Locked<UInt64>(0)

    /// A publisher of `source`'s fixes through `outbox` to `destinations` (each with a different
    /// ``PublishDestination/name``). It takes the source's fixes from now on (into the outbox, as
    /// ``publish(_:trigger:)`` does before ``run()``), and starts the source in ``run()``.
    public convenience init(
        source: any LocationSource, outbox: Outbox, destinations: [any PublishDestination],
        configuration: Configuration = Configuration(), clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "swift-gps-facade.publisher")
    ) {
        self.init(source: source, outbox: outbox, destinations: destinations, configuration: configuration, clock: ElapsedClock(clock), logger: logger)
    }

    /// A publisher of the fixes of `manager`'s source, shared with the manager's other consumers
    /// (`LocationManager.sharedSource()`: a `RegionMonitor`, a workout session, streams), timing
    /// its backoffs on the manager's clock. It takes every fix from now on, whoever started the
    /// source; ``run()`` keeps the source running for it, and the drain's end lets it go.
    ///
    /// ```swift
    /// let manager = LocationManager(source: GPSDClient())
    /// let publisher = LocationPublisher(manager: manager, outbox: outbox, destinations: [broker])
    /// let monitor = manager.monitor()     // the same fixes, from the same gpsd connection
    /// ```
    public convenience init(
        manager: LocationManager, outbox: Outbox, destinations: [any PublishDestination],
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "swift-gps-facade.publisher")
    ) {
        self.init(
            source: manager.sharedSource(), outbox: outbox, destinations: destinations, configuration: configuration,
            clock: manager.clock, logger: logger)
    }

    private init(
        source: any LocationSource, outbox: Outbox, destinations: [any PublishDestination], configuration: Configuration,
        clock: ElapsedClock, logger: Logger
    ) {
        precondition(!destinations.isEmpty, "a publisher needs at least one destination")
        precondition(Set(destinations.map(\.name)).count == destinations.count, "each destination of a publisher needs its own name")
        self.source = source
        self.outbox = outbox
        self.destinations = destinations
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        state = ObservedState(State(senders: SenderMachine(destinations: destinations.map(\.name), batchSize: Self.batchSize)))
        // What waits from before (a previous run's queue) is a backlog: it goes out in the
        // configured order. So is what waits after a failure.
        // An outbox that cannot be counted may hold a backlog all the same: it is taken as one,
        // and said at once (as a failed append is, until an append succeeds).
        var backlog: Set<String> = []
        var unreadable: OutboxError?
        for name in destinations.map(\.name) {
            do throws(OutboxError) {
                if try outbox.count(for: name) > 0 { backlog.insert(name) }
            } catch {
                backlog.insert(name)
                unreadable = error
            }
        }
        self.backlog = backlog
        if let unreadable {
            logger.error("Cannot count the positions waiting in the outbox", metadata: [
                "outbox.path": "\(outbox.path ?? ":memory:")", "error": "\(unreadable)",
            ])
            state.withLock { $0.outboxError = unreadable }
        }
        // Observed from now: a source another consumer starts first (a shared one) loses no fix
        // to the time between this and run().
        let observation = source.addObserver { [weak self] event in
            if case let .location(fix) = event { self?.take(fix, trigger: nil) }
        }
        self.observation.withLock { $0 = observation }
    }

    // MARK: - Running

    /// Starts the source and sends its positions, until the task is cancelled or ``drain(timeout:)``
    /// ends it. What is queued when it returns stays in the outbox for the next run. Calling it
    /// while it runs is a programmer error; after the publisher finished, it returns at once.
    public func run() async {
        // A drain asked for before run (a signal at start-up) is honoured: run sends what is
        // queued, taking no fix, until the drain ends it.
        let phase = state.withLock { state -> Phase in
            defer { if state.phase == .idle { state.phase = .running } }
            return state.phase
        }
        precondition(phase != .running, "LocationPublisher.run() was called twice")
        if phase == .finished { return }
        source.start()
        publishStatus()
        await withTaskGroup(of: Void.self) { group in
            for destination in destinations {
                group.addTask { await self.send(to: destination, behind: self.backlog.contains(destination.name)) }
            }
            group.addTask { await self.state.waitUntil { $0.phase == .finished } }
            while await group.next() != nil {
                if state.withLock({ $0.phase == .finished }) || Task.isCancelled { group.cancelAll() }
            }
        }
        observation.withLock { $0 }?.cancel()
        source.stop()
        state.withLock { $0.phase = .finished }
        commitRemovals()
        publishStatus()
        finishStreams()
    }

    /// Stops taking fixes and sends what is queued, for at most `timeout` on the publisher's clock;
    /// then ends ``run()``. What was not delivered stays in the outbox for the next run.
    ///
    /// - Returns: the status at the end: ``PublisherStatus/queued`` is 0 when everything was delivered.
    public func drain(timeout: Duration) async -> PublisherStatus {
        state.withLock { state in
            if state.phase == .idle || state.phase == .running { state.phase = .draining }
        }
        source.stop()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await self.state.waitUntil { $0.phase == .finished || $0.senders.allWaiting }
            }
            group.addTask { [clock] in try? await clock.sleep(for: timeout) }  // cancelled: the drain ended first
            await group.next()
            group.cancelAll()
        }
        state.withLock { $0.phase = .finished }
        commitRemovals()
        publishStatus()
        return status
    }

    /// Queues `location` as it is, past the filter, with `trigger` (by default ``PublishTrigger/manual``),
    /// as if the source had sent it. Before ``run()`` it waits in the outbox until run sends it.
    public func publish(_ location: Location, trigger: PublishTrigger = .manual) {
        take(location, trigger: trigger)
    }

    /// Queues a region's enter or leave, decided at `location` (by default at its time; a line
    /// crossed between two fixes: the moment given), through the same outbox as the positions:
    /// what a crash or an outage does to a position it does to a transition. Not filtered; it
    /// does not count as the last position published.
    public func publish(_ transition: RegionTransition, at location: Location, time: Date? = nil) {
        take(location, trigger: .manual, transition: transition, time: time)
    }

    /// Returns once the sender of `destination` has sent all that waited and waits for the next
    /// position, which will be handed to it (for tests: what a live position then costs).
    func waitUntilCaughtUp(_ destination: String) async {
        await state.waitUntil { $0.senders.phases[destination] == .waiting }
    }

    /// Commits the removals of acknowledged positions that wait for the next append.
    private func commitRemovals() {
        do {
            try outbox.commitDeferredRemovals()
        } catch {
            // The positions will be sent again: duplicates, which at-least-once delivery allows.
            logger.error("Cannot remove delivered positions from the outbox", metadata: ["error": "\(error)"])
        }
    }

    // MARK: - Status

    /// Where the publisher stands now.
    public var status: PublisherStatus {
        let snapshot = state.withLock { $0 }
        let (count, oldest, dropped) = outbox.quickSummary()
        let held = snapshot.senders.held.values.filter { $0.id < 0 }
        let oldestHeld = held.map(\.time).min()
        return PublisherStatus(
            queued: count + Set(held.map(\.id)).count,
            oldestUnsent: [oldest, oldestHeld].compactMap { $0 }.min(),
            lastSent: snapshot.lastSent, sent: snapshot.sent, dropped: dropped + snapshot.senders.droppedInMemory,
            rejected: snapshot.rejected, lastError: snapshot.lastError, outboxError: snapshot.outboxError,
            isFinished: snapshot.phase == .finished)
    }

    /// The status now, then after each change (a position queued, delivered, dropped; an error),
    /// newest only when the reader is slower; ends after ``run()`` returns.
    ///
    /// ```swift
    /// for await status in publisher.statusUpdates() where status.queued == 0 {
    ///     break   // everything delivered
    /// }
    /// ```
    public func statusUpdates() -> AsyncStream<PublisherStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: PublisherStatus.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextStreamID.withLock { id in
            id += 1
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.streams.withLock { $0.removeValue(forKey: id) }
        }
        // The status is read and yielded under the lock that every yield takes: a change made
        // meanwhile is yielded after it, never before (the newest is what the stream keeps).
        streams.withLock { streams in
            streams[id] = continuation
            continuation.yield(status)
        }
        if state.withLock({ $0.phase == .finished }) {
            streams.withLock { _ = $0.removeValue(forKey: id) }
            continuation.finish()
        }
        return stream
    }

    /// Yields the status to every stream. Read and yielded under the streams' lock: two changes
    /// yielded at once by two threads arrive in the order they were read, so a stream, which
    /// keeps only the newest, never ends on the older one (a reader waiting for the newer would
    /// wait until the next change).
    private func publishStatus() {
        streams.withLock { streams in
            guard !streams.isEmpty else { return }
            let current = status
            for continuation in streams.values { continuation.yield(current) }
        }
    }

    private func finishStreams() {
        let continuations = streams.withLock { streams in
            defer { streams = [:] }
            return Array(streams.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    // MARK: - Intake

    /// Filters `fix` (unless `trigger` is given) and appends it to the outbox, or keeps it in memory
    /// when the outbox cannot be written.
    private func take(_ fix: Location, trigger: PublishTrigger?, transition: RegionTransition? = nil, time: Date? = nil) {
        let decided = state.withLock { state -> PublishTrigger? in
            guard state.phase == .idle || state.phase == .running else { return nil }
            if transition != nil { return trigger }
            // The same time and place again (a receiver's epoch reported twice): published once.
            if trigger == nil, let last = state.lastPublished, last.time != nil, last.time == fix.time,
               last.latitude == fix.latitude, last.longitude == fix.longitude {
                return nil
            }
            let decided = trigger ?? configuration.filter.trigger(for: fix, after: state.lastPublished)
            if decided != nil { state.lastPublished = fix }
            return decided
        }
        guard let decided else { return }
        var message = PositionMessage(id: 0, location: fix, trigger: decided, transition: transition)
        if let time { message.time = time }
        do {
            try outbox.append(&message, for: destinations.map(\.name))
            let appended = message
            let recovered = state.withLock { state -> Bool in
                defer {
                    state.outboxError = nil
                    state.generation += 1
                    state.senders.appended(appended)
                }
                return state.outboxError != nil
            }
            if recovered { logger.notice("The outbox can be written again", metadata: ["outbox.path": "\(outbox.path ?? ":memory:")"]) }
        } catch {
            message.id = outbox.memoryID()
            let first = state.withLock { state -> Bool in
                defer {
                    // Held in memory instead; the senders read the outbox again once it can be written.
                    state.outboxError = error
                    state.senders.heldInMemory(message)
                    state.generation += 1
                }
                return state.outboxError != error
            }
            if first {
                logger.error("The outbox cannot keep new positions; the newest is still sent from memory", metadata: [
                    "outbox.path": "\(outbox.path ?? ":memory:")", "error": "\(error)",
                ])
            }
        }
        publishStatus()
    }

    // MARK: - Sending

    /// The most messages read from the outbox and sent to a destination at once: a broker then
    /// has up to this many in flight (libmosquitto's own window is 20), and their removal is one
    /// commit.
    static let batchSize = 20

    /// Sends `destination` what waits for it, a batch at a time, until cancelled, or until
    /// nothing waits while draining.
    ///
    /// The configured ``DeliveryOrder`` is for a backlog: what waited before the run (`behind`),
    /// or what piled up while the destination failed. Until the sender has sent all that waited,
    /// the order is the configured one; after that, positions go out in time order, so a sender
    /// that falls a few positions behind a live source (a slow round trip, a loaded machine) does
    /// not send the newest of them first.
    ///
    /// Once the sender found nothing more in the outbox, it is caught up: each new position is
    /// handed to it as it is appended (``SenderMachine``), and it sends them without reading them
    /// back; it reads the outbox again after a failure, or when it falls a batch behind.
    private func send(to destination: any PublishDestination, behind: Bool) async {
        let name = destination.name
        var failures = 0
        var behind = behind
        // The highest id read from the outbox: a position handed over that is not above it was
        // read (and sent) already, when its append raced the read that found the outbox empty.
        var highestRead: Int64 = 0
        while !Task.isCancelled {
            let (generation, round) = state.withLock { state in
                (state.generation, state.senders.beginRound(name))
            }
            let (handed, caughtUp, held) = round
            // In time order, as from the outbox: two positions queued at once by two threads may
            // be handed over in the other order.
            var batch = handed.filter { $0.id > highestRead }.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
            let live = !batch.isEmpty
            if !live && caughtUp && held == nil {
                // Nothing handed over and nothing else waits: idle until the next position.
            } else if !live {
                do throws(OutboxError) {
                    let order = behind ? configuration.order : .oldestFirst
                    batch = if let held { [held] } else { try outbox.next(for: name, order: order, limit: Self.batchSize) }
                } catch {
                    logger.error("Cannot read the outbox", metadata: ["outbox.path": "\(outbox.path ?? ":memory:")", "error": "\(error)"])
                    state.withLock { $0.outboxError = error }
                    failures += 1
                    guard (try? await clock.sleep(for: configuration.backoff.delay(afterFailures: failures))) != nil else { return }  // cancelled: stop
                    continue
                }
                highestRead = max(highestRead, batch.map(\.id).max() ?? 0)
            }
            guard !batch.isEmpty else {
                behind = false
                let draining = state.withLock { state -> Bool in
                    if state.generation == generation { state.senders.foundNothing(name) }
                    return state.phase != .running && state.phase != .idle
                }
                if draining {
                    if state.withLock({ $0.generation == generation }) { return }
                    continue
                }
                await state.waitUntil { $0.generation != generation || ($0.phase != .running && $0.phase != .idle) }
                continue
            }
            let results = await destination.deliver(contentsOf: batch)
            var done: [(message: PositionMessage, rejected: PublishError?)] = []
            var failure: PublishError?
            for (message, result) in zip(batch, results) {
                switch result {
                case .success:
                    done.append((message, nil))
                case let .failure(error):
                    if Task.isCancelled { break }
                    let error = (error as? PublishError) ?? .unreachable(destination: name, reason: "\(error)")
                    if case .rejected = error {
                        done.append((message, error))
                    } else if failure == nil {
                        failure = error
                    }
                }
            }
            // A removal that cannot be committed (a full disk) is kept, and the next read of the
            // outbox tries it first: until it can, that read fails and the sender backs off.
            delivered(done, to: name)
            if Task.isCancelled { return }
            if results.count < batch.count && failure == nil {
                failure = .unreachable(destination: name, reason: "the destination sent \(results.count) of \(batch.count) positions")
            }
            guard let failure else {
                failures = 0
                // A batch short of the limit held everything that waited: caught up.
                if held == nil && batch.count < Self.batchSize { behind = false }
                continue
            }
            failures += 1
            behind = true
            // What was handed over is in the outbox: read from there again after the backoff.
            state.withLock { $0.senders.failed(name) }
            let first = state.withLock { state -> Bool in
                defer { state.lastError = failure }
                return state.lastError != failure
            }
            if first {
                logger.warning("Cannot deliver to a destination; positions stay queued", metadata: [
                    "publisher.destination": "\(name)", "error": "\(failure)",
                ])
            }
            publishStatus()
            guard (try? await clock.sleep(for: configuration.backoff.delay(afterFailures: failures))) != nil else { return }  // cancelled: stop
        }
    }

    /// Takes `messages` off the outbox for `name` after their acknowledgement (or rejection). The
    /// removal is committed with the next position's append, or with the batch that makes
    /// `Outbox/deferredRemovalLimit`, or when the drain ends: one commit per live position, and
    /// one per batch of a backlog.
    private func delivered(_ messages: [(message: PositionMessage, rejected: PublishError?)], to name: String) {
        guard !messages.isEmpty else { return }
        do {
            try outbox.acknowledge(messages.map(\.message.id), for: name, destinations: destinations.count)
        } catch {
            // The positions will be sent again: duplicates, which at-least-once delivery allows.
            logger.error("Cannot remove delivered positions from the outbox", metadata: ["error": "\(error)"])
        }
        let recovered = state.withLock { state -> Bool in
            var recovered = false
            for (message, rejected) in messages {
                state.senders.delivered(message.id, to: name)
                if let rejected {
                    state.rejected += 1
                    state.lastError = rejected
                    recovered = false
                    continue
                }
                state.sent += 1
                state.lastSent = max(state.lastSent ?? message.time, message.time)
                if state.lastError != nil { recovered = true }
                state.lastError = nil
            }
            return recovered
        }
        for case let (_, rejected?) in messages {
            logger.warning("A destination rejected a position; it was dropped", metadata: ["error": "\(rejected)"])
        }
        if recovered {
            logger.notice("Delivering again", metadata: ["publisher.destination": "\(name)"])
        }
        publishStatus()
    }
}
