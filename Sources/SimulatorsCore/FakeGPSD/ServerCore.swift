#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore

/// The shared state of a ``FakeGPSDServer``: its sockets, its connections and the timeline position,
/// behind one lock. The I/O thread and the timeline task both change it through `mutate`, which also
/// resumes whoever waits on a condition that has become true.
final class ServerCore: Sendable {
    struct Connection {
        var output = ByteQueue()
        var input: [UInt8] = []
        var watching = false
        var deviceFilter: String?
        var closeWhenFlushed = false
    }

    struct State {
        var listener: Int32 = -1
        var boundPort: UInt16 = 0
        var connections: [Int32: Connection] = [:]
        var accepted = 0
        var requests = 0
        var lifecycle = Lifecycle.notRunning
        var timelinePhase = TimelinePhase.waitingToStart(startWaiter: nil)
        var sent = 0
        var latestTPV: [String: String] = [:]
        var latestSKY: [String: String] = [:]
        var roomWaiter: CheckedContinuation<Void, Never>?
        var conditionWaiters: [UInt64: ConditionWaiter] = [:]
        var nextWaiterID: UInt64 = 0
        var timeline: Task<Void, Never>?
        /// Devices the script named that were not announced at the start, in order.
        var laterDevices: [String] = []
        /// Why the recording could not be read on, when the timeline stopped for that.
        var readError: ReplayRecording.ReadError?
        /// When (on the server's clock) and how long the timeline's time stood still; see ``Watch``.
        var watch = Watch()
        /// The host clock of this fake gpsd, which its answer to `?POLL;` reads: see ``HostClock``.
        var hostClock = HostClock()
    }

    /// When the timeline started, and how long nobody watched since, on the server's clock, as
    /// the I/O thread and ``FakeGPSDServer/play()`` saw them happen (under the lock), not as the
    /// timeline task got round to noticing: a test that waits for its client to watch, then moves
    /// the clock, gets the same reports however late the timeline's thread runs.
    struct Watch {
        /// When the timeline was started (the first WATCH, ``FakeGPSDServer/play()``, or at once).
        var startedAt: Duration?
        /// Since when nobody has watched, if nobody watches now (counted once the timeline started).
        var unwatchedSince: Duration?
        /// How long nobody watched, in all, before `unwatchedSince`.
        var unwatched = Duration.zero

        /// Takes note of the state after a change: `watchers` clients watch, the timeline has
        /// `started` or not, and the server's clock reads `now`.
        mutating func note(watchers: Int, started: Bool, now: Duration) {
            if started, startedAt == nil { startedAt = now }
            guard startedAt != nil else { return }
            if watchers == 0, unwatchedSince == nil {
                unwatchedSince = now
            } else if watchers > 0, let since = unwatchedSince {
                unwatched += now - since
                unwatchedSince = nil
            }
        }
    }

    /// The server's sockets and the thread that serves them, from ``FakeGPSDServer/start()`` to
    /// ``FakeGPSDServer/shutdown()``. Apart from ``TimelinePhase``, because the two move on their
    /// own: a restart closes and reopens the sockets while the timeline plays on, and a timeline
    /// that finished is still finished after a shutdown. One enum of both would need a case for
    /// each pair.
    enum Lifecycle {
        /// No I/O thread yet (before ``FakeGPSDServer/start()``): whoever closes a socket closes it at once.
        case notRunning
        /// The I/O thread runs, and it alone closes sockets, between two polls: a socket closed
        /// while another thread polls it stays open (and its port bound) until that poll returns.
        /// `closing` is what it has been asked to close at its next turn.
        case running(closing: Closing)
        /// Shut down: the I/O thread closes every socket at its next turn, and ends.
        case stopping
        /// Shut down, and no I/O thread runs (it ended, or never ran). A socket opened after the
        /// shutdown, by a ``FakeGPSDServer/start()`` or a restart that came too late, is closed by
        /// whoever finds it: that start at once, or the next shutdown (the server's `deinit`).
        case stopped

        /// Shut down for good: every waiter returns, and nothing starts again.
        var isShutDown: Bool {
            switch self {
            case .notRunning, .running: false
            case .stopping, .stopped: true
            }
        }
    }

    /// What the I/O thread has been asked to close; a larger request includes a smaller one.
    enum Closing: Comparable {
        case nothing
        /// The listener only (the ``GPSDFault/shutDown(afterMessages:)`` fault: connections drain first).
        case listener
        /// The listener and every connection (the first half of a restart).
        case everything
    }

