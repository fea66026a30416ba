/// Whether a ``LocationManager``'s source runs, and why, as a pure state machine: each event
/// (someone wants the source or no one does, a connection change, an error, the grace timer)
/// changes the state and returns what to do, which the manager does outside its lock. No clock,
/// lock or thread: the times it needs are given, and a test drives it alone.
///
/// A source no one wants any more runs on for the grace period (lingering): a waiter who comes
/// meanwhile finds it running, with no reconnect and no fix lost, and the grace timer stops it
/// otherwise.
struct SourceMachine: Sendable {
    /// What the source is doing.
    enum Phase: Sendable {
        case stopped
        /// Started; `connectedSinceStart`: whether it has connected since (an unreachable source
        /// fails waiters at once only before that).
        case running(connectedSinceStart: Bool)
        /// No one has wanted it since the grace period began; it stops when the timer of `token`
        /// (made outside the lock, so `nil` for a moment) ends it, unless someone comes first.
        case lingering(token: UInt64, timer: Task<Void, Never>?, connectedSinceStart: Bool)
    }

    private(set) var phase = Phase.stopped
    /// Whether the source is connected now, as its last connection change said.
    private(set) var isConnected = false
    /// The last error the source reported since it was started, for a request that times out.
    private(set) var lastError: LocationError?
    private var lastToken: UInt64 = 0

    /// Whether anyone wants the source has been worked out again (`wanted`). A source that failed
    /// for good does not linger (`lingers` false); a grace period of zero stops it at once.
    /// Returns the actions, in order: a start, a stop, the grace timer to start, a timer to cancel.
    /// `now` is read only when a grace period begins.
    mutating func wanted(
        _ wanted: Bool, lingers: Bool = true, gracePeriod: Duration, now: @autoclosure () -> Duration
    ) -> [SourceAction] {
        switch (phase, wanted) {
        case (.stopped, true):
            phase = .running(connectedSinceStart: false)
            lastError = nil
            return [.start]
        case let (.lingering(_, timer, _), true):
            // As if started now: a source that lost its connection while it lingered and cannot
            // get it back fails the newcomer at once, as a stopped one that could not connect would.
            phase = .running(connectedSinceStart: isConnected)
            lastError = nil
            return timer.map { [.cancel($0)] } ?? []
        case let (.lingering(_, timer, _), false) where !lingers:
            phase = .stopped
            return (timer.map { [.cancel($0)] } ?? []) + [.stop]
        case let (.running(connected), false):
            if gracePeriod == .zero || !lingers {
                phase = .stopped
                return [.stop]
            }
            // The end of the grace period is set now, not when its timer's task first runs.
            lastToken += 1
            phase = .lingering(token: lastToken, timer: nil, connectedSinceStart: connected)
            return [.startGraceTimer(token: lastToken, until: now() + gracePeriod)]
        case (.running, true), (.stopped, false), (.lingering, false):
            return []
        }
    }

    /// The source connected (or began watching), or lost its connection.
    mutating func connectionChanged(connected: Bool) {
        isConnected = connected
        guard connected else { return }
        switch phase {
        case .stopped: break
        case .running: phase = .running(connectedSinceStart: true)
        case let .lingering(token, timer, _): phase = .lingering(token: token, timer: timer, connectedSinceStart: true)
        }
    }

    /// The source reported `error`. Returns whether it fails every waiter at once: a source that
    /// is not authorized, or one unreachable or unavailable before it ever connected since it was
    /// started. Anything else is left to the source's reconnects and the waiters' deadlines.
    mutating func failed(_ error: LocationError) -> Bool {
        lastError = error
        switch error {
        case .notAuthorized:
            return true
        case .unreachable, .serviceUnavailable:
            return switch phase {
            case .stopped: true
            case let .running(connected), let .lingering(_, _, connected): !connected
            }
        default:
            return false
        }
    }

    /// The grace timer of `token` was made: kept, or `false` when the source is no longer
    /// lingering for it (the caller cancels it).
    mutating func graceTimerStarted(_ timer: Task<Void, Never>, token: UInt64) -> Bool {
        guard case .lingering(token, nil, let connected) = phase else { return false }
        phase = .lingering(token: token, timer: timer, connectedSinceStart: connected)
        return true
    }

    /// The grace period of `token` ended with no one wanting the source: it stops, unless it was
    /// wanted again (or stopped) meanwhile.
    mutating func graceEnded(token: UInt64) -> [SourceAction] {
        guard case .lingering(token, _, _) = phase else { return [] }
        phase = .stopped
        return [.stop]
    }

    /// The manager is going away: the source stops if it was started, and a grace timer is
    /// cancelled. Returns them (the stop is the caller's to make: the manager owns the source).
    mutating func shutDown() -> (wasStarted: Bool, timer: Task<Void, Never>?) {
        defer { phase = .stopped }
        return switch phase {
        case .stopped: (false, nil)
        case .running: (true, nil)
        case let .lingering(_, timer, _): (true, timer)
        }
    }
}
