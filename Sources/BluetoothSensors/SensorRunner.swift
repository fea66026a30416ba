#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import GPSCore
import LocationCore
import Logging
import WorkoutCore

/// The state and the task behind a ``BluetoothSensor``: connections one after the other, with
/// backoff, until stopped. The task holds this, not the sensor, so a sensor let go stops.
final class SensorRunner: Sendable {
    let configuration: BluetoothSensor.Configuration
    let clock: ElapsedClock
    let now: @Sendable () -> Date
    let logger: Logger
    /// A fitness machine's control point, across the run's connections.
    let controlPoint: ControlPoint
    /// Whether the machine gave control, and did not take it back since (``FitnessMachineControl``).
    let wantsControl = Locked(false)

    private struct State: Sendable {
        var generation: UInt64 = 0
        var task: Task<Void, Never>?
        var lastTask: Task<Void, Never>?
        var sink: Sink?
        var status: BluetoothSensorStatus
        /// When the connection was lost, while it is.
        var lostAt: Duration?
        var watchers: [UInt64: AsyncStream<BluetoothSensorStatus>.Continuation] = [:]
        var nextWatcher: UInt64 = 0
    }

    /// Where the samples of a run go: a stream's reader, or a session's hand that takes each
    /// where it is read (``BluetoothSensor/start(delivering:)``).
    private enum Sink: Sendable {
        case stream(AsyncStream<QuantitySample>.Continuation)
        case delivering(@Sendable (QuantitySample) -> Void)
    }

    /// Observed, so that a test can await a change no update is sent for (a notification read).
    private let state: ObservedState<State>

    init(configuration: BluetoothSensor.Configuration, clock: ElapsedClock, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.configuration = configuration
        self.clock = clock
        self.now = now
        self.logger = logger
        controlPoint = ControlPoint(address: configuration.address, clock: clock, timeout: configuration.controlTimeout)
        state = ObservedState(State(status: BluetoothSensorStatus(address: configuration.address)))
    }

    var status: BluetoothSensorStatus {
        state.withLock { $0.status }
    }

    /// The run under way (or the last one's, once stopped: no update is then taken).
    var generation: UInt64 {
        state.withLock { $0.generation }
    }

    /// Returns once `condition` holds for the status (at once if it does now).
    func waitUntil(_ condition: @escaping @Sendable (BluetoothSensorStatus) -> Bool) async {
        await state.waitUntil { condition($0.status) }
    }

    func start() -> AsyncStream<QuantitySample> {
        let (stream, continuation) = AsyncStream.makeStream(of: QuantitySample.self)
        if !start(into: .stream(continuation)) { continuation.finish() }
        return stream
    }

    /// Starts a run whose samples go to `deliver`, on the bus connection's thread as they are read.
    /// Returns `false` when a run is under way already (it goes on as it was).
    func start(delivering deliver: @escaping @Sendable (QuantitySample) -> Void) -> Bool {
        start(into: .delivering(deliver))
    }

    private func start(into sink: Sink) -> Bool {
        state.withLock { state -> Bool in
            guard state.task == nil else { return false }
            state.generation += 1
            let generation = state.generation
            state.sink = sink
            state.task = Task { [self] in await run(generation: generation) }
            return true
        }
    }

    func stop() {
        let task: Task<Void, Never>? = state.withLock { state in
            defer {
                state.lastTask = state.task ?? state.lastTask
                state.task = nil
                state.generation += 1
            }
            return state.task
        }
        task?.cancel()
    }

    func waitUntilIdle() async {
        let task = state.withLock { $0.task ?? $0.lastTask }
        await task?.value
    }

    func statusUpdates() -> AsyncStream<BluetoothSensorStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: BluetoothSensorStatus.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = continuation
            continuation.yield(state.status)
            return state.nextWatcher
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Changes the status (for the run `generation`, unless it has been stopped) and tells the watchers.
    func update(generation: UInt64, _ change: (inout BluetoothSensorStatus) -> Void) {
        state.withLock { state in
            guard state.generation == generation else { return }
            change(&state.status)
            for watcher in state.watchers.values { watcher.yield(state.status) }
        }
    }