    /// Where the timeline is.
    enum TimelinePhase {
        /// Not started: it starts at the first WATCH, at ``FakeGPSDServer/play()``, or at once,
        /// as the ``FakeGPSDServer/StartPolicy`` says. Holds the timeline task while it waits.
        case waitingToStart(startWaiter: CheckedContinuation<Void, Never>?)
        /// Sending the script.
        case playing
        /// The whole script has been sent, or the recording could not be read on.
        case finished

        /// Starts the timeline (once started, nothing changes), and returns the task that waited
        /// for the start, for the caller to resume once the lock is released.
        mutating func start() -> CheckedContinuation<Void, Never>? {
            switch self {
            case let .waitingToStart(startWaiter):
                self = .playing
                return startWaiter
            case .playing, .finished:
                return nil
            }
        }

        var isFinished: Bool {
            switch self {
            case .waitingToStart, .playing: false
            case .finished: true
            }
        }
    }

    struct ConditionWaiter {
        var condition: @Sendable (FakeGPSDServer.Status) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    /// A client may have this much unread output before the fast pace waits for it.
    static let roomThreshold = 64 * 1024

    let requestedPort: UInt16
    let ignoresWatch: Bool
    /// The devices announced before the script names any (a streamed script names them as it goes).
    let initialDevices: [String]
    let startedAt = Date()
    let wake = WakeSignal()
    let state = Locked(State())
    /// The server's clock, read when the timeline starts and when watching stops or starts again.
    let clock: ElapsedClock
    /// Seconds of the script's time per second of `clock` (a recorded pace's speed; 1 otherwise).
    let timeRate: Double

    init(devices: [String], requestedPort: UInt16, ignoresWatch: Bool, clock: ElapsedClock, timeRate: Double = 1) {
        self.clock = clock
        self.timeRate = timeRate
        self.requestedPort = requestedPort
        self.ignoresWatch = ignoresWatch
        self.initialDevices = devices.isEmpty ? [GPSDScript.defaultDevice] : devices
    }

    /// The devices gpsd would list: those announced at the start, then any other the script names.
    func devices(_ state: State) -> [String] {
        initialDevices + state.laterDevices
    }

    // MARK: - Changing state

    /// Runs `body` under the lock, then resumes (outside it) every waiter whose condition now holds.
    @discardableResult
    func mutate<T>(_ body: (inout State) -> T) -> T {
        var ready: [CheckedContinuation<Void, Never>] = []
        let result = state.withLock { state in
            let result = body(&state)
            noteWatch(&state)
            ready = Self.takeReadyWaiters(&state)
            return result
        }
        for continuation in ready { continuation.resume() }
        return result
    }

    /// Keeps ``State/watch`` up to date: the clock is read only when the timeline starts or the
    /// number of watchers goes to or from zero.
    private func noteWatch(_ state: inout State) {
        let started = if case .waitingToStart = state.timelinePhase { false } else { true }
        let watched = state.connections.values.contains { $0.watching }
        let changes = started && state.watch.startedAt == nil || state.watch.startedAt != nil && watched == (state.watch.unwatchedSince != nil)
        guard changes else { return }
        state.watch.note(watchers: watched ? 1 : 0, started: started, now: clock.now)
    }

    /// When the timeline started, on the server's clock (`nil` before it starts), and how long
    /// nobody watched since, up to the last time somebody started watching again.
    var watchTimes: (startedAt: Duration?, unwatched: Duration) {
        state.withLock { ($0.watch.startedAt, $0.watch.unwatched) }
    }

    /// The timeline's start waiter is resumed here only on shutdown: a start takes it out itself
    /// (``TimelinePhase/start()``) and hands it to its caller.
    private static func takeReadyWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        if state.lifecycle.isShutDown, case let .waitingToStart(waiter?) = state.timelinePhase {
            state.timelinePhase = .waitingToStart(startWaiter: nil)
            ready.append(waiter)
        }
        if let waiter = state.roomWaiter, hasRoom(state) || state.lifecycle.isShutDown {
            state.roomWaiter = nil
            ready.append(waiter)
        }
        if !state.conditionWaiters.isEmpty {
            let status = makeStatus(state)
            for (id, waiter) in state.conditionWaiters where state.lifecycle.isShutDown || waiter.condition(status) {
                state.conditionWaiters[id] = nil
                ready.append(waiter.continuation)
            }
        }
        return ready
    }