    /// Hands the samples of `notifications` measurements to the session reading this sensor: into
    /// the stream, or to the session's hand, outside the lock (on the bus connection's thread,
    /// which reads the notifications one after the other: they come in order). The notifications
    /// are counted once their samples are handed over: a status that counts them is one whose
    /// samples the session has.
    func deliver(_ samples: [QuantitySample], notifications: Int, generation: UInt64, readings: (inout BluetoothSensorStatus) -> Void = { _ in }) {
        func count(_ state: inout State) {
            state.status.notifications += notifications
            readings(&state.status)
            for sample in samples { state.status.latest[sample.type] = sample.value }
            // No status update for a measurement: it would wake every watcher as often as the
            // sensor sends (a thousand times a second), for counters `status` gives when asked.
        }
        let deliver = state.withLock { state -> (@Sendable (QuantitySample) -> Void)? in
            guard state.generation == generation else { return nil }
            switch state.sink {
            case let .stream(continuation):
                for sample in samples { continuation.yield(sample) }
                count(&state)
                return nil
            case let .delivering(deliver):
                return deliver
            case nil:
                count(&state)
                return nil
            }
        }
        guard let deliver else { return }
        samples.forEach(deliver)
        state.withLock { state in
            if state.generation == generation { count(&state) }
        }
    }

    /// The connection came up: a gap, if there was one, is over.
    func connected(generation: UInt64) {
        let now = clock.now
        state.withLock { state in
            guard state.generation == generation else { return }
            if let lostAt = state.lostAt {
                state.status.gapTime += now - lostAt
                state.lostAt = nil
            }
            state.status.connection = .connected
            state.status.lastError = nil
            for watcher in state.watchers.values { watcher.yield(state.status) }
        }
    }

    /// The connection that was up went down: a gap begins.
    func lost(generation: UInt64) {
        let now = clock.now
        state.withLock { state in
            guard state.generation == generation else { return }
            state.status.gaps += 1
            state.lostAt = now
        }
    }

    /// The run ends (stopped): the stream of samples too, and the status says so.
    private func finish() {
        state.withLock { state in
            if case let .stream(continuation) = state.sink { continuation.finish() }
            state.sink = nil
            state.status.connection = .stopped
            for watcher in state.watchers.values { watcher.yield(state.status) }
        }
    }

    private func run(generation: UInt64) async {
        defer { finish() }
        // One for the run, not one a connection: a machine's total distance counted on across a
        // dropped connection covers the gap (a treadmill's belt ran on).
        let samples = Locked(SensorSamples(wheelCircumference: configuration.wheelCircumference))
        var attempt = 0
        var delay = configuration.reconnectDelay
        while !Task.isCancelled {
            attempt += 1
            update(generation: generation) { $0.connection = .connecting(attempt: attempt) }
            let outcome = await SensorConnection(runner: self, generation: generation, samples: samples).run()
            switch outcome {
            case .stopped:
                return
            case let .failed(error, wasConnected):
                logger.info("Bluetooth sensor connection ended", metadata: ["error": "\(error)"])
                if wasConnected {
                    lost(generation: generation)
                    attempt = 0
                    delay = configuration.reconnectDelay
                }
                update(generation: generation) { $0.lastError = error }
            }
            guard !Task.isCancelled else { return }
            // The wait counts from the announcement, so that a clock moved as soon as the status
            // says so is not lost to a sleep that had not begun yet.
            let deadline = clock.now + delay
            update(generation: generation) { $0.connection = .waitingToReconnect(after: delay, attempt: max(attempt, 1)) }
            guard (try? await clock.sleep(until: deadline)) != nil else { return }  // cancelled: the runner stops
            delay = min(delay * 2, configuration.maximumReconnectDelay)
        }
    }
}