    static func hasRoom(_ state: State) -> Bool {
        var watchers = 0
        for connection in state.connections.values where connection.watching {
            watchers += 1
            if connection.output.count >= roomThreshold { return false }
        }
        return watchers > 0
    }

    static func makeStatus(_ state: State) -> FakeGPSDServer.Status {
        FakeGPSDServer.Status(
            isListening: state.listener >= 0,
            connections: state.connections.count,
            watchers: state.connections.values.reduce(0) { $0 + ($1.watching ? 1 : 0) },
            sentReports: state.sent,
            isFinished: state.timelinePhase.isFinished,
            isFlushed: state.connections.values.allSatisfy { $0.output.isEmpty },
            acceptedConnections: state.accepted,
            requests: state.requests)
    }

    var status: FakeGPSDServer.Status {
        state.withLock { Self.makeStatus($0) }
    }

    var boundPort: UInt16 {
        state.withLock { $0.boundPort }
    }

    // MARK: - Waiting

    func waitUntil(_ condition: @escaping @Sendable (FakeGPSDServer.Status) -> Bool) async {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                mutate { state in
                    if state.lifecycle.isShutDown || condition(Self.makeStatus(state)) || Task.isCancelled {
                        continuation.resume()
                    } else {
                        state.conditionWaiters[id] = ConditionWaiter(condition: condition, continuation: continuation)
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.conditionWaiters.removeValue(forKey: id) }
            waiter?.continuation.resume()
        }
    }

    /// Returns when the timeline may start (or the server stopped).
    func waitUntilStarted() async {
        await withCheckedContinuation { continuation in
            let startsNow = mutate { state in
                switch state.timelinePhase {
                case .waitingToStart where !state.lifecycle.isShutDown:
                    state.timelinePhase = .waitingToStart(startWaiter: continuation)
                    return false
                case .waitingToStart, .playing, .finished:
                    return true
                }
            }
            if startsNow { continuation.resume() }
        }
    }

    /// Returns when at least one client watches (or on stop/cancel): a recorded pace waits here
    /// rather than play to nobody, so a looping replay left alone sleeps instead of spinning.
    func waitForWatcher() async {
        await waitUntil { $0.watchers > 0 }
    }

    /// Returns when every watcher has room for more, and there is at least one (or on stop/cancel).
    func waitForRoom() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                mutate { state in
                    if Self.hasRoom(state) || state.lifecycle.isShutDown || Task.isCancelled {
                        continuation.resume()
                    } else {
                        state.roomWaiter = continuation
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.roomWaiter = nil }
                return state.roomWaiter
            }
            waiter?.resume()
        }
    }

    // MARK: - Lifecycle

    func listen() throws -> UInt16 {
        try listen(port: requestedPort)
    }

    func relisten() throws {
        _ = try listen(port: boundPort)
        wake.signal()
    }

    private func listen(port: UInt16) throws -> UInt16 {
        let result: (socket: Int32, port: UInt16)
        do {
            result = try Sockets.listen(port: port)
        } catch {
            throw FakeGPSDServer.StartError(
                description: "The fake gpsd cannot listen on 127.0.0.1:\(port): \(error)", addressInUse: error.code == EADDRINUSE)
        }
        mutate { state in
            state.listener = result.socket
            state.boundPort = result.port
        }
        return result.port
    }

    func adoptTimeline(_ task: Task<Void, Never>) {
        let stopped = state.withLock { state in
            state.timeline = task
            return state.lifecycle.isShutDown
        }
        if stopped { task.cancel() }
    }

    func play() {
        mutate { $0.timelinePhase.start() }?.resume()
    }

    /// Closes the listener and every connection (the first half of a restart), and returns once
    /// they are closed.
    func goDown() async {
        requestClosing(.everything)
        await waitUntil { !$0.isListening && $0.connections == 0 }
    }

    /// Stops listening (connections stay open), and returns once the listener is closed.
    func stopListening() async {
        requestClosing(.listener)
        await waitUntil { !$0.isListening }
    }

    /// Asks the I/O thread to close `what` at its next turn, or closes it now when no I/O thread runs.
    private func requestClosing(_ what: Closing) {
        let closeNow: [Int32]? = mutate { state in
            switch state.lifecycle {
            case let .running(closing):
                state.lifecycle = .running(closing: max(closing, what))
                return nil
            case .stopping:
                return nil  // the I/O thread closes everything anyway
            case .notRunning, .stopped:
                switch what {
                case .nothing: return []
                case .listener: return closeListener(&state)
                case .everything: return closeEverything(&state)
                }
            }
        }
        if let closeNow {
            closeNow.forEach { close($0) }
        } else {
            wake.signal()
        }
    }

    /// Forgets the listener, and returns it for the caller to close once the lock is released.
    /// Called with the lock held.
    func closeListener(_ state: inout State) -> [Int32] {
        defer { state.listener = -1 }
        return state.listener >= 0 ? [state.listener] : []
    }

    /// Forgets the listener and every connection, and returns their sockets for the caller to close
    /// once the lock is released. Called with the lock held.
    func closeEverything(_ state: inout State) -> [Int32] {
        var sockets = closeListener(&state)
        sockets += state.connections.keys
        state.connections.removeAll()
        return sockets
    }

    /// Stops for good. The I/O thread closes the sockets as it exits (at once if none runs).
    func shutdown() {
        let (timeline, closing) = mutate { state -> (Task<Void, Never>?, [Int32]) in
            switch state.lifecycle {
            case .running, .stopping:
                state.lifecycle = .stopping
                return (state.timeline, [])
            case .notRunning, .stopped:
                state.lifecycle = .stopped
                return (state.timeline, closeEverything(&state))
            }
        }
        closing.forEach { close($0) }
        wake.signal()
        timeline?.cancel()
    }

    /// The timeline sent its last report. Only the timeline task calls it (or ``fail(_:)``), once
    /// past its start: no one waits for the start then.
    func markFinished() {
        mutate { $0.timelinePhase = .finished }
    }

    /// The recording could not be read on: the timeline ends here, saying why.
    func fail(_ error: ReplayRecording.ReadError) {
        mutate { state in
            state.readError = error
            state.timelinePhase = .finished
        }
    }

    var readError: ReplayRecording.ReadError? {
        state.withLock { $0.readError }
    }

    // MARK: - Sending

    /// Sends a report of the script (or one part of it) to every watcher it concerns.
    func send(_ entry: GPSDScript.Entry, part: LinePart = .whole, shiftedBy seconds: Double = 0) {
        var entry = entry
        entry.line = GPSDScript.shiftingTimes(in: entry.line, by: seconds)
        let text: String
        switch part {
        case .whole: text = entry.line + ByteQueue.lineEnd
        case .firstHalf: text = String(entry.line.prefix(entry.line.count / 2))
        case .secondHalf: text = String(entry.line.dropFirst(entry.line.count / 2)) + ByteQueue.lineEnd
        }
        let bytes = Array(text.utf8)
        let dated: (Date, Duration)? = if part != .firstHalf, entry.className == "TPV", let time = Self.time(of: entry.line) {
            (time, clock.now)
        } else {
            nil
        }
        let needsWake = mutate { state in
            if let (date, now) = dated { state.hostClock.sent(dated: date, at: now, rate: timeRate) }
            if part != .firstHalf {
                state.sent += 1
                if let device = entry.device, !initialDevices.contains(device), !state.laterDevices.contains(device) {
                    state.laterDevices.append(device)
                }
                if let device = entry.device {
                    if entry.className == "TPV" { state.latestTPV[device] = entry.line }
                    if entry.className == "SKY" { state.latestSKY[device] = entry.line }
                }
            }
            return Self.broadcast(bytes, device: entry.device, in: &state)
        }
        if needsWake { wake.signal() }
    }

    enum LinePart { case whole, firstHalf, secondHalf }

    /// Sends a raw line (a fault's garbage) to every watcher.
    func sendRaw(_ line: String) {
        let bytes = Array((line + ByteQueue.lineEnd).utf8)
        if mutate({ Self.broadcast(bytes, device: nil, in: &$0) }) { wake.signal() }
    }

    /// Closes every connection once its pending output is written.
    func closeAllWhenFlushed() {
        mutate { state in
            for fd in state.connections.keys { state.connections[fd]?.closeWhenFlushed = true }
        }
        wake.signal()
    }

    /// Appends to each watcher's output; true if one went from empty to non-empty (the I/O thread
    /// then needs waking to write it).
    private static func broadcast(_ bytes: [UInt8], device: String?, in state: inout State) -> Bool {
        var needsWake = false
        for fd in state.connections.keys {
            guard let connection = state.connections[fd], connection.watching else { continue }
            if let filter = connection.deviceFilter, let device, filter != device { continue }
            if connection.output.isEmpty { needsWake = true }
            state.connections[fd]?.output.append(bytes)
        }
        return needsWake
    }
}
